import { EventEmitter } from 'node:events';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Cancellation, LATE_SIGNAL_GRACE_MS } from '../../src/cancel.js';
import { cliArgs, detailedExitCode, runCli, type CliResult } from '../../src/cli.js';
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
    expect(cliArgs(inputs(), '/ws', '/tmp/r/report.json', '/tmp/r/plan.json')).toEqual([
      'plan',
      '--repository=/ws',
      `--revision=${'f'.repeat(40)}`,
      '--repository-id=acme/infra',
      '--secret-prefix=apps/prod',
      '--allow-empty=false',
      '--show-resource-names=false',
      '--log-format=json',
      '--report-file=/tmp/r/report.json',
      '--plan-file=/tmp/r/plan.json',
    ]);
  });

  it('passes no flag for aws-account-id: it only tells comments and drift issues apart', () => {
    expect(cliArgs(inputs({ 'aws-account-id': '123456789012' }), '/ws', '/r.json', '/p.json')).toEqual(cliArgs(inputs(), '/ws', '/r.json', '/p.json'));
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
    const plan = cliArgs(inputs(all), '/ws', '/r.json', '/p.json');
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
    const sync = cliArgs(inputs({ ...all, mode: 'sync' }), '/ws', '/r.json', '/p.json');
    expect(sync[0]).toBe('sync');
    expect(sync).not.toContain('--detailed-exit-code');
  });

  it('with config-file passes --config and --scope, and only the inputs that are set', () => {
    const args = cliArgs(
      inputs({ 'secret-prefix': '', 'config-file': 'deploy/scopes.yaml', scopes: 'prod-eu,staging' }),
      '/ws',
      '/r.json',
      '/p.json',
    );
    expect(args).toEqual([
      'plan',
      '--repository=/ws',
      '--config=deploy/scopes.yaml',
      '--scope=prod-eu,staging',
      `--revision=${'f'.repeat(40)}`,
      '--log-format=json',
      '--report-file=/r.json',
      '--plan-file=/p.json',
    ]);
    // A set input still reaches the CLI (it overrides the file's key).
    const set = cliArgs(
      inputs({ 'config-file': 'c.yaml', 'allow-empty': 'true', 'show-resource-names': 'true', 'aws-region': 'eu-west-1' }),
      '/ws',
      '/r.json',
      '/p.json',
    );
    expect(set).toEqual(
      expect.arrayContaining(['--config=c.yaml', '--secret-prefix=apps/prod', '--allow-empty=true', '--show-resource-names=true', '--aws-region=eu-west-1']),
    );
    expect(set.some((a) => a.startsWith('--scope='))).toBe(false);
    expect(set.some((a) => a.startsWith('--repository-id='))).toBe(false);
  });

  it('runs plan with --detailed-exit-code for drift-issue alone, so drift is told from an error by the exit code', () => {
    const args = cliArgs(inputs({ 'drift-issue': 'true' }), '/ws', '/r.json', '/p.json');
    expect(args.filter((a) => a === '--detailed-exit-code')).toHaveLength(1);
    expect(args.some((a) => a.includes('drift-issue') || a.includes('sops-aws-sync-drift'))).toBe(false);
    expect(detailedExitCode({ mode: 'plan', failOnDrift: false, driftIssue: 'x' })).toBe(true);
    expect(detailedExitCode({ mode: 'plan', failOnDrift: true, driftIssue: undefined })).toBe(true);
    expect(detailedExitCode({ mode: 'plan', failOnDrift: false, driftIssue: undefined })).toBe(false);
    expect(detailedExitCode({ mode: 'sync', failOnDrift: true, driftIssue: 'x' })).toBe(false);
  });

  it('passes the operator controls, one --tag per line of the tags input', () => {
    const args = cliArgs(
      inputs({
        'max-deletions': '2',
        'kms-key-id': 'alias/app-secrets',
        description: 'from acme/infra',
        tags: 'team=platform\nenv=prod',
      }),
      '/ws',
      '/r.json',
      '/p.json',
    );
    expect(args).toEqual(
      expect.arrayContaining([
        '--max-deletions=2',
        '--kms-key-id=alias/app-secrets',
        '--description=from acme/infra',
        '--tag=team=platform',
        '--tag=env=prod',
      ]),
    );
    expect(args.filter((a) => a.startsWith('--tag=')).length).toBe(2);
    const none = cliArgs(inputs(), '/ws', '/r.json', '/p.json');
    expect(none.some((a) => /^--(tag|kms-key-id|description|max-deletions)=/.test(a))).toBe(false);
  });

  it('passes key-services only when set, so the CLI default (no address a document chose) applies otherwise', () => {
    const args = cliArgs(inputs({ 'key-services': 'age,vault=https://vault.internal:8200' }), '/ws', '/r.json', '/p.json');
    expect(args).toContain('--key-services=age,vault=https://vault.internal:8200');
    const none = cliArgs(inputs(), '/ws', '/r.json', '/p.json');
    expect(none.some((a) => a.startsWith('--key-services'))).toBe(false);
    expect(() => inputs({ 'key-services': 'age\nvault=https://x' })).toThrow();
  });

  it('passes values with shell metacharacters as one argument each', () => {
    const args = cliArgs(inputs({ 'secret-prefix': 'a b;$(x)' }), '/ws', '/r.json', '/p.json');
    expect(args).toContain('--secret-prefix=a b;$(x)');
  });
});

// runCli's timers (the grace period after a forwarded signal, the wait for
// stdout and stderr to close after the CLI exited) run on a fake clock in
// these tests: each fires only when a test advances the clock, never because
// a loaded machine was slow (docs/testing.md, "No test waits for the machine").
function fakeClock(): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

describe('runCli', () => {
  fakeClock();

  it('runs without a shell, forwards stdout inside stop-commands, counts and drops stderr', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const bin = join(dir, 'fake cli');
    writeFileSync(
      bin,
      '#!/bin/sh\nprintf "%s|" "$@"\necho\necho "::error::injected"\necho "secret-stderr-text" >&2\nexit 4\n',
    );
    chmodSync(bin, 0o755);
    const chunks: string[] = [];
    const res = await runCli(bin, ['a b', '$(echo no)', ';x'], dir, { PATH: process.env.PATH ?? '' }, {
      write: (c) => chunks.push(c.toString()),
    });
    const out = chunks.join('');
    expect(res).toEqual({
      exitCode: 4,
      signal: null,
      stderrBytes: 'secret-stderr-text\n'.length,
      forwarded: undefined,
      killed: false,
    });
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

describe('runCli forwards cancellation to the real child process', () => {
  fakeClock();

  /**
   * Starts a stand-in CLI (a Node script, one process, nothing left behind)
   * under runCli with a signal source the test drives. The script records
   * each signal it handles in a file and prints lines the test waits for.
   */
  function start(body: string, graceMs = 60_000) {
    const dir = mkdtempSync(join(tmpdir(), 'cli-cancel-'));
    const bin = join(dir, 'cli');
    const log = join(dir, 'signals');
    writeFileSync(
      bin,
      `#!${process.execPath}\nconst fs = require('node:fs');\nconst record = (s) => fs.appendFileSync(${JSON.stringify(log)}, s + '\\n');\nsetInterval(() => {}, 1 << 30);\n${body}\nconsole.log('READY');\n`,
    );
    chmodSync(bin, 0o755);
    const emitter = new EventEmitter();
    const lines: string[] = [];
    let out = '';
    const waiters: { text: string; ok: () => void }[] = [];
    const result: Promise<CliResult> = runCli(bin, [], dir, { PATH: process.env.PATH ?? '' }, {
      cancellation: new Cancellation(emitter),
      graceMs,
      write: (c) => {
        out += c.toString();
        for (const w of waiters.filter((x) => out.includes(x.text))) w.ok();
      },
      log: (l) => lines.push(l),
    });
    const waitFor = (text: string) =>
      new Promise<void>((ok) => {
        if (out.includes(text)) ok();
        else waiters.push({ text, ok });
      });
    const signals = () => {
      try {
        return readFileSync(log, 'utf8');
      } catch {
        return '';
      }
    };
    return { emitter, waitFor, result, signals, lines };
  }

  // The CLI's behaviour: record the signal, exit 130.
  const trapping = `for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => { record(s); process.exit(130); });`;

  it.each(['SIGINT', 'SIGTERM'] as const)('delivers %s once and returns the exit code 130', async (sig) => {
    const run = start(trapping);
    await run.waitFor('READY');
    run.emitter.emit(sig);
    const res = await run.result;
    expect(res).toMatchObject({ exitCode: 130, signal: null, forwarded: sig, killed: false });
    expect(run.signals()).toBe(`${sig}\n`);
    expect(run.lines.join('\n')).toContain(`Received ${sig}: forwarded it to sops-aws-sync`);
  });

  it('sends SIGKILL to a CLI that ignores the signal once the grace period ends', async () => {
    const run = start(`for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => { record(s); console.log('GOT-' + s); });`, 100);
    await run.waitFor('READY');
    run.emitter.emit('SIGINT');
    // The CLI handled the signal before the grace period ends on the clock.
    await run.waitFor('GOT-SIGINT');
    vi.advanceTimersByTime(100);
    const res = await run.result;
    expect(res).toMatchObject({ exitCode: -1, signal: 'SIGKILL', forwarded: 'SIGINT', killed: true });
    expect(run.signals()).toBe('SIGINT\n');
  });

  it('regression: a CLI slower to handle the signal than the grace period\'s figure (a loaded machine) is not killed first', async () => {
    // The handler takes 300 ms of wall time against a 100 ms grace: with a
    // real timer the SIGKILL came first and the signal was never recorded.
    const run = start(
      `for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => { const end = Date.now() + 300; while (Date.now() < end); record(s); console.log('GOT-' + s); });`,
      100,
    );
    await run.waitFor('READY');
    run.emitter.emit('SIGINT');
    await run.waitFor('GOT-SIGINT');
    vi.advanceTimersByTime(100);
    const res = await run.result;
    expect(res).toMatchObject({ signal: 'SIGKILL', forwarded: 'SIGINT', killed: true });
    expect(run.signals()).toBe('SIGINT\n');
  });

  it('does not forward a second signal while the CLI is finishing, and ends the wait sooner', async () => {
    const run = start(
      `for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => { record(s); console.log('GOT-' + s); });`,
    );
    await run.waitFor('READY');
    run.emitter.emit('SIGINT');
    await run.waitFor('GOT-SIGINT');
    run.emitter.emit('SIGTERM');
    vi.advanceTimersByTime(LATE_SIGNAL_GRACE_MS);
    const res = await run.result;
    // Killed after the late grace (1 s on the clock), not the 60 s grace; SIGTERM never reached it.
    expect(res).toMatchObject({ signal: 'SIGKILL', forwarded: 'SIGINT', killed: true });
    expect(run.signals()).toBe('SIGINT\n');
  });

  it('runs a CLI to completion untouched when no signal arrives', async () => {
    const run = start(`process.on('SIGINT', () => record('SIGINT'));\nsetImmediate(() => process.exit(0));`);
    const res = await run.result;
    expect(res).toEqual({ exitCode: 0, signal: null, stderrBytes: 0, forwarded: undefined, killed: false });
    expect(run.signals()).toBe('');
  });

  it('rejects when the binary cannot be started, and still closes the stop-commands region', async () => {
    const chunks: string[] = [];
    await expect(
      runCli(join(tmpdir(), 'no-such-cli-binary'), [], tmpdir(), {}, { write: (c) => chunks.push(c.toString()) }),
    ).rejects.toThrow('could not be started');
    const marker = /::stop-commands::([0-9a-f]{32})\n/.exec(chunks.join(''))?.[1] ?? 'missing';
    expect(chunks.join('')).toContain(`::${marker}::`);
  });
});
