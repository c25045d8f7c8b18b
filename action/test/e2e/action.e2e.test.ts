/**
 * End-to-end tests of the bundled Action (action/dist/index.js) run as the
 * runner runs it. Two suites:
 * - a stand-in CLI release (a script with a genuine checksum) drives every
 *   exit code / report combination, the install and verification faults and
 *   the tool-cache re-verification;
 * - the real release made by `make release-snapshot`, served with its real
 *   checksums.txt, runs against the secretsmanager-emulator binary on
 *   documents encrypted by the real sops CLI (converged, drift with and
 *   without fail-on-drift, conflict, invalid, a sync cancelled by SIGINT,
 *   tampered binary); the stand-in also plays a CLI that ignores the signal.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTIONS_BOT,
  Emulator,
  findSops,
  freshDir,
  hostPlatform,
  isFile,
  makeFixture,
  makeStandInRelease,
  must,
  pathWith,
  pullRequestPayload,
  ReleaseServer,
  repoRoot,
  reportJson,
  run,
  Runner,
  writeStandInGh,
  type ActionRun,
  type Fixture,
  type StoredIssue,
} from './harness.js';
import { identityOf, legacyMarkerOf, markerOf } from '../fixtures/identity.js';
import { planMarkdown } from '../fixtures/rendering.js';

const MSG = {
  drift: 'sops-aws-sync plan detected drift',
  invalid: 'sops-aws-sync rejected the Action configuration or desired state',
  conflict: 'sops-aws-sync found an ownership or observed-state conflict',
  apply: 'sops-aws-sync apply did not complete safely',
  verification: 'sops-aws-sync verification did not converge',
  interrupted: 'sops-aws-sync was interrupted',
  skew: 'CLI exit status and redacted report disagree',
  install: 'Exact CLI installation or verification failed',
  checksum: 'CLI binary checksum verification failed',
  stderr: 'sops-aws-sync wrote a diagnostic to stderr',
  planRender: 'sops-aws-sync could not render its plan file; the summary has no plan section',
  comment: 'sops-aws-sync could not post the plan comment on the pull request',
  driftIssue: 'sops-aws-sync could not update the drift issue',
};

/**
 * The comment marker of a scope, computed here independently of
 * src/identity.ts: source root secrets (the CLI default), region the job's
 * AWS_REGION ('' for the stand-in runs, which set none), no account.
 */
function planMarkerOf(repositoryId: string, prefix: string, region = ''): string {
  return markerOf('plan', identityOf({ repositoryId, secretPrefix: prefix, region, account: '' }));
}

const host = hostPlatform();
const TOKEN = `ghs_e2e${randomBytes(12).toString('hex')}`;
const STANDIN = '0.0.0-standin.1';
const UNATTESTED = '0.0.0-standin.2';
const REAL = '0.0.0-e2e.1';
const cliPresent =
  existsSync(join(repoRoot, 'cmd', 'sops-aws-sync', 'main.go')) &&
  existsSync(join(repoRoot, 'cmd', 'secretsmanager-emulator', 'main.go'));

let work: string;
let server: ReleaseServer;
let binDir: string;
let ghLog: string;
let standInArgs: string;
let standInEnv: string;
let standInAsset: string;
let runner: Runner;

/** Annotations the Action itself emitted: lines outside stop-commands regions. */
function annotations(stdout: string): string[] {
  const out: string[] = [];
  let stopToken: string | undefined;
  for (const line of stdout.split('\n')) {
    if (stopToken !== undefined) {
      if (line === `::${stopToken}::`) stopToken = undefined;
      continue;
    }
    const stop = /^::stop-commands::(.+)$/.exec(line);
    if (stop !== null) {
      stopToken = stop[1];
      continue;
    }
    if (/^::(error|warning)/.test(line)) out.push(line);
  }
  return out;
}

/** The token and the fixture's plaintext never reach the log, the outputs or the summary. */
function expectNoLeaks(r: ActionRun): void {
  const visible = r.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  for (const text of [visible, r.stderr, r.summary, JSON.stringify(r.outputs)]) {
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('CANARY-');
  }
}

/** The private directory under RUNNER_TEMP that holds the run's report. */
function reportDir(r: ActionRun): string {
  return (r.outputs['redacted-report-path'] ?? '').slice(r.runnerTemp.length + 1).split('/')[0] ?? '';
}

function expectFailure(r: ActionRun, message: string): void {
  expect(r.code).toBe(1);
  expect(annotations(r.stdout)).toContain(`::error::${message}`);
  expect(annotations(r.stdout).filter((l) => l.startsWith('::error'))).toHaveLength(1);
  expectNoLeaks(r);
}

function expectSuccess(r: ActionRun): void {
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(annotations(r.stdout).filter((l) => l.startsWith('::error'))).toEqual([]);
  expectNoLeaks(r);
}

function ghVerifyCalls(): Promise<string[]> {
  return readFile(ghLog, 'utf8').then(
    (t) => t.split('\n').filter((l) => l.startsWith('attestation verify /')),
    () => [],
  );
}

beforeAll(async () => {
  work = await freshDir('sops-aws-sync-action-e2e-');
  binDir = join(work, 'bin');
  ghLog = join(work, 'gh.log');
  standInArgs = join(work, 'standin.args');
  standInEnv = join(work, 'standin.env');
  await writeStandInGh(binDir);
  server = new ReleaseServer(join(work, 'attested.txt'), join(work, 'commits.txt'));
  await server.start();
  standInAsset = await makeStandInRelease(join(work, 'release-standin'), STANDIN, host.goos, host.goarch);
  await server.addRelease(`v${STANDIN}`, join(work, 'release-standin'), { withDigests: false });
  await makeStandInRelease(join(work, 'release-unattested'), UNATTESTED, host.goos, host.goarch);
  await server.addRelease(`v${UNATTESTED}`, join(work, 'release-unattested'), { attest: false });
  const home = join(work, 'home');
  await mkdir(home, { recursive: true });
  runner = new Runner(work, {
    PATH: pathWith(binDir),
    HOME: home,
    GITHUB_API_URL: server.base,
    GITHUB_REPOSITORY: 'acme/infra',
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_WORKSPACE: work,
    RUNNER_OS: host.runnerOs,
    RUNNER_ARCH: host.runnerArch,
    GH_STANDIN_LOG: ghLog,
    GH_STANDIN_ATTESTED: join(work, 'attested.txt'),
    GH_STANDIN_COMMITS: join(work, 'commits.txt'),
    STANDIN_ARGS: standInArgs,
    STANDIN_ENV: standInEnv,
  });
});

afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

describe('Action with a stand-in CLI release', () => {
  const inputs = (over: Record<string, string> = {}) => ({
    'secret-prefix': 'apps/prod',
    'cli-version': STANDIN,
    'github-token': TOKEN,
    ...over,
  });
  const standIn = (exit: number, report: string | undefined, extra: Record<string, string> = {}) => ({
    STANDIN_EXIT: String(exit),
    ...(report === undefined ? {} : { STANDIN_REPORT: report }),
    ...extra,
  });
  const rep = (over: Record<string, unknown> = {}, counts: Record<string, number> = {}) =>
    reportJson({ tool_version: STANDIN, ...over }, counts);

  it('fails with the skew message when the exit code and the report disagree', async () => {
    await rm(standInArgs, { force: true });
    const r = await runner.runAction({
      inputs: inputs(),
      env: standIn(4, rep({ status: 'converged' }), { STANDIN_STDERR: 'raw-diagnostic-text-from-cli' }),
    });
    expectFailure(r, MSG.skew);
    // stderr: one fixed warning, the text itself never forwarded.
    expect(annotations(r.stdout)).toContain(`::warning::${MSG.stderr}`);
    expect(r.stdout + r.stderr).not.toContain('raw-diagnostic-text-from-cli');
    // No report-derived output on disagreement; the report path is still given.
    expect(r.outputs.status).toBeUndefined();
    expect(r.outputs['redacted-report-path']).toMatch(/report\.json$/);
    // The CLI ran without a shell with JSON logs and a private report file.
    const args = (await readFile(standInArgs, 'utf8')).trim().split('\n');
    expect(args[0]).toBe('plan');
    expect(args).toContain('--log-format=json');
    expect(args).toContain('--secret-prefix=apps/prod');
    expect(args).toContain('--repository-id=acme/infra');
    expect(args).toContain(`--revision=${'f'.repeat(40)}`);
    const reportFile = args.find((a) => a.startsWith('--report-file='))?.slice('--report-file='.length) ?? '';
    expect(reportFile.startsWith(r.runnerTemp)).toBe(true);
    expect(reportFile).toBe(r.outputs['redacted-report-path']);
    expect((await stat(join(reportFile, '..'))).mode & 0o777).toBe(0o700);
    // The token is in no variable the CLI can see.
    const env = await readFile(standInEnv, 'utf8');
    expect(env).not.toContain(TOKEN);
    expect(env).not.toMatch(/^INPUT_/m);
  });

  it.each([
    ['conflict', 'plan', 4, { status: 'conflict' }, { conflicts: 1 }, MSG.conflict],
    ['invalid', 'sync', 3, { status: 'invalid' }, {}, MSG.invalid],
    ['apply-failed', 'sync', 5, { status: 'apply-failed' }, { create: 1 }, MSG.apply],
    ['observation-failed', 'plan', 5, { status: 'observation-failed' }, {}, MSG.apply],
    ['verification-failed', 'sync', 6, { status: 'verification-failed', verification: 'failed' }, { update: 1 }, MSG.verification],
    [
      'verification-inconclusive',
      'sync',
      6,
      { status: 'verification-inconclusive', verification: 'inconclusive' },
      { update: 1 },
      MSG.verification,
    ],
    ['interrupted', 'sync', 130, { status: 'interrupted' }, {}, MSG.interrupted],
  ] as const)('%s (%s, exit %i): fixed message and outputs', async (status, mode, exit, over, counts, message) => {
    const r = await runner.runAction({ inputs: inputs({ mode }), env: standIn(exit, rep(over, counts)) });
    expectFailure(r, message);
    expect(r.outputs.status).toBe(status);
    expect(r.outputs['cli-version']).toBe(STANDIN);
    expect(r.outputs['verification-status']).toBe('verification' in over ? over.verification : 'not-run');
    expect(r.outputs['conflict-count']).toBe(String('conflicts' in counts ? counts.conflicts : 0));
    expect(r.summary).toContain(`<td>${status}</td>`);
    expect(r.summary).toContain(message);
  });

  it('sync converged: exit 0, every output set, summary table', async () => {
    const r = await runner.runAction({
      inputs: inputs({ mode: 'sync' }),
      env: standIn(
        0,
        rep({ status: 'converged', verification: 'converged', git_revision: 'a'.repeat(40), duration_ms: 42 }, {
          create: 1,
          update: 2,
          restore: 3,
          schedule_delete: 4,
          unchanged: 5,
        }),
      ),
    });
    expectSuccess(r);
    expect(r.outputs).toEqual({
      status: 'converged',
      'cli-version': STANDIN,
      'git-revision': 'a'.repeat(40),
      'create-count': '1',
      'update-count': '2',
      'restore-count': '3',
      'scheduled-delete-count': '4',
      'unchanged-count': '5',
      'conflict-count': '0',
      'verification-status': 'converged',
      'redacted-report-path': join(r.runnerTemp, reportDir(r), 'report.json'),
      planned: 'true',
    });
    expect(reportDir(r)).toMatch(/^sops-aws-sync-/);
    expect(r.summary).toContain('sops-aws-sync sync');
    expect(r.summary).toContain('<td>Scheduled delete</td><td>4</td>');
    // The CLI's own output is in the log, but could not issue workflow commands.
    expect(r.stdout).toContain('"msg":"stand-in run"');
    expect(annotations(r.stdout)).toEqual([]);
  });

  it.each([
    ['an undocumented exit code', 1, rep({ status: 'invalid' })],
    ['a report with an extra key', 0, JSON.stringify({ ...JSON.parse(rep()), name: 'x' })],
    ['a report naming another CLI version', 0, rep({ tool_version: '9.9.9' })],
    ['no report after exit 0', 0, undefined],
    ['drift with exit 0 under fail-on-drift', 0, rep({ status: 'drift' }, { create: 1 })],
  ])('fails with the skew message on %s', async (_what, exit, report) => {
    const r = await runner.runAction({ inputs: inputs({ 'fail-on-drift': 'true' }), env: standIn(exit, report) });
    expectFailure(r, MSG.skew);
    expect(r.outputs.status).toBeUndefined();
  });

  describe('input changes (sync --changes-file)', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:apps/prod/db-AbCdEf';
    const digest = `sha256:${'ab'.repeat(32)}`;
    const changesJson = (changes: unknown[], status = 'converged', stateDigest = digest) =>
      JSON.stringify({
        schema_version: 'sops-aws-sync/changes/v1',
        tool_version: STANDIN,
        git_revision: '',
        status,
        changes,
        scopes: [{ name: 'default', region: 'eu-west-1', status, state_digest: stateDigest }],
      });
    const created = { scope: 'default', action: 'create', name: 'apps/prod/db', arn, version_id: 'v-marker-0123456789abcdef0123456789' };
    const updated = { scope: 'default', action: 'update', name: 'apps/prod/api', arn: arn.replace('db-AbCdEf', 'api-MnOpQr'), version_id: 'v-marker-update-0123456789abcdef01' };
    const deleted = { scope: 'default', action: 'schedule-delete', name: 'apps/prod/old', arn: arn.replace('db-AbCdEf', 'old-GhIjKl'), version_id: '' };

    it('create, update and delete: passes --changes-file in the private directory and sets changed and state-digests, printing none of it', async () => {
      const r = await runner.runAction({
        inputs: inputs({ mode: 'sync', changes: 'true' }),
        env: standIn(0, rep({ status: 'converged', verification: 'converged' }, { create: 1, update: 1, schedule_delete: 1 }), {
          STANDIN_CHANGES: changesJson([created, updated, deleted]),
        }),
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const args = (await readFile(standInArgs, 'utf8')).trim().split('\n');
      const file = args.find((a) => a.startsWith('--changes-file='))?.slice('--changes-file='.length) ?? '';
      expect(file.startsWith(r.runnerTemp)).toBe(true);
      expect(JSON.parse(r.outputs.changed ?? '')).toEqual([created, updated, deleted]);
      expect(JSON.parse(r.outputs['state-digests'] ?? '')).toEqual({ default: digest });
      for (const secret of [arn, updated.arn, deleted.arn, 'apps/prod/db', 'apps/prod/api', 'apps/prod/old', 'v-marker', digest]) {
        expect(r.stdout + r.stderr, 'never in the log').not.toContain(secret);
        expect(r.summary, 'never in the job summary').not.toContain(secret);
      }
    });

    it('a converged no-op run: changed is [] and the digest is still given', async () => {
      const r = await runner.runAction({
        inputs: inputs({ mode: 'sync', changes: 'true' }),
        env: standIn(0, rep({ status: 'converged', verification: 'converged' }, { unchanged: 2 }), { STANDIN_CHANGES: changesJson([]) }),
      });
      expect(r.code, r.stdout).toBe(0);
      expect(r.outputs.changed).toBe('[]');
      expect(JSON.parse(r.outputs['state-digests'] ?? '')).toEqual({ default: digest });
    });

    it('a failed sync still publishes what took effect; a scope that did not converge has no digest', async () => {
      const r = await runner.runAction({
        inputs: inputs({ mode: 'sync', changes: 'true' }),
        env: standIn(5, rep({ status: 'apply-failed' }, { create: 1 }), { STANDIN_CHANGES: changesJson([created], 'apply-failed', '') }),
      });
      expectFailure(r, MSG.apply);
      expect(JSON.parse(r.outputs.changed ?? '')).toEqual([created]);
      expect(r.outputs['state-digests']).toBe('{}');
    });

    it('without the input: no --changes-file and no outputs', async () => {
      const r = await runner.runAction({
        inputs: inputs({ mode: 'sync' }),
        env: standIn(0, rep({ status: 'converged', verification: 'converged' }), { STANDIN_CHANGES: changesJson([created]) }),
      });
      expect(r.code).toBe(0);
      expect(await readFile(standInArgs, 'utf8')).not.toContain('--changes-file');
      expect(r.outputs.changed).toBeUndefined();
      expect(r.outputs['state-digests']).toBeUndefined();
    });

    it('asked for but not written after a successful run: the step fails (a redeploy would miss what changed)', async () => {
      const r = await runner.runAction({
        inputs: inputs({ mode: 'sync', changes: 'true' }),
        env: standIn(0, rep({ status: 'converged', verification: 'converged' })),
      });
      expectFailure(r, MSG.skew);
      expect(annotations(r.stdout)).toContain('::warning::sops-aws-sync left no valid changes file; the outputs changed and state-digests are not set');
      expect(r.outputs.changed).toBeUndefined();
    });
  });

  it('treats a missing report after exit 3 as the documented report-write failure', async () => {
    const r = await runner.runAction({ inputs: inputs(), env: standIn(3, undefined) });
    expectFailure(r, MSG.invalid);
  });

  it('rejects an invalid input before any network call or install', async () => {
    const before = server.requests.length;
    const r = await runner.runAction({ inputs: inputs({ 'recovery-window-days': '3' }) });
    expectFailure(r, MSG.invalid);
    expect(r.stdout).toContain('recovery-window-days');
    expect(server.requests.length).toBe(before);
  });

  it('sends the token only as a bearer credential to the API host', async () => {
    const before = server.requests.length;
    const r = await runner.runAction({ inputs: inputs(), env: standIn(0, rep()) });
    expectSuccess(r);
    const seen = server.requests.slice(before);
    expect(seen.map((q) => q.path)).toEqual(
      expect.arrayContaining([
        `/repos/sops-aws-sync/sops-aws-sync/releases/tags/v${STANDIN}`,
        `/repos/sops-aws-sync/sops-aws-sync/git/ref/tags/v${STANDIN}`,
        `/download/v${STANDIN}/checksums.txt`,
        `/download/v${STANDIN}/${standInAsset}`,
      ]),
    );
    for (const q of seen.filter((s) => s.path.startsWith('/repos/'))) expect(q.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('fails installation when no attestation covers the binary, and never runs it', async () => {
    await rm(standInArgs, { force: true });
    const r = await runner.runAction({ inputs: inputs({ 'cli-version': UNATTESTED }), env: standIn(0, rep()) });
    expectFailure(r, MSG.install);
    expect(await isFile(standInArgs)).toBe(false);
  });

  it('fails installation when gh lacks the flags the policy needs', async () => {
    const r = await runner.runAction({ inputs: inputs(), env: { GH_STANDIN_OLD: '1' } });
    expectFailure(r, MSG.install);
    expect(r.stdout).toContain('--source-digest');
  });

  it('fails installation for a version that has no release', async () => {
    const r = await runner.runAction({ inputs: inputs({ 'cli-version': '9.8.7' }) });
    expectFailure(r, MSG.install);
    expect(r.stdout).toContain('HTTP 404');
  });

  it('fails installation without the GitHub CLI', async () => {
    const r = await runner.runAction({
      inputs: inputs(),
      env: { PATH: (process.env.PATH ?? '').split(':').filter((d) => !existsSync(join(d, 'gh'))).join(':') },
    });
    expectFailure(r, MSG.install);
  });

  it('fails with the checksum message when the downloaded binary is tampered with', async () => {
    await rm(standInArgs, { force: true });
    server.tampered.add(standInAsset);
    try {
      const r = await runner.runAction({ inputs: inputs(), env: standIn(0, rep()) });
      expectFailure(r, MSG.checksum);
    } finally {
      server.tampered.delete(standInAsset);
    }
    expect(await isFile(standInArgs)).toBe(false);
  });

  it('re-verifies checksum and attestation on every tool-cache hit', async () => {
    const toolCache = join(work, 'shared-toolcache');
    const calls0 = (await ghVerifyCalls()).length;
    const first = await runner.runAction({ inputs: inputs(), env: standIn(0, rep()), toolCache });
    expectSuccess(first);
    expect(first.stdout).not.toContain('in the tool cache');
    const calls1 = (await ghVerifyCalls()).length;
    expect(calls1).toBe(calls0 + 1);

    const downloads = server.requests.filter((q) => q.path.endsWith(standInAsset)).length;
    const second = await runner.runAction({ inputs: inputs(), env: standIn(0, rep()), toolCache });
    expectSuccess(second);
    expect(second.stdout).toContain('in the tool cache');
    expect(server.requests.filter((q) => q.path.endsWith(standInAsset)).length).toBe(downloads);
    const calls = await ghVerifyCalls();
    expect(calls.length).toBe(calls1 + 1);
    expect(calls.at(-1)).toContain(toolCache);

    // A binary changed inside the cache is caught before it runs.
    const cached = join(toolCache, 'sops-aws-sync', STANDIN, host.runnerArch === 'X64' ? 'x64' : 'arm64', 'sops-aws-sync');
    await appendFile(cached, '\n# changed in the cache\n');
    await rm(standInArgs, { force: true });
    const third = await runner.runAction({ inputs: inputs(), env: standIn(0, rep()), toolCache });
    expectFailure(third, MSG.checksum);
    expect(await isFile(standInArgs)).toBe(false);
  });
});

describe('Action with a stand-in CLI release: plan summary and pull-request comment', () => {
  const PR_REPO = 'acme/infra';
  const PR_NUMBER = 17;
  // What a real plan file may hold but a view never shows: a value and a
  // key added out of band. The stand-in puts them in its plan file and its
  // log; the summary and the comment must carry only what `show` printed.
  const LEAK_VALUE = `LEAKVALUE-${randomBytes(6).toString('hex')}`;
  const LEAK_KEY = `oob-key-${randomBytes(6).toString('hex')}`;
  const planJson = JSON.stringify({
    schema_version: 'sops-aws-sync/plan/v1',
    git_revision: 'a'.repeat(40),
    names_shown: false,
    operations: [{ resource: 'resource-0001', action: 'update', reason: 'value-differs', keys: { added: 0, removed: 1, changed: 1 } }],
    summary: { create: 0, update: 1, restore: 0, schedule_delete: 0, unchanged: 0, conflicts: 0 },
    diagnostics: [],
    // Never in a real plan file: the canary the Action must not copy anywhere.
    stand_in_canary: [LEAK_VALUE, LEAK_KEY],
  });
  const markdown = (n: number, tag = 'one'): string =>
    planMarkdown(n, {
      commit: 'a'.repeat(40),
      tag,
      line: (i) => `  ~ resource-${String(i).padStart(4, '0')} update: ~1 +0 -1 (value differs)`,
    });
  const markdownFile = async (text: string): Promise<string> => {
    const f = join(work, `show-${randomUUID()}.md`);
    await writeFile(f, text);
    return f;
  };
  const eventFile = async (): Promise<string> => {
    const f = join(work, `event-${randomUUID()}.json`);
    await writeFile(f, JSON.stringify(pullRequestPayload(PR_NUMBER, PR_REPO)));
    return f;
  };
  const inputs = (over: Record<string, string> = {}) => ({
    'secret-prefix': 'apps/prod',
    'cli-version': STANDIN,
    'github-token': TOKEN,
    ...over,
  });
  const drift = reportJson({ tool_version: STANDIN, status: 'drift', git_revision: 'a'.repeat(40) }, { update: 1 });
  /** A plan run that writes the plan file and renders md (a file) on show. */
  const withPlan = async (md: string, extra: Record<string, string> = {}) => ({
    STANDIN_EXIT: '0',
    STANDIN_REPORT: drift,
    STANDIN_PLAN: planJson,
    STANDIN_SHOW_MARKDOWN: await markdownFile(md),
    STANDIN_LOG_LINE: JSON.stringify({ level: 'INFO', msg: 'stand-in', value: LEAK_VALUE, key: LEAK_KEY }),
    ...extra,
  });
  const onPullRequest = async () => ({ GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: await eventFile() });
  /** The plan comments of one scope on the test pull request. */
  const planComments = (prefix = 'apps/prod') => {
    const marker = planMarkerOf(PR_REPO, prefix);
    return (server.comments.get(`${PR_REPO}#${PR_NUMBER}`) ?? []).filter((c) => c.body.startsWith(`${marker}\n`));
  };
  const commentRequests = (from: number) =>
    server.requests.slice(from).filter((q) => q.path.startsWith(`/repos/${PR_REPO}/issues/`));
  const planSection = '### sops-aws-sync plan';
  const noCanary = (text: string) => {
    expect(text).not.toContain(LEAK_VALUE);
    expect(text).not.toContain(LEAK_KEY);
    expect(text).not.toContain(TOKEN);
  };
  const warnings = (r: ActionRun) => annotations(r.stdout).filter((l) => l.startsWith('::warning'));

  afterEach(() => {
    server.commentFault = undefined;
    server.comments.clear();
  });

  it('passes --plan-file, sets plan-file-path and shows the plan rendered by `show` in the summary', async () => {
    const showArgs = join(work, `show-args-${randomUUID()}`);
    const md = markdown(3);
    const r = await runner.runAction({ inputs: inputs(), env: await withPlan(md, { STANDIN_SHOW_ARGS: showArgs }) });
    expectSuccess(r);
    expect(r.outputs.status).toBe('drift');
    const planPath = r.outputs['plan-file-path'] ?? '';
    // Next to the report, in the same private directory; mode 0600 as the CLI wrote it.
    expect(planPath).toBe(join(r.runnerTemp, reportDir(r), 'plan.json'));
    expect((await stat(planPath)).mode & 0o777).toBe(0o600);
    expect(await readFile(planPath, 'utf8')).toBe(planJson);
    const args = (await readFile(standInArgs, 'utf8')).trim().split('\n');
    expect(args).toContain(`--plan-file=${planPath}`);
    expect((await readFile(showArgs, 'utf8')).trim().split('\n')).toEqual([planPath, '--format=markdown']);
    // The summary: the Action's table, then exactly show's Markdown.
    expect(r.summary).toContain('<td>Status</td><td>drift</td>');
    expect(r.summary).toContain(md);
    expect(r.summary.indexOf('<td>Status</td>')).toBeLessThan(r.summary.indexOf(planSection));
    noCanary(r.summary);
    // Not asked to comment: no comment request at all.
    expect(r.stdout).not.toContain('plan comment');
  });

  it('without a plan file: no plan section, no plan-file-path, a notice, and the same outcome', async () => {
    const env = await onPullRequest();
    const before = server.requests.length;
    const withFile = await runner.runAction({ inputs: inputs({ 'fail-on-drift': 'true' }), env: { ...(await withPlan(markdown(1), { STANDIN_EXIT: '2' })), ...env } });
    const without = await runner.runAction({
      inputs: inputs({ 'fail-on-drift': 'true', 'pull-request-comment': 'true' }),
      env: { STANDIN_EXIT: '2', STANDIN_REPORT: drift, ...env },
    });
    expectFailure(without, MSG.drift);
    expect(withFile.code).toBe(1);
    expect(annotations(withFile.stdout).filter((l) => l.startsWith('::error'))).toEqual(annotations(without.stdout).filter((l) => l.startsWith('::error')));
    expect(withFile.outputs['plan-file-path']).toBeDefined();
    const strip = (o: Record<string, string>) => ({ ...o, 'redacted-report-path': '', 'plan-file-path': '' });
    expect(strip(without.outputs)).toEqual(strip(withFile.outputs));
    expect(without.outputs['plan-file-path']).toBeUndefined();
    expect(without.summary).toContain('<td>Status</td><td>drift</td>');
    expect(without.summary).not.toContain(planSection);
    expect(without.stdout.split('\n').some((l) => l.startsWith('::notice::sops-aws-sync wrote no plan file'))).toBe(true);
    expect(warnings(without)).toEqual([]);
    // Nothing to comment with: the comment API is never called.
    expect(commentRequests(before)).toEqual([]);
  });

  it('a plan file `show` cannot render: a warning, no plan section, the same outcome', async () => {
    const r = await runner.runAction({ inputs: inputs(), env: await withPlan(markdown(2), { STANDIN_SHOW_EXIT: '3' }) });
    expectSuccess(r);
    expect(r.outputs.status).toBe('drift');
    expect(r.outputs['plan-file-path']).toMatch(/plan\.json$/);
    expect(warnings(r)).toEqual([`::warning::${MSG.planRender}`]);
    expect(r.stdout).toContain('sops-aws-sync show exited 3.');
    expect(r.summary).not.toContain(planSection);
    expect(r.summary).not.toContain('partial');
  });

  it('sticky comment: the first run creates it, the second edits it; exactly one exists, other comments untouched', async () => {
    // 150 comments by others first, so finding the plan comment needs the second page.
    for (let i = 0; i < 150; i++) server.addComment(PR_REPO, PR_NUMBER, `review comment ${i}`);
    const env = await onPullRequest();
    const before = server.requests.length;
    const first = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(2, 'first'))), ...env } });
    expectSuccess(first);
    expect(warnings(first)).toEqual([]);
    expect(first.stdout).toContain(`Created the plan comment on pull request #${PR_NUMBER}.`);
    expect(planComments()).toHaveLength(1);
    const [created] = planComments();
    expect(created?.body).toBe(`${planMarkerOf(PR_REPO, 'apps/prod')}\n${markdown(2, 'first')}`);
    const firstCalls = commentRequests(before).map((q) => q.method);
    expect(firstCalls).toEqual(['GET', 'GET', 'POST']);

    const mid = server.requests.length;
    const second = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(4, 'second'))), ...env } });
    expectSuccess(second);
    expect(second.stdout).toContain(`Edited the plan comment on pull request #${PR_NUMBER}.`);
    expect(planComments()).toEqual([{ id: created?.id, body: `${planMarkerOf(PR_REPO, 'apps/prod')}\n${markdown(4, 'second')}`, user: ACTIONS_BOT }]);
    expect(commentRequests(mid).map((q) => `${q.method} ${q.path}`)).toEqual([
      `GET /repos/${PR_REPO}/issues/${PR_NUMBER}/comments`,
      `GET /repos/${PR_REPO}/issues/${PR_NUMBER}/comments`,
      `PATCH /repos/${PR_REPO}/issues/comments/${created?.id}`,
    ]);
    for (const q of commentRequests(before)) expect(q.authorization).toBe(`Bearer ${TOKEN}`);
    expect(server.comments.get(`${PR_REPO}#${PR_NUMBER}`)?.filter((c) => c.body.startsWith('review comment'))).toHaveLength(150);
    // The summary carries the same Markdown as the comment.
    expect(second.summary).toContain(markdown(4, 'second'));

    // Another scope in the same repository keeps its own comment.
    const other = await runner.runAction({
      inputs: inputs({ 'pull-request-comment': 'true', 'secret-prefix': 'apps/staging' }),
      env: { ...(await withPlan(markdown(1, 'staging'))), ...env },
    });
    expectSuccess(other);
    expect(planComments()).toHaveLength(1);
    expect(planComments('apps/staging')).toHaveLength(1);
  });

  it('a marker planted by someone else is never edited: the Action posts and then edits its own comment', async () => {
    const marker = planMarkerOf(PR_REPO, 'apps/prod');
    const planted = server.addComment(PR_REPO, PR_NUMBER, `${marker}\nNo changes. Safe to merge.`, { login: 'mallory', type: 'User' });
    const env = await onPullRequest();
    const before = server.requests.length;
    for (const [n, note] of [[3, 'first'], [1, 'second']] as const) {
      const r = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(n, note))), ...env } });
      expectSuccess(r);
      expect(warnings(r)).toEqual([]);
    }
    const all = planComments();
    expect(all).toHaveLength(2);
    expect(all[0]).toEqual({ id: planted, body: `${marker}\nNo changes. Safe to merge.`, user: { login: 'mallory', type: 'User' } });
    expect(all[1]).toMatchObject({ body: `${marker}\n${markdown(1, 'second')}`, user: ACTIONS_BOT });
    expect(server.requests.slice(before).filter((q) => q.method === 'PATCH').map((q) => q.path)).toEqual([`/repos/${PR_REPO}/issues/comments/${all[1]?.id}`]);
  });

  it('with a user token, the comment is found by the login GET /user answers, not by a bot or another user', async () => {
    server.userLogin = 'infra-ci';
    try {
      const marker = planMarkerOf(PR_REPO, 'apps/prod');
      server.addComment(PR_REPO, PR_NUMBER, `${marker}\nby a bot`, ACTIONS_BOT);
      const env = await onPullRequest();
      const first = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(2, 'first'))), ...env } });
      expect(first.stdout).toContain(`Created the plan comment on pull request #${PR_NUMBER}.`);
      const second = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(2, 'second'))), ...env } });
      expect(second.stdout).toContain(`Edited the plan comment on pull request #${PR_NUMBER}.`);
      expect(planComments().map((c) => [c.user.login, c.body])).toEqual([
        ['github-actions[bot]', `${marker}\nby a bot`],
        ['infra-ci', `${marker}\n${markdown(2, 'second')}`],
      ]);
    } finally {
      server.userLogin = undefined;
    }
  });

  it('an oversized plan is cut below the comment and summary limits with the note, still well-formed', async () => {
    // About 1.3 MB: over the 1 MiB step-summary limit and far over 65,536 characters.
    const md = markdown(25_000, 'huge');
    expect(Buffer.byteLength(md)).toBeGreaterThan(1 << 20);
    const r = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(md)), ...(await onPullRequest()) } });
    expectSuccess(r);
    expect(warnings(r)).toEqual([]);
    const [comment] = planComments();
    const body = comment?.body ?? '';
    expect(body.length).toBeLessThan(65_536);
    expect(body.length).toBeGreaterThan(60_000);
    expect(body).toMatch(/_Truncated by the sops-aws-sync Action to stay under GitHub's size limit: \d+ lines are not shown\./);
    expect(body.trimEnd().endsWith('renders it in full._')).toBe(true);
    // The fence and the <details> block are closed before the note.
    expect(body.split('```').length % 2).toBe(1);
    expect(body.split('<details>').length).toBe(body.split('</details>').length);
    expect(body).toContain('```\n\n</details>\n\n_Truncated');
    expect(Buffer.byteLength(r.summary)).toBeLessThan(1 << 20);
    expect(r.summary).toContain(md.slice(0, 2000));
    expect(r.summary).toContain('_Truncated by the sops-aws-sync Action');
  });

  it.each([
    ['HTTP 403 (no permission)', 403],
    ['HTTP 500', 500],
  ])('a failing comment API (%s) is a warning: same outcome, outputs and exit code', async (_what, status) => {
    const env = await onPullRequest();
    server.commentFault = status;
    const failing = await runner.runAction({
      inputs: inputs({ 'pull-request-comment': 'true', 'fail-on-drift': 'true' }),
      env: { ...(await withPlan(markdown(2), { STANDIN_EXIT: '2' })), ...env },
    });
    server.commentFault = undefined;
    const plain = await runner.runAction({ inputs: inputs({ 'fail-on-drift': 'true' }), env: { ...(await withPlan(markdown(2), { STANDIN_EXIT: '2' })), ...env } });
    expectFailure(failing, MSG.drift);
    expect(failing.code).toBe(plain.code);
    expect(warnings(failing)).toEqual([`::warning::${MSG.comment}`]);
    expect(failing.stdout).toContain(`Listing the pull request comments returned HTTP ${status}.`);
    const strip = (o: Record<string, string>) => ({ ...o, 'redacted-report-path': '', 'plan-file-path': '' });
    expect(strip(failing.outputs)).toEqual(strip(plain.outputs));
    expect(failing.summary).toContain(markdown(2));
    expect(planComments()).toEqual([]);
  });

  it('asked to comment outside a pull request event: a warning, the same success', async () => {
    const r = await runner.runAction({
      inputs: inputs({ 'pull-request-comment': 'true' }),
      env: { ...(await withPlan(markdown(1))), GITHUB_EVENT_NAME: 'push' },
    });
    expectSuccess(r);
    expect(r.outputs.status).toBe('drift');
    expect(warnings(r)).toEqual([`::warning::${MSG.comment}`]);
    expect(r.stdout).toContain('the run is not for a pull_request or pull_request_target event.');
  });

  it('canary: values and out-of-band key names in the plan file and the log reach neither the summary nor the comment', async () => {
    const md = markdown(2, 'canary');
    noCanary(md);
    const r = await runner.runAction({
      inputs: inputs({ 'pull-request-comment': 'true', 'show-resource-names': 'true' }),
      env: { ...(await withPlan(md)), ...(await onPullRequest()) },
    });
    expectSuccess(r);
    // The stand-in did log them and write them to its plan file...
    expect(r.stdout).toContain(LEAK_VALUE);
    expect(await readFile(r.outputs['plan-file-path'] ?? '', 'utf8')).toContain(LEAK_KEY);
    // ...but the summary and the comment hold show's output and fixed text only.
    noCanary(r.summary);
    const [comment] = planComments();
    expect(comment?.body).toBe(`${planMarkerOf(PR_REPO, 'apps/prod')}\n${md}`);
    noCanary(comment?.body ?? '');
    const section = r.summary.slice(r.summary.indexOf(planSection));
    expect(section.trimEnd()).toBe(md.trimEnd());
  });

  it('regression: two Regions planning one prefix on one pull request each keep their own comment (the second replaced the first)', async () => {
    const pr = await onPullRequest();
    const inRegion = (region: string) => ({ AWS_REGION: region, AWS_DEFAULT_REGION: region });
    const ofRegion = (region: string) =>
      (server.comments.get(`${PR_REPO}#${PR_NUMBER}`) ?? []).filter((c) => c.body.startsWith(`${planMarkerOf(PR_REPO, 'apps/prod', region)}\n`));
    const eu = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(3, 'eu deletes'))), ...pr, ...inRegion('eu-west-1') } });
    expectSuccess(eu);
    const us = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(1, 'us'))), ...pr, ...inRegion('us-east-1') } });
    expectSuccess(us);
    expect(us.stdout).toContain(`Created the plan comment on pull request #${PR_NUMBER}.`);
    expect(ofRegion('eu-west-1').map((c) => c.body)).toEqual([`${planMarkerOf(PR_REPO, 'apps/prod', 'eu-west-1')}\n${markdown(3, 'eu deletes')}`]);
    expect(ofRegion('us-east-1').map((c) => c.body)).toEqual([`${planMarkerOf(PR_REPO, 'apps/prod', 'us-east-1')}\n${markdown(1, 'us')}`]);
    // Another account in the same Region is another comment too.
    const other = await runner.runAction({
      inputs: inputs({ 'pull-request-comment': 'true', 'aws-account-id': '222222222222' }),
      env: { ...(await withPlan(markdown(2, 'other account'))), ...pr, ...inRegion('eu-west-1') },
    });
    expectSuccess(other);
    expect(other.stdout).toContain('Created the plan comment');
    expect(ofRegion('eu-west-1')).toHaveLength(1);
    expect(server.comments.get(`${PR_REPO}#${PR_NUMBER}`)).toHaveLength(3);
  });

  it('a comment of an earlier release (marker of repository and prefix only) is taken over by the first Region; the next keeps its own', async () => {
    const legacy = legacyMarkerOf('plan', PR_REPO, 'apps/prod');
    const old = server.addComment(PR_REPO, PR_NUMBER, `${legacy}\nan old plan`, ACTIONS_BOT);
    const pr = await onPullRequest();
    const eu = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(1, 'eu'))), ...pr, AWS_REGION: 'eu-west-1' } });
    expectSuccess(eu);
    expect(eu.stdout).toContain(`Edited the plan comment on pull request #${PR_NUMBER}.`);
    const us = await runner.runAction({ inputs: inputs({ 'pull-request-comment': 'true' }), env: { ...(await withPlan(markdown(1, 'us'))), ...pr, AWS_REGION: 'us-east-1' } });
    expect(us.stdout).toContain(`Created the plan comment on pull request #${PR_NUMBER}.`);
    expect((server.comments.get(`${PR_REPO}#${PR_NUMBER}`) ?? []).map((c) => ({ id: c.id, first: c.body.split('\n')[0] }))).toEqual([
      { id: old, first: planMarkerOf(PR_REPO, 'apps/prod', 'eu-west-1') },
      { id: expect.any(Number) as number, first: planMarkerOf(PR_REPO, 'apps/prod', 'us-east-1') },
    ]);
  });
});

describe('Action with a stand-in CLI release: drift issue', () => {
  const REPO = 'acme/infra';
  const LABEL = 'sops-aws-sync-drift';
  const LEAK_VALUE = `LEAKVALUE-${randomBytes(6).toString('hex')}`;
  const LEAK_KEY = `oob-key-${randomBytes(6).toString('hex')}`;
  const NOTE =
    "_Opened by the sops-aws-sync Action's drift check. It edits this issue when the plan changes and closes it when AWS matches Git again; it finds the issue by its label and the hidden first line, so keep both._";
  const COMMIT_A = 'a'.repeat(40);
  const COMMIT_C = 'c'.repeat(40);
  // A plan file as the stand-in writes it: the canary inside must never
  // reach the issue (only what `show` printed may).
  const planJson = JSON.stringify({
    schema_version: 'sops-aws-sync/plan/v1',
    git_revision: COMMIT_A,
    names_shown: false,
    operations: [{ resource: 'resource-0001', action: 'update', reason: 'value-differs', keys: { added: 0, removed: 1, changed: 1 } }],
    summary: { create: 0, update: 1, restore: 0, schedule_delete: 0, unchanged: 0, conflicts: 0 },
    diagnostics: [],
    stand_in_canary: [LEAK_VALUE, LEAK_KEY],
  });
  const markdown = (n: number, tag: string, commit = COMMIT_A): string => planMarkdown(n, { commit, tag });
  /** The drift issue marker of a scope, computed here independently of src/identity.ts (no Region, no account: the stand-in runs set none). */
  const driftMarkerOf = (prefix = 'apps/prod', region = '') => markerOf('drift', identityOf({ repositoryId: REPO, secretPrefix: prefix, region, account: '' }));
  const bodyOf = (md: string, prefix = 'apps/prod', region = '') => `${driftMarkerOf(prefix, region)}\n${NOTE}\n\n${md}`;
  const inputs = (over: Record<string, string> = {}) => ({
    'secret-prefix': 'apps/prod',
    'cli-version': STANDIN,
    'github-token': TOKEN,
    'drift-issue': 'true',
    ...over,
  });
  const scheduled = { GITHUB_EVENT_NAME: 'schedule', GITHUB_SERVER_URL: 'https://github.com', GITHUB_RUN_ID: '4242' };
  const driftRun = async (md: string, extra: Record<string, string> = {}) => {
    const f = join(work, `show-${randomUUID()}.md`);
    await writeFile(f, md);
    return {
      ...scheduled,
      STANDIN_EXIT: '2',
      STANDIN_REPORT: reportJson({ tool_version: STANDIN, status: 'drift', git_revision: COMMIT_A }, { update: 1 }),
      STANDIN_PLAN: planJson,
      STANDIN_SHOW_MARKDOWN: f,
      STANDIN_LOG_LINE: JSON.stringify({ level: 'INFO', msg: 'stand-in', value: LEAK_VALUE, key: LEAK_KEY }),
      ...extra,
    };
  };
  const convergedRun = async (commit = COMMIT_C) => ({
    ...(await driftRun(markdown(0, 'converged', commit))),
    STANDIN_EXIT: '0',
    STANDIN_REPORT: reportJson({ tool_version: STANDIN, status: 'converged', git_revision: commit }, { unchanged: 2 }),
  });
  /** The Action's drift issues of a scope: opened by the token's identity, carrying the label, starting with the marker. */
  const driftIssues = (prefix = 'apps/prod', region = '') =>
    (server.issues.get(REPO) ?? []).filter(
      (i) =>
        i.pullRequest !== true &&
        i.user.login === (server.userLogin ?? ACTIONS_BOT.login) &&
        i.labels.includes(LABEL) &&
        (i.body ?? '').startsWith(`${driftMarkerOf(prefix, region)}\n`),
    );
  const issueRequests = (from: number) =>
    server.requests.slice(from).filter((q) => q.path === `/repos/${REPO}/issues` || q.path.startsWith(`/repos/${REPO}/issues/`));
  const writesFrom = (from: number) => server.issueWrites.slice(from);
  const warnings = (r: ActionRun) => annotations(r.stdout).filter((l) => l.startsWith('::warning'));
  const noCanary = (text: string) => {
    for (const leak of [LEAK_VALUE, LEAK_KEY, TOKEN, 'CANARY-']) expect(text).not.toContain(leak);
  };
  const lineOf = (r: ActionRun, start: string) => r.stdout.split('\n').filter((l) => l.startsWith(start));

  afterEach(() => {
    server.issues.clear();
    server.comments.clear();
    server.issueFault = undefined;
    server.issueEditFault = undefined;
    server.labelsSettable = true;
    server.userLogin = undefined;
  });

  it('keeps one issue: drift opens it, the same drift leaves it, new drift edits it, convergence closes it, drift reopens it; a failed run changes nothing', async () => {
    // 150 issues by others that carry the label, so the drift issue is on the second page...
    for (let i = 0; i < 150; i++) server.addIssue(REPO, { title: `triage ${i}`, body: `labelled by hand ${i}`, labels: [LABEL, 'ops'], state: i % 3 === 0 ? 'closed' : 'open' });
    // ...a pull request with the label and the marker (the list returns pull requests too)...
    server.addIssue(REPO, { body: `${driftMarkerOf()}\npr`, labels: [LABEL], user: ACTIONS_BOT, pullRequest: true });
    // ...an issue of ours with the marker but without the label (the label is part of how it is found)...
    const unlabelled = server.addIssue(REPO, { body: `${driftMarkerOf()}\nno label`, user: ACTIONS_BOT, state: 'closed' });
    // ...and a marker planted by someone else, open and closed.
    const planted = server.addIssue(REPO, { title: 'all good', body: `${driftMarkerOf()}\nNo drift. Nothing to see.`, labels: [LABEL], user: { login: 'mallory', type: 'User' } });
    const plantedClosed = server.addIssue(REPO, { body: `${driftMarkerOf()}\nold`, labels: [LABEL], user: { login: 'mallory', type: 'User' }, state: 'closed' });
    const others = JSON.stringify((server.issues.get(REPO) ?? []).map((i) => ({ ...i })));

    // 1. Drift: the issue is opened, with the rendered plan as its body; the step succeeds.
    let from = server.requests.length;
    let w = server.issueWrites.length;
    const opened = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(2, 'first')) });
    expectSuccess(opened);
    expect(warnings(opened)).toEqual([]);
    expect(opened.outputs.status).toBe('drift');
    expect(opened.summary).toContain('Result: drift');
    const args = (await readFile(standInArgs, 'utf8')).trim().split('\n');
    expect(args).toContain('--detailed-exit-code');
    expect(driftIssues()).toHaveLength(1);
    const [issue] = driftIssues();
    const number = issue?.number ?? -1;
    expect(issue).toMatchObject({ state: 'open', user: ACTIONS_BOT, labels: [LABEL], body: bodyOf(markdown(2, 'first')) });
    expect(issue?.title).toMatch(/^sops-aws-sync: AWS Secrets Manager differs from Git \(scope [0-9a-f]{16}\)$/);
    expect(lineOf(opened, 'Opened drift issue')).toEqual([`Opened drift issue #${number}.`]);
    const lists = issueRequests(from).filter((q) => q.method === 'GET');
    expect(lists.map((q) => new URLSearchParams(q.query).get('page'))).toEqual(['1', '2']);
    for (const q of lists) {
      const p = new URLSearchParams(q.query);
      expect([p.get('state'), p.get('labels'), p.get('per_page')]).toEqual(['all', LABEL, '100']);
    }
    expect(writesFrom(w).map((x) => `${x.method} ${x.path}`)).toEqual([`POST /repos/${REPO}/issues`]);
    expect(writesFrom(w)[0]?.payload).toEqual({ title: issue?.title, body: bodyOf(markdown(2, 'first')), labels: [LABEL] });
    expect(server.requests.slice(from).some((q) => q.path.startsWith('/search/'))).toBe(false);
    for (const q of issueRequests(from)) expect(q.authorization).toBe(`Bearer ${TOKEN}`);

    // 2. The same drift again: read only, no write.
    from = server.requests.length;
    w = server.issueWrites.length;
    const same = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(2, 'first')) });
    expectSuccess(same);
    expect(lineOf(same, 'Drift issue')).toEqual([`Drift issue #${number} already shows this plan: left as it was.`]);
    expect(writesFrom(w)).toEqual([]);
    expect(issueRequests(from).map((q) => q.method)).toEqual(['GET', 'GET']);

    // 3. New drift: the same issue's body is edited, nothing else.
    w = server.issueWrites.length;
    const edited = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(3, 'second')) });
    expectSuccess(edited);
    expect(lineOf(edited, 'Edited drift issue')).toEqual([`Edited drift issue #${number}: the plan changed.`]);
    expect(writesFrom(w)).toEqual([{ method: 'PATCH', path: `/repos/${REPO}/issues/${number}`, payload: { body: bodyOf(markdown(3, 'second')) } }]);
    expect(driftIssues()).toHaveLength(1);
    expect(driftIssues()[0]).toMatchObject({ number, state: 'open', body: bodyOf(markdown(3, 'second')) });

    // 4. Convergence: a comment naming the verified commit, then closed as completed.
    w = server.issueWrites.length;
    const converged = await runner.runAction({ inputs: inputs(), env: await convergedRun() });
    expectSuccess(converged);
    expect(converged.outputs.status).toBe('converged');
    expect(lineOf(converged, 'Closed drift issue')).toEqual([`Closed drift issue #${number}.`]);
    const closing = `sops-aws-sync plan found AWS Secrets Manager equal to Git at commit \`${COMMIT_C}\`: no drift is left, so this issue is closed ([run](https://github.com/${REPO}/actions/runs/4242)).`;
    expect(writesFrom(w)).toEqual([
      { method: 'POST', path: `/repos/${REPO}/issues/${number}/comments`, payload: { body: closing } },
      { method: 'PATCH', path: `/repos/${REPO}/issues/${number}`, payload: { state: 'closed', state_reason: 'completed' } },
    ]);
    expect(driftIssues()[0]).toMatchObject({ number, state: 'closed', state_reason: 'completed', body: bodyOf(markdown(3, 'second')) });
    expect(server.comments.get(`${REPO}#${number}`)?.map((c) => c.body)).toEqual([closing]);

    // Converged again: nothing open, nothing written.
    w = server.issueWrites.length;
    const quiet = await runner.runAction({ inputs: inputs(), env: await convergedRun() });
    expectSuccess(quiet);
    expect(lineOf(quiet, 'No open drift issue')).toEqual(['No open drift issue: nothing to close.']);
    expect(writesFrom(w)).toEqual([]);

    // 5. Drift again: the same issue is reopened (its body already shows this plan).
    w = server.issueWrites.length;
    const reopened = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(3, 'second')) });
    expectSuccess(reopened);
    expect(lineOf(reopened, 'Reopened drift issue')).toEqual([`Reopened drift issue #${number} with the current plan.`]);
    expect(writesFrom(w)).toEqual([{ method: 'PATCH', path: `/repos/${REPO}/issues/${number}`, payload: { state: 'open', state_reason: 'reopened' } }]);
    expect(driftIssues()).toHaveLength(1);
    expect(driftIssues()[0]).toMatchObject({ number, state: 'open', state_reason: 'reopened' });

    // 6. A failed run (conflict) changes nothing, makes no issue request, and fails with its message.
    from = server.requests.length;
    w = server.issueWrites.length;
    const before = JSON.stringify(server.issues.get(REPO));
    const failed = await runner.runAction({
      inputs: inputs(),
      env: { ...(await driftRun(markdown(1, 'conflict'))), STANDIN_EXIT: '4', STANDIN_REPORT: reportJson({ tool_version: STANDIN, status: 'conflict' }, { conflicts: 1 }) },
    });
    expectFailure(failed, MSG.conflict);
    expect(warnings(failed)).toEqual([]);
    expect(failed.stdout).toContain('sops-aws-sync plan ended with status conflict: the drift issue is left as it was.');
    expect(issueRequests(from)).toEqual([]);
    expect(writesFrom(w)).toEqual([]);
    expect(JSON.stringify(server.issues.get(REPO))).toBe(before);

    // Someone else's issues, the pull request and the unlabelled one were never written.
    const now = server.issues.get(REPO) ?? [];
    const byNumber = new Map(now.map((i) => [i.number, i]));
    for (const old of JSON.parse(others) as StoredIssue[]) expect(byNumber.get(old.number)).toEqual(old);
    for (const n of [planted, plantedClosed, unlabelled]) expect(server.issueWrites.some((x) => x.path.startsWith(`/repos/${REPO}/issues/${n}`))).toBe(false);
    expect(now.filter((i) => i.user.login === ACTIONS_BOT.login && !i.pullRequest && i.labels.includes(LABEL))).toHaveLength(1);
    // The canary: values and out-of-band key names were in the plan file and the log, never in an issue or comment.
    expect(opened.stdout).toContain(LEAK_VALUE);
    for (const i of now) noCanary(`${i.title}\n${i.body ?? ''}`);
    for (const x of server.issueWrites) noCanary(JSON.stringify(x.payload));
  });

  it.each([
    ['invalid (exit 3)', 3, { status: 'invalid' }, {}, MSG.invalid],
    ['observation-failed (exit 5)', 5, { status: 'observation-failed' }, {}, MSG.apply],
    ['interrupted (exit 130)', 130, { status: 'interrupted' }, {}, MSG.interrupted],
    ['exit 2 with a converged report (disagreement)', 2, { status: 'converged' }, {}, MSG.skew],
    ['exit 0 with a drift report (disagreement under --detailed-exit-code)', 0, { status: 'drift' }, { update: 1 }, MSG.skew],
  ] as const)('a failed run leaves the open issue alone and fails with its message: %s', async (_what, exit, over, counts, message) => {
    const n = server.addIssue(REPO, { body: bodyOf(markdown(1, 'open')), labels: [LABEL], user: ACTIONS_BOT });
    const from = server.requests.length;
    const r = await runner.runAction({
      inputs: inputs(),
      env: { ...(await driftRun(markdown(4, 'failed'))), STANDIN_EXIT: String(exit), STANDIN_REPORT: reportJson({ tool_version: STANDIN, ...over }, counts) },
    });
    expectFailure(r, message);
    expect(issueRequests(from)).toEqual([]);
    expect(server.issues.get(REPO)).toEqual([{ number: n, title: 'an issue', body: bodyOf(markdown(1, 'open')), state: 'open', state_reason: null, labels: [LABEL], user: ACTIONS_BOT }]);
  });

  it('a label name as the input: found and set by that label; another scope keeps its own issue', async () => {
    const custom = 'drift: prod secrets';
    const from = server.requests.length;
    const r = await runner.runAction({ inputs: inputs({ 'drift-issue': custom }), env: await driftRun(markdown(1, 'custom')) });
    expectSuccess(r);
    const mine = (server.issues.get(REPO) ?? []).filter((i) => i.labels.includes(custom));
    expect(mine).toHaveLength(1);
    expect(mine[0]?.body).toBe(bodyOf(markdown(1, 'custom')));
    expect(server.requests.slice(from).filter((q) => q.path === `/repos/${REPO}/issues` && q.method === 'GET').map((q) => new URLSearchParams(q.query).get('labels'))).toEqual([custom]);
    const staging = await runner.runAction({ inputs: inputs({ 'drift-issue': custom, 'secret-prefix': 'apps/staging' }), env: await driftRun(markdown(1, 'staging')) });
    expectSuccess(staging);
    expect(staging.stdout).toContain('Opened drift issue');
    expect((server.issues.get(REPO) ?? []).map((i) => i.body?.split('\n')[0])).toEqual([driftMarkerOf(), driftMarkerOf('apps/staging')]);
  });

  it('with a user token, only the issue that login opened is the drift issue', async () => {
    server.userLogin = 'infra-ci';
    const bots = server.addIssue(REPO, { body: bodyOf(markdown(1, 'bot')), labels: [LABEL], user: ACTIONS_BOT });
    const first = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(1, 'user')) });
    expectSuccess(first);
    const ours = (server.issues.get(REPO) ?? []).filter((i) => i.user.login === 'infra-ci');
    expect(ours).toHaveLength(1);
    const converged = await runner.runAction({ inputs: inputs(), env: await convergedRun() });
    expectSuccess(converged);
    expect(lineOf(converged, 'Closed drift issue')).toEqual([`Closed drift issue #${ours[0]?.number ?? -1}.`]);
    expect(server.issues.get(REPO)?.find((i) => i.number === bots)?.state).toBe('open');
  });

  it.each([
    ['HTTP 403 (no issues: write)', 403],
    ['HTTP 500', 500],
  ])('drift the issue cannot take (%s) fails the step with the drift message and a warning', async (_what, status) => {
    server.issueFault = status;
    const r = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(2, 'fault')) });
    expectFailure(r, MSG.drift);
    expect(warnings(r)).toEqual([`::warning::${MSG.driftIssue}`]);
    expect(r.stdout).toContain(`Listing the issues with the drift label returned HTTP ${status}.`);
    expect(r.outputs.status).toBe('drift');
    expect(r.summary).toContain(markdown(2, 'fault'));
  });

  it('drift without a rendering (show fails): the issue is left alone and the step fails with the drift message', async () => {
    const n = server.addIssue(REPO, { body: bodyOf(markdown(1, 'open')), labels: [LABEL], user: ACTIONS_BOT });
    const from = server.requests.length;
    const r = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(2, 'x'), { STANDIN_SHOW_EXIT: '3' }) });
    expectFailure(r, MSG.drift);
    expect(warnings(r)).toEqual([`::warning::${MSG.planRender}`, `::warning::${MSG.driftIssue}`]);
    expect(issueRequests(from)).toEqual([]);
    expect(server.issues.get(REPO)?.[0]).toMatchObject({ number: n, body: bodyOf(markdown(1, 'open')), state: 'open' });
  });

  it('labels the token may not set (GitHub drops them silently): the step fails rather than lose the issue', async () => {
    server.labelsSettable = false;
    const r = await runner.runAction({ inputs: inputs(), env: await driftRun(markdown(1, 'nolabel')) });
    expectFailure(r, MSG.drift);
    expect(warnings(r)).toEqual([`::warning::${MSG.driftIssue}`]);
    expect(r.stdout).toMatch(/Opening the drift issue gave issue #\d+ without the drift label \(the token may not set labels\)\./);
  });

  it('with fail-on-drift too: the issue is written and the step fails with the drift message', async () => {
    const r = await runner.runAction({ inputs: inputs({ 'fail-on-drift': 'true' }), env: await driftRun(markdown(1, 'gated')) });
    expectFailure(r, MSG.drift);
    expect(warnings(r)).toEqual([]);
    expect(driftIssues()).toHaveLength(1);
  });

  it('a failure to close is a warning: the converged run stays green and the issue open for the next run', async () => {
    const n = server.addIssue(REPO, { body: bodyOf(markdown(1, 'open')), labels: [LABEL], user: ACTIONS_BOT });
    server.issueEditFault = 502;
    const r = await runner.runAction({ inputs: inputs(), env: await convergedRun() });
    expectSuccess(r);
    expect(warnings(r)).toEqual([`::warning::${MSG.driftIssue}`]);
    expect(r.stdout).toContain(`Editing drift issue #${n} returned HTTP 502.`);
    expect(server.issues.get(REPO)?.[0]?.state).toBe('open');
  });

  it('regression: a Region that converged closed the issue another Region’s drift had opened (one issue per prefix)', async () => {
    const inRegion = (region: string) => ({ AWS_REGION: region, AWS_DEFAULT_REGION: region });
    const eu = await runner.runAction({ inputs: inputs(), env: { ...(await driftRun(markdown(2, 'eu drift'))), ...inRegion('eu-west-1') } });
    expectSuccess(eu);
    expect(lineOf(eu, 'Opened drift issue')).toHaveLength(1);
    const us = await runner.runAction({ inputs: inputs(), env: { ...(await convergedRun()), ...inRegion('us-east-1') } });
    expectSuccess(us);
    expect(us.stdout).toContain('No open drift issue: nothing to close.');
    expect(driftIssues('apps/prod', 'eu-west-1')).toMatchObject([{ state: 'open', body: bodyOf(markdown(2, 'eu drift'), 'apps/prod', 'eu-west-1') }]);
    // us drifting too opens its own, titled by its own digest.
    const usDrift = await runner.runAction({ inputs: inputs(), env: { ...(await driftRun(markdown(1, 'us drift'))), ...inRegion('us-east-1') } });
    expectSuccess(usDrift);
    expect(lineOf(usDrift, 'Opened drift issue')).toHaveLength(1);
    const [euIssue] = driftIssues('apps/prod', 'eu-west-1');
    const [usIssue] = driftIssues('apps/prod', 'us-east-1');
    expect(euIssue?.title).not.toBe(usIssue?.title);
    expect(usIssue?.body).toBe(bodyOf(markdown(1, 'us drift'), 'apps/prod', 'us-east-1'));
  });

  it('an issue of an earlier release (marker of repository and prefix only) is taken over by the first drifting Region', async () => {
    const legacy = legacyMarkerOf('drift', REPO, 'apps/prod');
    const old = server.addIssue(REPO, { body: `${legacy}\n${NOTE}\n\nold plan`, labels: [LABEL], user: ACTIONS_BOT });
    const eu = await runner.runAction({ inputs: inputs(), env: { ...(await driftRun(markdown(2, 'eu drift'))), AWS_REGION: 'eu-west-1' } });
    expectSuccess(eu);
    expect(lineOf(eu, `Edited drift issue #${old}`)).toHaveLength(1);
    expect(driftIssues('apps/prod', 'eu-west-1').map((i) => i.number)).toEqual([old]);
  });

  /** The drift issues the Action's identity opened with the label, whatever their marker. */
  const labelledIssues = () =>
    (server.issues.get(REPO) ?? []).filter((i) => i.pullRequest !== true && i.user.login === (server.userLogin ?? ACTIONS_BOT.login) && i.labels.includes(LABEL));

  it('scopes-generate: an organization that changed opens the issue under a converged plan with the accounts added, suspended and moved; the same organization then closes it', async () => {
    const section = join(work, `scopes-${randomUUID()}.md`);
    await writeFile(
      section,
      '### Scopes and AWS Organizations\n\n| Account | Change | Status | OU | Scopes |\n|---|---|---|---|---|\n' +
        '| delta | added: ACTIVE and selected, no scope yet | ACTIVE | OU prod | to add `delta-eu-west-1` |\n' +
        '| bravo | suspended or closed: SUSPENDED, not ACTIVE | SUSPENDED | OU prod | to remove `bravo-eu-west-1` |\n' +
        '| charlie | moved: no longer under any \\-\\-ou | ACTIVE | the root | to remove `charlie-eu-west-1` |\n',
    );
    const argsFile = join(work, `scopes-args-${randomUUID()}`);
    const gen = {
      'config-file': 'sops-aws-sync.yaml',
      'scopes-generate': '--ou prod\n--regions=eu-west-1\n  --role-name sops-aws-sync\n',
      'organizations-role-arn': 'arn:aws:iam::111111111111:role/organizations-read',
    };
    const differs = { STANDIN_SCOPES_EXIT: '2', STANDIN_SCOPES_MARKDOWN: section, STANDIN_SCOPES_ARGS: argsFile, STANDIN_SCOPES_LINE: 'scopes generate --check: account "delta" (in OU prod) added' };
    const r = await runner.runAction({ inputs: inputs(gen), env: { ...(await convergedRun()), ...differs } });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('scopes generate --check: account "delta" (in OU prod) added');
    expect((await readFile(argsFile, 'utf8')).trim().split('\n')).toEqual([
      'scopes',
      'generate',
      '--from-organizations',
      '--check',
      '--ou=prod',
      '--regions=eu-west-1',
      '--role-name=sops-aws-sync',
      '--organizations-role-arn=arn:aws:iam::111111111111:role/organizations-read',
      '--output=sops-aws-sync.yaml',
      expect.stringMatching(/^--diff-markdown=.*scopes-diff\.md$/),
    ]);
    const open = labelledIssues();
    expect(open).toHaveLength(1);
    const body = open[0]?.body ?? '';
    expect(body).toContain(markdown(0, 'converged', COMMIT_C));
    for (const account of ['| delta | added', '| bravo | suspended or closed: SUSPENDED', '| charlie | moved']) expect(body).toContain(account);
    expect(lineOf(r, 'Opened drift issue')).toHaveLength(1);
    noCanary(body);

    // fail-on-drift: the organization's drift fails the step as drift.
    const failing = await runner.runAction({ inputs: inputs({ ...gen, 'fail-on-drift': 'true' }), env: { ...(await convergedRun()), ...differs } });
    expectFailure(failing, MSG.drift);

    // The comparison fails: a warning, the issue left open.
    const broken = await runner.runAction({ inputs: inputs(gen), env: { ...(await convergedRun()), STANDIN_SCOPES_EXIT: '5' } });
    expect(broken.code, broken.stdout).toBe(0);
    expect(warnings(broken).some((l) => l.includes('sops-aws-sync could not compare the scopes with AWS Organizations'))).toBe(true);
    expect(broken.stdout).toContain('sops-aws-sync scopes generate --check exited 5.');
    expect(labelledIssues().filter((i) => i.state === 'open')).toHaveLength(1);

    // The organization matches the file again: the converged plan closes it.
    const same = await runner.runAction({ inputs: inputs(gen), env: { ...(await convergedRun()), STANDIN_SCOPES_EXIT: '0' } });
    expect(same.code, same.stdout).toBe(0);
    expect(labelledIssues().filter((i) => i.state === 'open')).toHaveLength(0);
    expect(lineOf(same, 'Closed drift issue')).toHaveLength(1);
  });

  it('scopes-generate is refused without drift-issue, without config-file, without --role-name or with another flag', async () => {
    for (const [over, why] of [
      [{ 'drift-issue': 'false', 'config-file': 'c.yaml', 'scopes-generate': '--role-name r' }, 'Input scopes-generate needs drift-issue'],
      [{ 'scopes-generate': '--role-name r' }, 'Input scopes-generate needs config-file'],
      [{ 'config-file': 'c.yaml', 'scopes-generate': '--ou prod' }, 'Input scopes-generate needs a --role-name line'],
      [{ 'config-file': 'c.yaml', 'scopes-generate': '--role-name r\n--output x' }, 'Input scopes-generate takes one flag a line'],
      [{ 'config-file': 'c.yaml', 'organizations-role-arn': 'arn:aws:iam::111111111111:role/r' }, 'Input organizations-role-arn needs scopes-generate'],
    ] as const) {
      const r = await runner.runAction({ inputs: inputs(over), env: scheduled });
      expectFailure(r, MSG.invalid);
      expect(r.stdout).toContain(why);
    }
  });

  it('exit 5 with scopes skipped as unreachable opens the issue with the rendering that names them, and the step fails with exit 5 message', async () => {
    const md = `${markdown(1, 'unreachable')}\n| \`bravo\` | us-east-1 | unreachable |\ncredentials:scope-unreachable\n`;
    const env = {
      ...(await driftRun(md)),
      STANDIN_EXIT: '5',
      STANDIN_REPORT: reportJson({ tool_version: STANDIN, status: 'unreachable', git_revision: COMMIT_A }, { update: 1 }),
    };
    const r = await runner.runAction({ inputs: inputs(), env });
    expectFailure(r, MSG.apply);
    const issues = driftIssues();
    expect(issues).toHaveLength(1);
    expect(issues[0]?.body).toBe(bodyOf(md));
    expect(issues[0]?.body).toContain('unreachable');
    expect(lineOf(r, 'Opened drift issue')).toHaveLength(1);
    // A converged plan later closes it.
    const converged = await runner.runAction({ inputs: inputs(), env: await convergedRun() });
    expect(converged.code, converged.stdout).toBe(0);
    expect(lineOf(converged, 'Closed drift issue')).toHaveLength(1);
  });

  it('refuses drift-issue on a pull_request event before installing anything', async () => {
    const from = server.requests.length;
    const r = await runner.runAction({ inputs: inputs(), env: { ...(await driftRun(markdown(1, 'pr'))), GITHUB_EVENT_NAME: 'pull_request' } });
    expectFailure(r, MSG.invalid);
    expect(r.stdout).toContain('Input drift-issue is not for pull_request events');
    expect(server.requests.slice(from)).toEqual([]);
  });
});

describe('Action with a stand-in CLI release: cancellation', () => {
  const inputs = { 'secret-prefix': 'apps/prod', 'cli-version': STANDIN, 'github-token': TOKEN, mode: 'sync' };
  const waiting = '"msg":"stand-in waiting for a signal"';

  /** True while a process with this pid exists. */
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  /** The stand-in's pids (it and its blocker) from its pid file. */
  const pids = async (file: string): Promise<number[]> =>
    readFile(file, 'utf8').then(
      (t) => t.trim().split(' ').map(Number),
      () => [],
    );
  const pidFiles: string[] = [];
  const pidFile = (): string => {
    const f = join(work, `standin-pid-${randomUUID()}`);
    pidFiles.push(f);
    return f;
  };
  // A failed test must not leave a stand-in running (on main it outlived the Action).
  afterEach(async () => {
    for (const f of pidFiles.splice(0)) for (const pid of await pids(f)) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    'forwards %s to the CLI, which exits 130 with its report: interrupted message and outputs',
    async (signal) => {
      const signals = join(work, `signals-${randomUUID()}`);
      const pidPath = pidFile();
      const started = await runner.startAction({
        inputs,
        env: {
          STANDIN_BLOCK: 'trap',
          STANDIN_PID: pidPath,
          STANDIN_SIGNALS: signals,
          STANDIN_EXIT: '130',
          STANDIN_REPORT: reportJson({ tool_version: STANDIN, status: 'interrupted' }, { create: 1 }),
        },
      });
      await started.waitForStdout(waiting);
      started.process.kill(signal);
      const r = await started.done;

      expectFailure(r, MSG.interrupted);
      for (const pid of await pids(pidPath)) expect(alive(pid)).toBe(false);
      // The CLI got the signal exactly once, as the signal the runner sent.
      expect(await readFile(signals, 'utf8')).toBe(`${signal.slice(3)}\n`);
      expect(r.stdout).toContain(`Received ${signal}: forwarded it to sops-aws-sync`);
      expect(r.stdout).toContain(`The Action forwarded ${signal}; sops-aws-sync exited with code 130.`);
      expect(r.outputs.status).toBe('interrupted');
      expect(r.outputs['create-count']).toBe('1');
      expect(r.outputs['cli-version']).toBe(STANDIN);
      expect(JSON.parse(await readFile(r.outputs['redacted-report-path'] ?? '', 'utf8'))).toMatchObject({
        status: 'interrupted',
      });
      expect(r.summary).toContain('<td>Status</td><td>interrupted</td>');
      expect(r.summary).toContain(MSG.interrupted);
      // One failure, no crash of the Action itself.
      expect(r.stdout.split(`::error::${MSG.interrupted}`)).toHaveLength(2);
      expect(r.stderr).toBe('');
    },
  );

  it('delivers SIGINT to the whole process group (Ctrl-C in a terminal) to the CLI once', async () => {
    const signals = join(work, `signals-${randomUUID()}`);
    const started = await runner.startAction({
      inputs,
      env: {
        STANDIN_BLOCK: 'trap',
        STANDIN_PID: pidFile(),
        STANDIN_SIGNALS: signals,
        STANDIN_EXIT: '130',
        STANDIN_REPORT: reportJson({ tool_version: STANDIN, status: 'interrupted' }),
      },
    });
    await started.waitForStdout(waiting);
    started.killGroup('SIGINT');
    const r = await started.done;
    expectFailure(r, MSG.interrupted);
    expect(await readFile(signals, 'utf8')).toBe('INT\n');
    expect(r.outputs.status).toBe('interrupted');
  });

  it('stops a CLI that ignores the signal with SIGKILL after the grace period, and still says interrupted', async () => {
    const pidPath = pidFile();
    const started = await runner.startAction({
      inputs,
      env: {
        STANDIN_BLOCK: 'ignore',
        STANDIN_PID: pidPath,
        STANDIN_REPORT: reportJson({ tool_version: STANDIN, status: 'interrupted' }),
        // Internal test hook: 200 ms instead of 5,000 ms.
        SOPS_AWS_SYNC_ACTION_TEST_KILL_GRACE_MS: '200',
      },
    });
    await started.waitForStdout(waiting);
    const [cliPid = 0] = await pids(pidPath);
    expect(alive(cliPid)).toBe(true);
    started.process.kill('SIGINT');
    const r = await started.done;

    expectFailure(r, MSG.interrupted);
    expect(r.stdout).toContain('did not exit within 200 ms and was stopped with SIGKILL');
    expect(r.stdout).toContain('The CLI was interrupted without writing its report.');
    // The CLI is gone, not orphaned; no report, so no report-derived output and no path.
    expect(alive(cliPid)).toBe(false);
    expect(r.outputs['cli-version']).toBe(STANDIN);
    expect(r.outputs.status).toBeUndefined();
    expect(r.outputs['redacted-report-path']).toBeUndefined();
    expect(r.stderr).toBe('');
  });
});

describe('release script', () => {
  it.each(['v1.2.3', '1.2', 'latest'])('refuses RELEASE_VERSION=%s before building anything', async (version) => {
    const dist = join(work, `never-${randomUUID()}`);
    const r = await run(join(repoRoot, 'scripts', 'release.sh'), [], {
      cwd: repoRoot,
      env: { ...process.env, RELEASE_VERSION: version, RELEASE_DIST: dist },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('RELEASE_VERSION must be an exact semantic version');
    expect(existsSync(dist)).toBe(false);
  });
});

describe.skipIf(!cliPresent)('Action with the real release snapshot and the emulator', () => {
  const emulator = new Emulator();
  let fixture: Fixture;
  let releaseDir: string;
  let realAsset: string;
  let realEnv: Record<string, string>;

  beforeAll(async () => {
    const sops = await findSops();
    if (sops === undefined) throw new Error('sops CLI not found on PATH or in $(go env GOPATH)/bin: run `make tools`');
    releaseDir = join(work, 'release-real');
    await must('make', ['--no-print-directory', 'release-snapshot', `RELEASE_VERSION=${REAL}`, `RELEASE_DIST=${releaseDir}`], {
      cwd: repoRoot,
    });
    realAsset = `sops-aws-sync_${REAL}_${host.goos}_${host.goarch}`;
    await server.addRelease(`v${REAL}`, releaseDir);
    const emulatorBin = join(work, 'secretsmanager-emulator');
    await must('go', ['build', '-trimpath', '-o', emulatorBin, './cmd/secretsmanager-emulator'], {
      cwd: repoRoot,
      env: { ...process.env, CGO_ENABLED: '0' },
    });
    await emulator.start(emulatorBin);
    fixture = await makeFixture(join(work, 'fixture'), sops);
    realEnv = {
      GITHUB_SHA: fixture.commit,
      GITHUB_WORKSPACE: fixture.repo,
      HOME: fixture.home,
      SOPS_AGE_KEY_FILE: fixture.keyFile,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: emulator.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDE2EACTION',
      AWS_SECRET_ACCESS_KEY: 'e2e-secret-access-key',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONFIG_FILE: join(work, 'no-aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(work, 'no-aws-credentials'),
    };
  });

  afterAll(() => {
    emulator.stop();
  });

  const inputs = (prefix: string, over: Record<string, string> = {}) => ({
    'secret-prefix': prefix,
    'cli-version': REAL,
    'github-token': TOKEN,
    ...over,
  });

  it('release snapshot: four stamped binaries and their checksums', async () => {
    const names = (await readdir(releaseDir)).sort();
    expect(names).toEqual(
      [
        'checksums.txt',
        `sops-aws-sync_${REAL}_darwin_amd64`,
        `sops-aws-sync_${REAL}_darwin_arm64`,
        `sops-aws-sync_${REAL}_linux_amd64`,
        `sops-aws-sync_${REAL}_linux_arm64`,
      ].sort(),
    );
    const sums = (await readFile(join(releaseDir, 'checksums.txt'), 'utf8')).trim().split('\n');
    expect(sums).toHaveLength(4);
    for (const line of sums) expect(line).toMatch(/^[0-9a-f]{64} {2}sops-aws-sync_0\.0\.0-e2e\.1_(linux|darwin)_(amd64|arm64)$/);
    const head = (await must('git', ['rev-parse', 'HEAD'], { cwd: repoRoot })).trim();
    const version = await must(join(releaseDir, realAsset), ['version']);
    expect(version).toContain(REAL);
    expect(version).toContain(head);
  });

  it('release snapshot is reproducible: a second build gives identical checksums', async () => {
    const again = join(work, 'release-again');
    await must('make', ['--no-print-directory', 'release-snapshot', `RELEASE_VERSION=${REAL}`, `RELEASE_DIST=${again}`], {
      cwd: repoRoot,
    });
    expect(await readFile(join(again, 'checksums.txt'), 'utf8')).toBe(
      await readFile(join(releaseDir, 'checksums.txt'), 'utf8'),
    );
  }, 1_800_000);

  it('converged: sync creates both secrets, then plan reports converged', async () => {
    const prefix = 'e2e/converged';
    const sync = await runner.runAction({ inputs: inputs(prefix, { mode: 'sync' }), env: realEnv });
    expectSuccess(sync);
    expect(sync.outputs.status).toBe('converged');
    expect(sync.outputs['verification-status']).toBe('converged');
    expect(sync.outputs['create-count']).toBe('2');
    expect(sync.outputs['git-revision']).toBe(fixture.commit);
    expect(sync.outputs['cli-version']).toBe(REAL);

    const plan = await runner.runAction({ inputs: inputs(prefix, { 'fail-on-drift': 'true' }), env: realEnv });
    expectSuccess(plan);
    expect(plan.outputs).toMatchObject({
      status: 'converged',
      'verification-status': 'not-run',
      'create-count': '0',
      'update-count': '0',
      'restore-count': '0',
      'scheduled-delete-count': '0',
      'unchanged-count': '2',
      'conflict-count': '0',
      'git-revision': fixture.commit,
    });
    expect(plan.summary).toContain('sops-aws-sync plan');
    expect(plan.summary).toContain('<td>Status</td><td>converged</td>');
    const report = JSON.parse(await readFile(plan.outputs['redacted-report-path'] ?? '', 'utf8')) as Record<string, unknown>;
    expect(report.status).toBe('converged');
  });

  it('fork pull request with the real CLI: validate --no-decrypt without key or AWS, the real source roots; passes when no secret changed, fails when one did or a plaintext document is committed', async () => {
    const prefix = 'e2e/fork';
    const repo = 'acme/infra';
    const number = 31;
    const event = join(work, `event-${randomUUID()}.json`);
    await writeFile(event, JSON.stringify(pullRequestPayload(number, repo, 'eve/infra')));
    // A fork's pull_request_target run would hold the key and the credentials; none reaches the CLI.
    const forkEnv = { ...realEnv, GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_EVENT_PATH: event, RUNNER_ENVIRONMENT: 'github-hosted' };
    const listed = (...names: string[]) => server.pullFiles.set(`${repo}#${number}`, names.map((filename) => ({ filename })));
    try {
      listed('README.md');
      const pass = await runner.runAction({ inputs: inputs(prefix, { 'fail-on-drift': 'true', 'pull-request-comment': 'true' }), env: forkEnv });
      expectSuccess(pass);
      expect(pass.outputs).toMatchObject({ planned: 'false', status: 'converged', 'create-count': '0', 'unchanged-count': '0' });
      expect(pass.summary).toContain('No plan was computed: this pull request comes from a fork');
      expect(pass.summary).toContain('changes no file under a source root (secrets)');
      // The real validate's diagnostics, rendered by the real show.
      expect(pass.summary).toContain('warning:not-planned');
      expect(pass.summary).toContain('warning:checks-skipped');
      // Nothing reached AWS: the prefix holds no secret.
      const listedSecrets = (await emulator.call('ListSecrets', {})) as { SecretList: { Name: string }[] };
      expect(listedSecrets.SecretList.filter((x) => x.Name.startsWith(`${prefix}/`))).toEqual([]);

      listed('README.md', 'secrets/app.sops.json');
      const changed = await runner.runAction({ inputs: inputs(prefix), env: forkEnv });
      expectFailure(changed, 'sops-aws-sync computed no plan for a pull request that changes secrets; a maintainer must plan it from a branch');
      expect(changed.outputs.planned).toBe('false');

      // A fork commits a document in clear: validate finds it without a key.
      const plain = `CANARY-fork-${randomBytes(4).toString('hex')}`;
      await writeFile(join(fixture.repo, 'secrets', 'leak.sops.json'), `{"password": "${plain}"}\n`);
      await must('git', ['add', 'secrets/leak.sops.json'], { cwd: fixture.repo });
      await must('git', ['commit', '-q', '-m', 'a plaintext document'], { cwd: fixture.repo });
      const leaky = (await must('git', ['rev-parse', 'HEAD'], { cwd: fixture.repo })).trim();
      await must('git', ['reset', '-q', '--hard', fixture.commit], { cwd: fixture.repo });
      const invalid = await runner.runAction({ inputs: inputs(prefix, { revision: leaky }), env: forkEnv });
      expectFailure(invalid, MSG.invalid);
      expect(invalid.outputs).toMatchObject({ planned: 'false', status: 'invalid' });
      expect(invalid.summary).toContain('decrypt:not-encrypted');
      for (const text of [invalid.stdout, invalid.summary]) expect(text).not.toContain(plain);
    } finally {
      server.pullFiles.clear();
    }
  });

  it('mode validate with the real CLI in a normal job: every check with the job\'s key, planned false, no secret read from AWS', async () => {
    const r = await runner.runAction({ inputs: inputs('e2e/validate', { mode: 'validate' }), env: { ...realEnv, GITHUB_EVENT_NAME: 'push' } });
    expectSuccess(r);
    expect(r.outputs).toMatchObject({ planned: 'false', status: 'converged', 'unchanged-count': '0', 'verification-status': 'not-run' });
    expect(r.summary).toContain('### sops-aws-sync validate');
    expect(r.summary).toContain('warning:not-planned');
    // With the key nothing was skipped.
    expect(r.summary).not.toContain('warning:checks-skipped');
  });

  it('drift without fail-on-drift: plan succeeds and reports drift', async () => {
    const r = await runner.runAction({ inputs: inputs('e2e/drift-open'), env: realEnv });
    expectSuccess(r);
    expect(r.outputs.status).toBe('drift');
    expect(r.outputs['create-count']).toBe('2');
    expect(r.outputs['verification-status']).toBe('not-run');
    expect(r.summary).toContain('<td>drift</td>');
    // The plan section, rendered by the real CLI's show from its plan file.
    expect(await isFile(r.outputs['plan-file-path'] ?? '')).toBe(true);
    expect(r.summary).toContain('### sops-aws-sync plan');
    expect(r.summary).toContain('**Plan: 2 to create, 0 to update, 0 to restore, 0 to schedule for deletion, 0 unchanged.**');
    expect(r.summary).toContain('resource names hidden');
    expect(r.summary).not.toContain('e2e/drift-open/');
  });

  it('plan comment with the real CLI: names hidden then shown, one comment edited; values and out-of-band keys never appear', async () => {
    const prefix = 'e2e/comment';
    const sync = await runner.runAction({ inputs: inputs(prefix, { mode: 'sync' }), env: realEnv });
    expectSuccess(sync);
    // A key added out of band (with its value): counted in the plan, never named.
    const oobKey = `oobkey${randomBytes(5).toString('hex')}`;
    const oobValue = `OOBVALUE${randomBytes(5).toString('hex')}`;
    await emulator.call('PutSecretValue', {
      SecretId: `${prefix}/app`,
      SecretString: JSON.stringify({ [oobKey]: oobValue }),
      ClientRequestToken: randomUUID(),
    });
    const event = join(work, `event-${randomUUID()}.json`);
    await writeFile(event, JSON.stringify(pullRequestPayload(99)));
    const prEnv = { ...realEnv, GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event };
    const marker = `${planMarkerOf('acme/infra', prefix, 'us-east-1')}\n`;
    const ours = () => (server.comments.get('acme/infra#99') ?? []).filter((c) => c.body.startsWith(marker));
    const clean = (text: string) => {
      for (const leak of [oobKey, oobValue, 'CANARY-', TOKEN]) expect(text).not.toContain(leak);
    };

    const hidden = await runner.runAction({ inputs: inputs(prefix, { 'pull-request-comment': 'true' }), env: prEnv });
    expectSuccess(hidden);
    expect(hidden.outputs).toMatchObject({ status: 'drift', 'update-count': '1', 'unchanged-count': '1' });
    expect(ours()).toHaveLength(1);
    const first = ours()[0];
    const shown = await must(join(releaseDir, realAsset), ['show', hidden.outputs['plan-file-path'] ?? '', '--format', 'markdown']);
    expect(first?.body).toBe(`${marker}${shown}`);
    expect(first?.body).toContain('resource names hidden');
    expect(first?.body).not.toContain(`${prefix}/app`);
    clean(first?.body ?? '');
    clean(hidden.summary);
    clean(await readFile(hidden.outputs['plan-file-path'] ?? '', 'utf8'));

    const named = await runner.runAction({
      inputs: inputs(prefix, { 'pull-request-comment': 'true', 'show-resource-names': 'true' }),
      env: prEnv,
    });
    expectSuccess(named);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.id).toBe(first?.id);
    const body = ours()[0]?.body ?? '';
    expect(body).toContain(`${prefix}/app`);
    expect(body).toContain('/password');
    clean(body);
    clean(named.summary);
    clean(await readFile(named.outputs['plan-file-path'] ?? '', 'utf8'));
  });

  it('config file with two scopes in two Regions: one plan, one summary and one comment with a section per scope; summed outputs; --scope runs a subset; sync converges both', async () => {
    const config = join(work, `scopes-${randomUUID()}.yaml`);
    await writeFile(
      config,
      [
        'repository-id: acme/infra',
        'scopes:',
        '  - name: eu',
        '    source-root: secrets',
        '    secret-prefix: e2e/scopes-eu',
        '    aws-region: eu-west-1',
        '  - name: us',
        '    source-root: secrets',
        '    secret-prefix: e2e/scopes-us',
        '    aws-region: us-east-1',
        '',
      ].join('\n'),
    );
    const withConfig = (over: Record<string, string> = {}) => ({ 'config-file': config, 'cli-version': REAL, 'github-token': TOKEN, ...over });
    const event = join(work, `event-${randomUUID()}.json`);
    await writeFile(event, JSON.stringify(pullRequestPayload(123)));
    // A run of several scopes learns the base identity's account (its quota
    // bucket) with STS GetCallerIdentity: the emulator answers STS too.
    const scopesEnv = { ...realEnv, AWS_ENDPOINT_URL_STS: emulator.url };
    const prEnv = { ...scopesEnv, GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event };
    // The run's marker, computed here independently of src/plan.ts.
    const runMarkerOf = (scopes: string[]) =>
      `${markerOf('plan', identityOf({ repositoryId: '', sourceRoot: '', secretPrefix: '', region: 'us-east-1', account: '', configFile: config, scopes }))}\n`;
    const comments = () => server.comments.get('acme/infra#123') ?? [];
    const headings = ['#### Scope `eu` · `eu-west-1` · drift', '#### Scope `us` · `us-east-1` · drift'];

    const plan = await runner.runAction({ inputs: withConfig({ 'pull-request-comment': 'true' }), env: prEnv });
    expectSuccess(plan);
    expect(plan.outputs).toMatchObject({ status: 'drift', 'create-count': '4', 'unchanged-count': '0', 'verification-status': 'not-run' });
    const file = JSON.parse(await readFile(plan.outputs['plan-file-path'] ?? '', 'utf8')) as {
      schema_version: string;
      scopes: { name: string; region: string; status: string; counts: { create: number } }[];
    };
    expect(file.schema_version).toBe('sops-aws-sync/plan/v3');
    expect(file.scopes.map((x) => [x.name, x.region, x.status, x.counts.create])).toEqual([
      ['eu', 'eu-west-1', 'drift', 2],
      ['us', 'us-east-1', 'drift', 2],
    ]);
    const shown = await must(join(releaseDir, realAsset), ['show', plan.outputs['plan-file-path'] ?? '', '--format', 'markdown']);
    const all = comments().filter((c) => c.body.startsWith(runMarkerOf([])));
    expect(all).toHaveLength(1);
    expect(all[0]?.body).toBe(`${runMarkerOf([])}${shown}`);
    for (const h of headings) {
      expect(shown.split(`${h}\n`)).toHaveLength(2);
      expect(plan.summary.split(`${h}\n`)).toHaveLength(2);
    }
    expect(plan.summary.split('### sops-aws-sync plan')).toHaveLength(2);
    for (const text of [shown, plan.summary]) for (const leak of ['CANARY-', TOKEN, 'e2e/scopes-']) expect(text).not.toContain(leak);

    const subset = await runner.runAction({ inputs: withConfig({ 'pull-request-comment': 'true', scopes: 'us' }), env: prEnv });
    expectSuccess(subset);
    expect(subset.outputs).toMatchObject({ status: 'drift', 'create-count': '2' });
    expect(subset.summary).toContain(headings[1]);
    expect(subset.summary).not.toContain('Scope `eu`');
    expect(comments().filter((c) => c.body.startsWith(runMarkerOf(['us'])))).toHaveLength(1);
    expect(comments().filter((c) => c.body.startsWith(runMarkerOf([])))).toHaveLength(1);

    const sync = await runner.runAction({ inputs: withConfig({ mode: 'sync' }), env: scopesEnv });
    expectSuccess(sync);
    expect(sync.outputs).toMatchObject({ status: 'converged', 'create-count': '4', 'verification-status': 'converged' });
    const again = await runner.runAction({ inputs: withConfig(), env: scopesEnv });
    expectSuccess(again);
    expect(again.outputs).toMatchObject({ status: 'converged', 'create-count': '0', 'unchanged-count': '4' });
    expect(again.summary).toContain('#### Scope `eu` · `eu-west-1` · converged');
    expect(again.summary).toContain('#### Scope `us` · `us-east-1` · converged');
  });

  it('drift issue with the real CLI: the real rendering opens it, the same drift leaves it, a sync then a plan closes it; no value ever in it', async () => {
    const prefix = 'e2e/drift-issue';
    const repo = 'acme/infra';
    const marker = markerOf('drift', identityOf({ repositoryId: repo, secretPrefix: prefix, region: 'us-east-1', account: '' }));
    const ours = () => (server.issues.get(repo) ?? []).filter((i) => (i.body ?? '').startsWith(`${marker}\n`));
    const check = () => runner.runAction({ inputs: inputs(prefix, { 'drift-issue': 'true' }), env: { ...realEnv, GITHUB_EVENT_NAME: 'schedule' } });
    const clean = (text: string) => {
      for (const leak of ['CANARY-', TOKEN, `${prefix}/`]) expect(text).not.toContain(leak);
    };
    try {
      const opened = await check();
      expectSuccess(opened);
      expect(opened.outputs).toMatchObject({ status: 'drift', 'create-count': '2' });
      expect(ours()).toHaveLength(1);
      const issue = ours()[0];
      const shown = await must(join(releaseDir, realAsset), ['show', opened.outputs['plan-file-path'] ?? '', '--format', 'markdown']);
      expect(issue?.body?.endsWith(`\n\n${shown}`)).toBe(true);
      expect(issue?.body).toContain('**Plan: 2 to create, 0 to update, 0 to restore, 0 to schedule for deletion, 0 unchanged.**');
      clean(`${issue?.title ?? ''}\n${issue?.body ?? ''}`);

      const writes = server.issueWrites.length;
      expectSuccess(await check());
      expect(server.issueWrites.slice(writes)).toEqual([]);

      expectSuccess(await runner.runAction({ inputs: inputs(prefix, { mode: 'sync' }), env: realEnv }));
      const closed = await check();
      expectSuccess(closed);
      expect(closed.outputs.status).toBe('converged');
      expect(ours()).toMatchObject([{ number: issue?.number, state: 'closed', state_reason: 'completed' }]);
      const comments = server.comments.get(`${repo}#${issue?.number ?? -1}`) ?? [];
      expect(comments).toHaveLength(1);
      expect(comments[0]?.body).toContain(`commit \`${fixture.commit}\``);
      for (const w of server.issueWrites) clean(JSON.stringify(w.payload));
    } finally {
      server.issues.delete(repo);
    }
  });

  it('drift with fail-on-drift: the step fails with the drift message', async () => {
    const r = await runner.runAction({ inputs: inputs('e2e/drift-gated', { 'fail-on-drift': 'true' }), env: realEnv });
    expectFailure(r, MSG.drift);
    expect(r.outputs.status).toBe('drift');
    expect(r.outputs['create-count']).toBe('2');
  });

  it('conflict: a same-name secret the tool does not own blocks the plan', async () => {
    const prefix = 'e2e/conflict';
    await emulator.call('CreateSecret', {
      Name: `${prefix}/app`,
      SecretString: '{"owner":"someone else"}',
      ClientRequestToken: randomUUID(),
    });
    const r = await runner.runAction({ inputs: inputs(prefix, { mode: 'sync' }), env: realEnv });
    expectFailure(r, MSG.conflict);
    expect(r.outputs.status).toBe('conflict');
    expect(r.outputs['conflict-count']).toBe('1');
    expect(r.outputs['create-count']).toBe('0');
  });

  it('invalid: a missing source root is rejected', async () => {
    const r = await runner.runAction({ inputs: inputs('e2e/invalid', { 'source-root': 'no-such-dir' }), env: realEnv });
    expectFailure(r, MSG.invalid);
    expect(r.outputs.status).toBe('invalid');
  });

  it.each(['process', 'group'] as const)(
    'cancelled: SIGINT to the Action (%s) reaches the running CLI, which exits 130 with its report; a re-run converges',
    async (target) => {
      // process: what the runner does; group: Ctrl-C in a terminal, where
      // the CLI must still get the signal once (a second would lose the report).
      const prefix = `e2e/cancelled-${target}`;
      // Every AWS call now hangs (the emulator sleeps until the client goes
      // away), so the sync is still running when the signal comes; the
      // timeouts are raised so only the signal can end it.
      await emulator.setFaults({ latency_ms: 3_600_000 });
      let r: ActionRun;
      try {
        const started = await runner.startAction({
          inputs: inputs(prefix, { mode: 'sync', 'operation-timeout': '2h', 'run-timeout': '2h' }),
          env: realEnv,
        });
        // The CLI has read the commit and is observing AWS.
        await started.waitForStdout('"msg":"desired state loaded"');
        if (target === 'group') started.killGroup('SIGINT');
        else started.process.kill('SIGINT');
        r = await started.done;
      } finally {
        await emulator.setFaults({});
      }
      expectFailure(r, MSG.interrupted);
      expect(r.stdout).toContain('Received SIGINT: forwarded it to sops-aws-sync');
      expect(r.stdout).toContain('The Action forwarded SIGINT; sops-aws-sync exited with code 130.');
      expect(r.stdout).toContain('"error_class":"interrupted:signal"');
      expect(r.outputs).toMatchObject({ status: 'interrupted', 'verification-status': 'not-run', 'cli-version': REAL });
      const report = JSON.parse(await readFile(r.outputs['redacted-report-path'] ?? '', 'utf8')) as Record<string, unknown>;
      expect(report).toMatchObject({ status: 'interrupted', tool_version: REAL });
      expect(r.summary).toContain('<td>Status</td><td>interrupted</td>');

      const again = await runner.runAction({ inputs: inputs(prefix, { mode: 'sync' }), env: realEnv });
      expectSuccess(again);
      expect(again.outputs).toMatchObject({ status: 'converged', 'create-count': '2', 'verification-status': 'converged' });
    },
  );

  it('tampered binary: the real checksums.txt catches it', async () => {
    server.tampered.add(realAsset);
    try {
      const r = await runner.runAction({ inputs: inputs('e2e/tampered'), env: realEnv });
      expectFailure(r, MSG.checksum);
      expect(r.outputs.status).toBeUndefined();
    } finally {
      server.tampered.delete(realAsset);
    }
  });
});

// Make the suite fail loudly rather than skip in CI when the CLI sources are gone.
it.runIf(process.env.CI === 'true')('runs the real-CLI suite in CI', () => {
  expect(cliPresent).toBe(true);
});
