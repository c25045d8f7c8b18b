import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseChanges, ChangesError } from '../../src/changes.js';
import { cliArgs } from '../../src/cli.js';
import { parseInputs, type InputName } from '../../src/inputs.js';
import { ActionFailure } from '../../src/messages.js';

// The CLI's own golden file (internal/changes/testdata): the Action reads
// exactly what the CLI writes.
const golden = readFileSync(join(__dirname, '../../../internal/changes/testdata/changes.golden.json'), 'utf8');

function inputs(over: Partial<Record<InputName, string>> = {}) {
  const all: Partial<Record<InputName, string>> = { 'secret-prefix': 'apps/prod', 'cli-version': '1.2.3', 'github-token': 't', ...over };
  return parseInputs((n) => all[n] ?? '', { GITHUB_SHA: 'f'.repeat(40), GITHUB_REPOSITORY: 'acme/infra' });
}

describe('parseChanges', () => {
  it("reads the CLI's golden changes file: changed is its changes array, state-digests its converged scopes", () => {
    const doc = JSON.parse(golden) as { changes: unknown[]; scopes: { name: string; state_digest: string }[] };
    const out = parseChanges(golden);
    expect(JSON.parse(out.changed)).toEqual(doc.changes);
    expect(JSON.parse(out.stateDigests)).toEqual(Object.fromEntries(doc.scopes.map((s) => [s.name, s.state_digest])));
  });

  // Regression: a sync of a parameter-store scope that created, updated or
  // deleted a parameter wrote a changes file whose parameter ARNs this
  // check refused (it knew only Secrets Manager's form), so changes: true
  // failed exactly when a redeploy list was needed.
  it("reads a parameter-store scope's changes: parameter ARNs and their versions (SPEC §16)", () => {
    const ps = golden
      .replace('arn:aws:secretsmanager:eu-west-1:111111111111:secret:prod/app/api-Zx12Yw', 'arn:aws:ssm:eu-west-1:111111111111:parameter/prod/app/api')
      .replace('"version_id": "3f6c2a1e9b8d4c7fa0e1d2c3b4a59687"', '"version_id": "1"');
    const out = JSON.parse(parseChanges(ps).changed) as { arn: string; version_id: string }[];
    expect(out[0]).toMatchObject({ arn: 'arn:aws:ssm:eu-west-1:111111111111:parameter/prod/app/api', version_id: '1' });
  });

  // Regression: a Parameter Store sync stopped after a create (PutParameter
  // answers no ARN) and before verification observed it wrote no changes
  // file; the CLI now writes the change with an empty arn in a scope that
  // did not converge, and the Action reads it.
  it('reads a change without its arn in a scope that did not converge, and refuses one in a converged scope', () => {
    const stopped = golden
      .replace('"arn": "arn:aws:secretsmanager:eu-west-1:111111111111:secret:prod/app/api-Zx12Yw"', '"arn": ""')
      .replace(/("name": "prod",\n\s*"region": "eu-west-1",\n\s*"status": )"converged",\n(\s*)"state_digest": "sha256:a+b[ab]*"/, '$1"interrupted",\n$2"state_digest": ""');
    expect(stopped).toContain('"status": "interrupted"');
    const out = JSON.parse(parseChanges(stopped).changed) as { arn: string; name: string }[];
    expect(out[0]).toMatchObject({ name: 'prod/app/api', arn: '' });
    const converged = golden.replace('"arn": "arn:aws:secretsmanager:eu-west-1:111111111111:secret:prod/app/api-Zx12Yw"', '"arn": ""');
    expect(() => parseChanges(converged)).toThrow(ChangesError);
  });

  it.each([
    ['not JSON', '{'],
    ['another schema', golden.replace('changes/v1', 'changes/v2')],
    ['an extra key', golden.replace('"status"', '"value": "x", "status"')],
    ['a change without its arn', golden.replace(/"arn": "[^"]*",\n/, '')],
    ['an action that is no operation', golden.replace('"action": "create"', '"action": "unchanged"')],
    ['an ARN of another service', golden.replace('arn:aws:secretsmanager:eu-west-1:111111111111:secret:prod/app/api', 'arn:aws:s3:eu-west-1:111111111111:bucket/x')],
    ['a secret ARN in the form of another service', golden.replace('arn:aws:secretsmanager:eu-west-1:111111111111:secret:prod/app/api', 'arn:aws:ssm:eu-west-1:111111111111:secret:prod/app/api')],
    ['a digest of another form', golden.replace(/sha256:ab+/, 'md5:00')],
  ])('refuses %s without quoting the file', (_name, text) => {
    let err: unknown;
    try {
      parseChanges(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ChangesError);
    expect((err as Error).message).not.toContain('prod/app');
  });
});

describe('input changes', () => {
  it('passes --changes-file only for sync with the input', () => {
    expect(cliArgs(inputs({ mode: 'sync', changes: 'true' }), '/ws', '/r.json', '/p.json', '/c.json')).toContain('--changes-file=/c.json');
    expect(cliArgs(inputs({ mode: 'sync' }), '/ws', '/r.json', '/p.json', '/c.json').join(' ')).not.toContain('--changes-file');
  });

  it('is refused with mode plan (a plan changes nothing)', () => {
    let err: unknown;
    try {
      inputs({ mode: 'plan', changes: 'true' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ActionFailure);
    expect((err as ActionFailure).reason).toMatch(/only for mode sync/);
    expect(inputs({ mode: 'plan', changes: 'false' }).changes).toBe(false);
  });
});
