import { describe, expect, it } from 'vitest';
import { envInputReader, isExactSemver, isPositiveGoDuration, parseInputs, type InputName } from '../../src/inputs.js';
import { ActionFailure, Message } from '../../src/messages.js';

const base: Partial<Record<InputName, string>> = {
  'secret-prefix': 'apps/prod',
  'cli-version': '1.2.3',
  'github-token': 'ghs_example',
};
const env = { GITHUB_SHA: 'a'.repeat(40), GITHUB_REPOSITORY: 'acme/infra' };

function parse(over: Partial<Record<InputName, string>> = {}, e: NodeJS.ProcessEnv = env) {
  const all = { ...base, ...over };
  return parseInputs((n) => all[n] ?? '', e);
}

function rejection(over: Partial<Record<InputName, string>>, e: NodeJS.ProcessEnv = env): ActionFailure {
  try {
    parse(over, e);
  } catch (err) {
    expect(err).toBeInstanceOf(ActionFailure);
    return err as ActionFailure;
  }
  throw new Error('expected a rejection');
}

describe('parseInputs', () => {
  it('applies defaults: plan, workflow SHA and repository, CLI defaults left empty', () => {
    const i = parse();
    expect(i).toMatchObject({
      mode: 'plan',
      failOnDrift: false,
      revision: 'a'.repeat(40),
      repositoryId: 'acme/infra',
      sourceRoot: '',
      recoveryWindowDays: undefined,
      runTimeout: '',
      allowEmpty: false,
      showResourceNames: false,
    });
  });

  it('keeps explicit values', () => {
    const i = parse({
      mode: 'sync',
      'fail-on-drift': 'TRUE',
      revision: 'main',
      'repository-id': 'o/r',
      'recovery-window-days': '7',
      'run-timeout': '1m30s',
      'operation-timeout': '0.5s',
      'verification-timeout': '2m',
      'allow-empty': 'True',
      'show-resource-names': 'false',
    });
    expect(i).toMatchObject({
      mode: 'sync',
      failOnDrift: true,
      revision: 'main',
      repositoryId: 'o/r',
      recoveryWindowDays: 7,
      runTimeout: '1m30s',
      operationTimeout: '0.5s',
      verificationTimeout: '2m',
      allowEmpty: true,
    });
  });

  it.each([
    [{ mode: 'apply' }, 'mode'],
    [{ 'secret-prefix': '' }, 'secret-prefix'],
    [{ 'fail-on-drift': 'yes' }, 'fail-on-drift'],
    [{ 'allow-empty': '1' }, 'allow-empty'],
    [{ 'show-resource-names': 'on' }, 'show-resource-names'],
    [{ 'recovery-window-days': '6' }, 'recovery-window-days'],
    [{ 'recovery-window-days': '31' }, 'recovery-window-days'],
    [{ 'recovery-window-days': '7.5' }, 'recovery-window-days'],
    [{ 'recovery-window-days': '-10' }, 'recovery-window-days'],
    [{ 'run-timeout': '15' }, 'run-timeout'],
    [{ 'run-timeout': '0h0m' }, 'run-timeout'],
    [{ 'operation-timeout': '-5s' }, 'operation-timeout'],
    [{ 'verification-timeout': '2 minutes' }, 'verification-timeout'],
    [{ 'cli-version': 'v1.2.3' }, 'cli-version'],
    [{ 'cli-version': '' }, 'cli-version'],
    [{ 'github-token': '' }, 'github-token'],
    [{ 'secret-prefix': 'a\nb' }, 'secret-prefix'],
    [{ 'config-file': 'a\nb' }, 'config-file'],
    [{ scopes: 'prod-eu' }, 'scopes'],
    [{ 'config-file': 'c.yaml', scopes: 'Prod' }, 'scopes'],
    [{ 'config-file': 'c.yaml', scopes: 'prod eu' }, 'scopes'],
    [{ 'config-file': 'c.yaml', scopes: 'a'.repeat(33) }, 'scopes'],
    [{ 'config-file': 'c.yaml', scopes: 'prod-eu,staging,prod-eu' }, 'scopes'],
  ])('rejects %o naming the input, never its value', (over, name) => {
    const f = rejection(over);
    expect(f.message).toBe(Message.invalid);
    expect(f.reason).toContain(name);
    const value = Object.values(over)[0];
    if (value !== undefined && value.length > 1) expect(f.reason).not.toContain(value);
  });

  it('reads the operator controls: deletion limit, KMS key, description, multi-line tags', () => {
    const i = parse({
      'max-deletions': '0',
      'kms-key-id': 'alias/app-secrets',
      description: 'from acme/infra',
      tags: 'team=platform\r\n\n  env=prod  \ncost=a=b\n',
    });
    expect(i).toMatchObject({
      maxDeletions: 0,
      kmsKeyId: 'alias/app-secrets',
      description: 'from acme/infra',
      tags: ['team=platform', 'env=prod', 'cost=a=b'],
    });
    expect(parse()).toMatchObject({ maxDeletions: undefined, kmsKeyId: '', description: '', tags: [] });
  });

  it.each([
    [{ 'max-deletions': '-1' }, 'max-deletions'],
    [{ 'max-deletions': '2.5' }, 'max-deletions'],
    [{ 'max-deletions': 'many' }, 'max-deletions'],
    [{ tags: 'team=platform\nCANARY-no-equals' }, 'tags'],
    [{ tags: '=CANARY-no-key' }, 'tags'],
    [{ 'kms-key-id': 'alias/a\nalias/CANARY' }, 'kms-key-id'],
    [{ description: 'two\nCANARY-lines' }, 'description'],
    [{ target: 'CANARY-ssm' }, 'target'],
    [{ 'parameter-tier': 'CANARY-intelligent' }, 'parameter-tier'],
  ])('rejects %o naming the input, never its value', (over, name) => {
    const f = rejection(over);
    expect(f.message).toBe(Message.invalid);
    expect(f.reason).toContain(name);
    expect(f.reason).not.toContain('CANARY');
  });

  it('reads require-reviewed-plan: false by default, true for sync, refused in plan mode and when not a boolean', () => {
    expect(parse({ mode: 'sync' }).requireReviewedPlan).toBe(false);
    expect(parse({ mode: 'sync', 'require-reviewed-plan': 'true' }).requireReviewedPlan).toBe(true);
    expect(parse({ mode: 'sync', 'require-reviewed-plan': 'false' }).requireReviewedPlan).toBe(false);
    expect(parse({ mode: 'plan', 'require-reviewed-plan': 'false' }).requireReviewedPlan).toBe(false);
    for (const over of [{ mode: 'plan', 'require-reviewed-plan': 'true' }, { mode: 'sync', 'require-reviewed-plan': 'yes' }]) {
      const f = rejection(over);
      expect(f.message).toBe(Message.invalid);
      expect(f.reason).toContain('require-reviewed-plan');
    }
  });

  it('reads drift-issue: off by default, true means the default label, anything else is the label', () => {
    expect(parse().driftIssue).toBeUndefined();
    expect(parse({ 'drift-issue': 'false' }).driftIssue).toBeUndefined();
    expect(parse({ 'drift-issue': 'FALSE' }).driftIssue).toBeUndefined();
    expect(parse({ 'drift-issue': 'true' }).driftIssue).toBe('sops-aws-sync-drift');
    expect(parse({ 'drift-issue': 'True' }).driftIssue).toBe('sops-aws-sync-drift');
    expect(parse({ 'drift-issue': 'drift: prod' }).driftIssue).toBe('drift: prod');
    expect(parse({ 'drift-issue': 'x'.repeat(50) }).driftIssue).toBe('x'.repeat(50));
    expect(parse({ 'drift-issue': 'true' }, { ...env, GITHUB_EVENT_NAME: 'schedule' }).driftIssue).toBe('sops-aws-sync-drift');
    expect(parse({ 'drift-issue': 'true' }, { ...env, GITHUB_EVENT_NAME: 'workflow_dispatch' }).driftIssue).toBe('sops-aws-sync-drift');
  });

  it.each([
    [{ 'drift-issue': 'CANARY,other' }, env, 'commas'],
    [{ 'drift-issue': `CANARY${'x'.repeat(45)}` }, env, '50 characters'],
    [{ 'drift-issue': 'CANARY\tlabel' }, env, 'label name'],
    [{ 'drift-issue': 'true', mode: 'sync' }, env, 'only for mode plan'],
    [{ 'drift-issue': 'true' }, { ...env, GITHUB_EVENT_NAME: 'pull_request' }, 'not for pull_request events'],
    [{ 'drift-issue': 'true' }, { ...env, GITHUB_EVENT_NAME: 'pull_request_target' }, 'not for pull_request events'],
    [{ 'drift-issue': 'true', 'repository-id': 'o/r' }, { GITHUB_SHA: 'a'.repeat(40) }, 'GITHUB_REPOSITORY'],
  ])('rejects drift-issue %o (%o) naming the rule, never the value', (over, e, rule) => {
    const f = rejection(over, e);
    expect(f.message).toBe(Message.invalid);
    expect(f.reason).toContain('drift-issue');
    expect(f.reason).toContain(rule);
    expect(f.reason).not.toContain('CANARY');
  });

  it('reads aws-account-id: empty by default, else exactly 12 digits, never passed on as a flag', () => {
    expect(parse().awsAccountId).toBe('');
    expect(parse({ 'aws-account-id': '012345678901' }).awsAccountId).toBe('012345678901');
    for (const bad of ['12345678901', '1234567890123', 'arn:aws:iam::123456789012:root', '12345678901a']) {
      const e = rejection({ 'aws-account-id': bad });
      expect(e.message).toBe(Message.invalid);
      expect(e.reason).toBe('Input aws-account-id must be a 12-digit AWS account id.');
    }
  });

  it('requires a revision and repository when the workflow provides none', () => {
    expect(rejection({}, { GITHUB_REPOSITORY: 'o/r' }).reason).toContain('revision');
    expect(rejection({}, { GITHUB_SHA: 'a'.repeat(40) }).reason).toContain('repository-id');
  });
});

describe('envInputReader', () => {
  it('reads INPUT_ names upper-cased with dashes kept, trimmed', () => {
    const read = envInputReader({ 'INPUT_SECRET-PREFIX': '  apps/prod \n', INPUT_MODE: 'sync' });
    expect(read('secret-prefix')).toBe('apps/prod');
    expect(read('mode')).toBe('sync');
    expect(read('aws-region')).toBe('');
  });
});

describe('isExactSemver', () => {
  it.each(['0.1.0', '1.2.3', '10.20.30', '1.2.3-rc.1', '1.0.0-alpha-a.b-c', '1.2.3+build.5', '0.0.0-snapshot.02bc97b'])(
    'accepts %s',
    (v) => {
      expect(isExactSemver(v)).toBe(true);
    },
  );
  it.each(['v1.2.3', '1.2', '1', '^1.2.3', '~1.2.3', '1.2.x', 'latest', '01.2.3', '1.02.3', '1.2.3-', '1.2.3-01', ' 1.2.3', '>=1.0.0'])(
    'rejects %s',
    (v) => {
      expect(isExactSemver(v)).toBe(false);
    },
  );
});

describe('isPositiveGoDuration', () => {
  // The CLI's verdicts on more samples are in wire.test.ts (internal/vocab/testdata/wire.golden.json).
  it.each(['1s', '10m', '1h30m', '1.5h', '.5s', '300ms', '1us', '2µs', '1m0s', '+1s'])('accepts %s', (v) => {
    expect(isPositiveGoDuration(v)).toBe(true);
  });
  it.each(['', '0', '0s', '0m0s', '10', 's', '1d', '-1s', '+0s', '1 s', '1s ', 'ms', '2562048h'])('rejects %s', (v) => {
    expect(isPositiveGoDuration(v)).toBe(false);
  });
});

describe('config-file and scopes', () => {
  it('makes secret-prefix optional and leaves repository-id to the file', () => {
    const i = parse({ 'secret-prefix': '', 'config-file': 'deploy/sops-aws-sync.yaml' });
    expect(i).toMatchObject({ configFile: 'deploy/sops-aws-sync.yaml', scopes: [], secretPrefix: '', repositoryId: '' });
    expect(parse({ 'config-file': 'c.yaml', 'repository-id': 'o/r' }).repositoryId).toBe('o/r');
    expect(parse()).toMatchObject({ configFile: '', scopes: [], repositoryId: 'acme/infra' });
    expect(rejection({ 'secret-prefix': '' }).reason).toContain('config-file');
  });

  it('reads scope names separated by commas or lines, in order', () => {
    expect(parse({ 'config-file': 'c.yaml', scopes: ' prod-eu, staging\n\ndr-2 ,' }).scopes).toEqual(['prod-eu', 'staging', 'dr-2']);
    expect(parse({ 'config-file': 'c.yaml', scopes: ' , ' }).scopes).toEqual([]);
  });
});
