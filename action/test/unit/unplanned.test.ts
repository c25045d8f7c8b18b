import { describe, expect, it } from 'vitest';
import { parseInputs, type InputName } from '../../src/inputs.js';
import { Message } from '../../src/messages.js';
import { parseSourceRoots } from '../../src/pulls.js';
import { judgeRun, parseReport, type Report } from '../../src/report.js';
import {
  chooseRun,
  isUnder,
  judgeNoPlan,
  MAX_LISTED_FILES,
  mayReachAws,
  pullRequestFacts,
  secretsChanges,
  withoutSecrets,
  type ChangedFile,
  type FilesRead,
  type PullRequestFacts,
  type RunChoice,
  type RunFacts,
} from '../../src/unplanned.js';

const repo = (id: number | undefined, name: string | undefined) => ({ repo: { ...(id === undefined ? {} : { id }), ...(name === undefined ? {} : { full_name: name }) } });
const payload = (head: unknown, base: unknown, number: unknown = 7) => ({ pull_request: { number, head, base } });

describe('pullRequestFacts (the event payload)', () => {
  it.each<[string, string, unknown, PullRequestFacts | undefined]>([
    ['same repository by id', 'pull_request', payload(repo(1, 'acme/infra'), repo(1, 'acme/infra')), { number: 7, fork: false }],
    ['a fork by id, even with the same name', 'pull_request', payload(repo(2, 'acme/infra'), repo(1, 'acme/infra')), { number: 7, fork: true }],
    ['pull_request_target from a fork', 'pull_request_target', payload(repo(2, 'eve/infra'), repo(1, 'acme/infra')), { number: 7, fork: true }],
    ['same repository by name, case aside, without ids', 'pull_request', payload(repo(undefined, 'Acme/Infra'), repo(undefined, 'acme/infra')), { number: 7, fork: false }],
    ['a fork by name without ids', 'pull_request', payload(repo(undefined, 'eve/infra'), repo(undefined, 'acme/infra')), { number: 7, fork: true }],
    ['a deleted fork (head.repo null)', 'pull_request', payload({ repo: null }, repo(1, 'acme/infra')), { number: 7, fork: true }],
    ['a payload that does not say', 'pull_request', payload({}, {}), { number: 7, fork: true }],
    ['empty names do not make one repository', 'pull_request', payload(repo(undefined, ''), repo(undefined, '')), { number: 7, fork: true }],
    ['not a pull request event', 'push', payload(repo(1, 'a/b'), repo(1, 'a/b')), undefined],
    ['no pull request number', 'pull_request', payload(repo(1, 'a/b'), repo(1, 'a/b'), 0), undefined],
    ['a number that is no integer', 'pull_request', payload(repo(1, 'a/b'), repo(1, 'a/b'), '7'), undefined],
    ['no payload', 'pull_request', undefined, undefined],
  ])('%s', (_what, event, body, want) => {
    expect(pullRequestFacts(event, body)).toEqual(want);
  });
});

describe('mayReachAws', () => {
  const hosted = { RUNNER_ENVIRONMENT: 'github-hosted' };
  it.each<[string, NodeJS.ProcessEnv, boolean, boolean]>([
    ['a GitHub-hosted runner with nothing', hosted, false, false],
    ['static keys', { ...hosted, AWS_ACCESS_KEY_ID: 'AKIA' }, false, true],
    ['web identity', { ...hosted, AWS_WEB_IDENTITY_TOKEN_FILE: '/t' }, false, true],
    ['a profile', { ...hosted, AWS_PROFILE: 'p' }, false, true],
    ['container credentials', { ...hosted, AWS_CONTAINER_CREDENTIALS_FULL_URI: 'http://x' }, false, true],
    ['the OIDC token of id-token: write', { ...hosted, ACTIONS_ID_TOKEN_REQUEST_URL: 'https://x' }, false, true],
    ['a shared credentials or config file', hosted, true, true],
    ['an empty variable is none', { ...hosted, AWS_ACCESS_KEY_ID: '' }, false, false],
    ['the Region alone is none', { ...hosted, AWS_REGION: 'eu-west-1' }, false, false],
    ['a self-hosted runner (an instance role shows nowhere)', { RUNNER_ENVIRONMENT: 'self-hosted' }, false, true],
    ['a runner that does not say', {}, false, true],
  ])('%s', (_what, env, shared, want) => {
    expect(mayReachAws(env, shared)).toBe(want);
  });
});

describe('chooseRun', () => {
  const fork = { number: 9, fork: true };
  const own = { number: 9, fork: false };
  const facts = (over: Partial<RunFacts>): RunFacts => ({ mode: 'plan', forkPolicy: 'validate', pullRequest: undefined, awsReachable: true, ...over });
  it.each<[string, Partial<RunFacts>, RunChoice['kind'], Partial<RunChoice>]>([
    ['plan with credentials', {}, 'plan', {}],
    ['plan on the repository\'s own pull request', { pullRequest: own }, 'plan', {}],
    ['sync with credentials', { mode: 'sync' }, 'plan', {}],
    ['sync without credentials (the CLI fails it)', { mode: 'sync', awsReachable: false }, 'plan', {}],
    ['plan for a fork: validate instead', { pullRequest: fork, awsReachable: false }, 'no-plan', { reason: 'fork', pullRequest: fork }],
    ['plan for a fork, even with credentials (pull_request_target)', { pullRequest: fork }, 'no-plan', { reason: 'fork' }],
    ['plan for a fork with fork-pull-requests fail', { pullRequest: fork, forkPolicy: 'fail' }, 'refuse', { message: Message.forkRefused }],
    ['sync for a fork, whatever the policy', { mode: 'sync', pullRequest: fork }, 'refuse', { message: Message.invalid }],
    ['plan without credentials on an own pull request', { pullRequest: own, awsReachable: false }, 'no-plan', { reason: 'no-credentials', pullRequest: own }],
    ['plan without credentials outside a pull request', { awsReachable: false }, 'no-plan', { reason: 'no-credentials', pullRequest: undefined }],
    ['validate: with the job\'s keys', { mode: 'validate', awsReachable: false }, 'validate', { noDecrypt: false }],
    ['validate for a fork: --no-decrypt', { mode: 'validate', pullRequest: fork, forkPolicy: 'fail' }, 'validate', { noDecrypt: true }],
  ])('%s', (_what, over, kind, more) => {
    const got = chooseRun(facts(over));
    expect(got.kind).toBe(kind);
    expect(got).toMatchObject(more);
  });
});

describe('secretsChanges and isUnder', () => {
  it.each<[string, string, boolean]>([
    ['secrets/a.sops.json', 'secrets', true],
    ['secrets', 'secrets', true],
    ['secrets-old/a.sops.json', 'secrets', false],
    ['other/secrets/a', 'secrets', false],
    ['anything/at/all', '.', true],
    ['secrets/nested/x', 'secrets/nested', true],
    ['secrets/x', 'secrets/nested', false],
    ['./secrets/x', 'secrets/', true],
    ['../secrets/x', 'secrets', false],
  ])('%s under %s: %s', (path, root, want) => {
    expect(isUnder(path, root)).toBe(want);
  });

  it('lists changed, removed and renamed files under a root and the config file, each once, sorted', () => {
    const files: ChangedFile[] = [
      { filename: 'README.md' },
      { filename: 'secrets/b.sops.yaml' },
      { filename: 'docs/moved.sops.json', previousFilename: 'secrets/a.sops.json' },
      { filename: 'sops-aws-sync.yaml' },
      { filename: 'secrets/b.sops.yaml' },
    ];
    expect(secretsChanges(files, ['secrets'], 'sops-aws-sync.yaml')).toEqual(['secrets/a.sops.json', 'secrets/b.sops.yaml', 'sops-aws-sync.yaml']);
    expect(secretsChanges(files, ['other'], '')).toEqual([]);
    expect(secretsChanges([{ filename: 'x/./../sops-aws-sync.yaml' }], ['other'], './sops-aws-sync.yaml')).toEqual(['x/./../sops-aws-sync.yaml']);
  });

  // The GitLab component compared the config-file input with Git's names as
  // strings (./ci/sync.yaml never matched ci/sync.yaml); the Action compares
  // clean paths (main.ts's repositoryPath, then cleanRel): every spelling of
  // the one file matches the name GitHub lists, and a neighbour does not.
  it.each(['ci/sync.yaml', './ci/sync.yaml', 'ci//sync.yaml', 'ci/./sync.yaml', 'ci/x/../sync.yaml', 'ci/sync.yaml/'])(
    'finds the config file ci/sync.yaml given as %s',
    (configFile) => {
      const files: ChangedFile[] = [{ filename: 'ci/sync.yaml' }, { filename: 'ci/sync.yaml.bak' }, { filename: 'README.md' }];
      expect(secretsChanges(files, ['secrets'], configFile)).toEqual(['ci/sync.yaml']);
    },
  );
});

describe('judgeNoPlan: never passes as if a plan had been reviewed', () => {
  const pr = { number: 12, fork: true };
  const listed = (...names: string[]): FilesRead => ({ kind: 'listed', files: names.map((filename) => ({ filename })) });
  it.each<[string, PullRequestFacts | undefined, string[] | undefined, string, FilesRead | undefined, string]>([
    ['a pull request that changes no secret passes', pr, ['secrets'], '', listed('README.md', 'src/x.go'), 'pass'],
    ['a pull request that changes a document fails', pr, ['secrets'], '', listed('README.md', 'secrets/db.sops.json'), Message.unplannedChange],
    ['a change of the config file fails', pr, ['secrets'], 'sops-aws-sync.yaml', listed('sops-aws-sync.yaml'), Message.unplannedChange],
    ['a change under any scope\'s root fails', pr, ['secrets/prod', 'secrets/staging'], '', listed('secrets/staging/a.sops.env'), Message.unplannedChange],
    ['the whole repository as root: any change fails', pr, ['.'], '', listed('README.md'), Message.unplannedChange],
    ['a pull request without files passes', pr, ['secrets'], '', listed(), 'pass'],
    ['files that cannot be listed fail', pr, ['secrets'], '', { kind: 'failed', reason: 'HTTP 403' }, Message.unplannedChange],
    ['files not listed fail', pr, ['secrets'], '', undefined, Message.unplannedChange],
    ['no source roots from the CLI fail', pr, undefined, '', listed('README.md'), Message.unplannedChange],
    ['an empty list of roots fails', pr, [], '', listed('README.md'), Message.unplannedChange],
    ['outside a pull request it fails', undefined, ['secrets'], '', undefined, Message.noCredentials],
  ])('%s', (_what, p, roots, config, files, want) => {
    const got = judgeNoPlan('fork', p, roots, config, files);
    if (want === 'pass') expect(got.kind).toBe('pass');
    else expect(got).toMatchObject({ kind: 'fail', message: want });
  });

  it('a listing of 3000 files may be cut: fails although none of them is a secret', () => {
    const many = Array.from({ length: MAX_LISTED_FILES }, (_, i) => ({ filename: `src/${i}.go` }));
    expect(judgeNoPlan('fork', pr, ['secrets'], '', { kind: 'listed', files: many })).toMatchObject({ kind: 'fail', message: Message.unplannedChange });
    expect(judgeNoPlan('fork', pr, ['secrets'], '', { kind: 'listed', files: many.slice(1) }).kind).toBe('pass');
  });

  it('names neither a changed path nor a value in what it says', () => {
    const got = judgeNoPlan('fork', pr, ['secrets'], '', listed('secrets/CANARY-name.sops.json'));
    expect(got.detail).not.toContain('CANARY');
    expect(got.detail).toContain('from a branch');
  });
});

describe('withoutSecrets', () => {
  it('drops every AWS credential and SOPS key variable, keeps the Region and the CLI settings', () => {
    const env = {
      PATH: '/bin',
      HOME: '/h',
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIA',
      AWS_SECRET_ACCESS_KEY: 's',
      AWS_SESSION_TOKEN: 't',
      AWS_WEB_IDENTITY_TOKEN_FILE: '/w',
      AWS_ROLE_ARN: 'arn',
      AWS_PROFILE: 'p',
      aws_access_key_id: 'lower',
      SOPS_AGE_KEY: 'AGE-SECRET-KEY-1',
      SOPS_AGE_KEY_FILE: '/k',
      SOPS_AGE_SSH_PRIVATE_KEY_FILE: '/s',
      SOPS_AWS_SYNC_KEY_SERVICES: 'age',
      VAULT_TOKEN: 'v',
      GOOGLE_APPLICATION_CREDENTIALS: '/g',
      AZURE_CLIENT_SECRET: 'a',
      GNUPGHOME: '/gpg',
    };
    expect(withoutSecrets(env)).toEqual({
      PATH: '/bin',
      HOME: '/h',
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
      SOPS_AWS_SYNC_KEY_SERVICES: 'age',
    });
  });
});

describe('parseSourceRoots (validate --source-roots-file)', () => {
  const doc = (over: Record<string, unknown> = {}) =>
    JSON.stringify({ schema_version: 'sops-aws-sync/source-roots/v1', scopes: [{ name: 'default', source_root: 'secrets' }], ...over });
  it.each<[string, string, string[] | undefined]>([
    ['the CLI\'s file', doc(), ['secrets']],
    ['several scopes', doc({ scopes: [{ name: 'a', source_root: 'x' }, { name: 'b', source_root: '.' }] }), ['x', '.']],
    ['another schema', doc({ schema_version: 'sops-aws-sync/source-roots/v2' }), undefined],
    ['an extra key', doc({ extra: 1 }), undefined],
    ['no scope', doc({ scopes: [] }), undefined],
    ['a scope with an extra key', doc({ scopes: [{ name: 'a', source_root: 'x', y: 1 }] }), undefined],
    ['an empty root', doc({ scopes: [{ name: 'a', source_root: '' }] }), undefined],
    ['not JSON', '{', undefined],
  ])('%s', (_what, text, want) => {
    expect(parseSourceRoots(text)).toEqual(want);
  });
});

describe('mode validate: input and cross-check', () => {
  const read = (over: Partial<Record<InputName, string>>) => (n: InputName) =>
    ({ 'secret-prefix': 'p', 'cli-version': '1.2.3', 'github-token': 't', ...over })[n] ?? '';
  const env = { GITHUB_SHA: 'a'.repeat(40), GITHUB_REPOSITORY: 'acme/infra' };

  it('accepts mode validate and fork-pull-requests validate or fail (default validate)', () => {
    expect(parseInputs(read({ mode: 'validate' }), env)).toMatchObject({ mode: 'validate', forkPullRequests: 'validate' });
    expect(parseInputs(read({ 'fork-pull-requests': 'fail' }), env).forkPullRequests).toBe('fail');
    expect(() => parseInputs(read({ 'fork-pull-requests': 'plan' }), env)).toThrow(Message.invalid);
    expect(() => parseInputs(read({ mode: 'validate', 'drift-issue': 'true' }), env)).toThrow(Message.invalid);
  });

  const report = (over: Record<string, unknown> = {}, counts: Record<string, number> = {}): Report =>
    parseReport(
      JSON.stringify({
        schema_version: 'sops-aws-sync/report/v1',
        tool_version: '1.2.3',
        git_revision: 'b'.repeat(40),
        status: 'converged',
        counts: { create: 0, update: 0, restore: 0, schedule_delete: 0, unchanged: 0, conflicts: 0, ...counts },
        verification: 'not-run',
        duration_ms: 5,
        ...over,
      }),
    );
  const end = (exitCode: number) => ({ exitCode, signal: null, forwarded: undefined, killed: false });
  const ctx = { mode: 'validate', detailedExitCode: false } as const;
  it.each<[string, Report, number, 'publish' | 'skew', string | undefined]>([
    ['passed: converged, nothing counted, exit 0', report(), 0, 'publish', undefined],
    ['invalid, exit 3', report({ status: 'invalid' }), 3, 'publish', Message.invalid],
    ['a validate that reports drift is skew', report({ status: 'drift' }), 0, 'skew', undefined],
    ['a validate that counts secrets is skew', report({}, { unchanged: 2 }), 0, 'skew', undefined],
    ['a validate that verified is skew', report({ verification: 'converged' }), 0, 'skew', undefined],
  ])('%s', (_what, r, code, kind, failure) => {
    const v = judgeRun({ kind: 'valid', report: r }, end(code), '1.2.3', ctx);
    if (kind === 'skew') expect(v).toMatchObject({ kind: 'fail', message: Message.skew });
    else expect(v).toEqual({ kind: 'publish', report: r, failure });
  });
});
