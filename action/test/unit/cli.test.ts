import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliArgs, runCli } from '../../src/cli.js';
import { parseInputs, type InputName } from '../../src/inputs.js';

function inputs(over: Partial<Record<InputName, string>> = {}) {
  const all: Partial<Record<InputName, string>> = {
    'secret-prefix': 'apps/prod',
    'cli-version': '1.2.3',
    'github-token': 't',
    ...over,
  };
  return parseInputs((n) => all[n] ?? '', { GITHUB_SHA: 'f'.repeat(40), GITHUB_REPOSITORY: 'acme/infra' });
}

describe('cliArgs', () => {
  it('maps a minimal plan to flags, leaving CLI defaults alone', () => {
    expect(cliArgs(inputs(), '/ws', '/tmp/r/report.json')).toEqual([
      'plan',
      '--repository=/ws',
      `--revision=${'f'.repeat(40)}`,
      '--repository-id=acme/infra',
      '--secret-prefix=apps/prod',
      '--allow-empty=false',
      '--show-resource-names=false',
      '--log-format=json',
      '--report-file=/tmp/r/report.json',
    ]);
  });

  it('maps every input and gates drift only for plan', () => {
    const all = {
      'source-root': 'deploy/secrets',
      'aws-region': 'eu-west-1',
      'recovery-window-days': '14',
      'run-timeout': '5m',
      'operation-timeout': '10s',
      'verification-timeout': '1m',
      'allow-empty': 'true',
      'show-resource-names': 'true',
      'fail-on-drift': 'true',
    };
    const plan = cliArgs(inputs(all), '/ws', '/r.json');
    expect(plan).toEqual(
      expect.arrayContaining([
        '--source-root=deploy/secrets',
        '--aws-region=eu-west-1',
        '--recovery-window-days=14',
        '--run-timeout=5m',
        '--operation-timeout=10s',
        '--verification-timeout=1m',
        '--allow-empty=true',
        '--show-resource-names=true',
        '--detailed-exit-code',
      ]),
    );
    const sync = cliArgs(inputs({ ...all, mode: 'sync' }), '/ws', '/r.json');
    expect(sync[0]).toBe('sync');
    expect(sync).not.toContain('--detailed-exit-code');
  });

  it('passes values with shell metacharacters as one argument each', () => {
    const args = cliArgs(inputs({ 'secret-prefix': 'a b;$(x)' }), '/ws', '/r.json');
    expect(args).toContain('--secret-prefix=a b;$(x)');
  });
});

describe('runCli', () => {
  it('runs without a shell, forwards stdout inside stop-commands, counts and drops stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const bin = join(dir, 'fake cli');
    writeFileSync(
      bin,
      '#!/bin/sh\nprintf "%s|" "$@"\necho\necho "::error::injected"\necho "secret-stderr-text" >&2\nexit 4\n',
    );
    chmodSync(bin, 0o755);
    const chunks: string[] = [];
    const res = await runCli(bin, ['a b', '$(echo no)', ';x'], dir, { PATH: process.env.PATH ?? '' }, (c) =>
      chunks.push(c.toString()),
    );
    const out = chunks.join('');
    expect(res).toEqual({ exitCode: 4, stderrBytes: 'secret-stderr-text\n'.length });
    expect(out).toContain('a b|$(echo no)|;x|');
    expect(out).not.toContain('secret-stderr-text');
    const marker = /::stop-commands::([0-9a-f]{32})\n/.exec(out)?.[1];
    expect(marker).toBeDefined();
    const start = out.indexOf('::stop-commands::');
    const end = out.indexOf(`::${marker ?? 'x'}::`);
    const injected = out.indexOf('::error::injected');
    expect(start).toBeLessThan(injected);
    expect(injected).toBeLessThan(end);
  });
});
