/**
 * End-to-end tests of the runs without a plan (SPEC §15,
 * docs/github-action.md "Pull requests from forks and jobs without AWS
 * credentials"): the bundled Action run as the runner runs it, a stand-in
 * CLI release, and the loopback GitHub API stand-in listing the pull
 * request's files.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  freshDir,
  hostPlatform,
  isFile,
  makeStandInRelease,
  pathWith,
  pullRequestPayload,
  ReleaseServer,
  reportJson,
  Runner,
  writeStandInGh,
  type ActionRun,
} from './harness.js';

const MSG = {
  invalid: 'sops-aws-sync rejected the Action configuration or desired state',
  forkRefused: 'sops-aws-sync does not plan pull requests from forks',
  unplannedChange: 'sops-aws-sync computed no plan for a pull request that changes secrets; a maintainer must plan it from a branch',
  noCredentials: 'sops-aws-sync computed no plan: the job has no AWS credentials',
};

const host = hostPlatform();
const TOKEN = `ghs_e2e${randomBytes(12).toString('hex')}`;
const STANDIN = '0.0.0-standin.3';
const REPO = 'acme/infra';
const PR = 23;
// Secrets the job would hold on pull_request_target, or that a runner
// leaves in the environment: a run without a plan passes none to the CLI.
const AGE_KEY = `AGE-SECRET-KEY-1${randomBytes(8).toString('hex').toUpperCase()}`;
const AWS_SECRET = `aws-secret-${randomBytes(8).toString('hex')}`;

let work: string;
let server: ReleaseServer;
let runner: Runner;
let standInArgs: string;
let standInEnv: string;

beforeAll(async () => {
  work = await freshDir('sops-aws-sync-unplanned-e2e-');
  const binDir = join(work, 'bin');
  standInArgs = join(work, 'standin.args');
  standInEnv = join(work, 'standin.env');
  await writeStandInGh(binDir);
  server = new ReleaseServer(join(work, 'attested.txt'), join(work, 'commits.txt'));
  await server.start();
  await makeStandInRelease(join(work, 'release'), STANDIN, host.goos, host.goarch);
  await server.addRelease(`v${STANDIN}`, join(work, 'release'), { withDigests: false });
  const home = join(work, 'home');
  await mkdir(home, { recursive: true });
  runner = new Runner(work, {
    PATH: pathWith(binDir),
    HOME: home,
    GITHUB_API_URL: server.base,
    GITHUB_REPOSITORY: REPO,
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_WORKSPACE: work,
    RUNNER_OS: host.runnerOs,
    RUNNER_ARCH: host.runnerArch,
    RUNNER_ENVIRONMENT: 'github-hosted',
    GH_STANDIN_LOG: join(work, 'gh.log'),
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

/** Annotations the Action itself emitted (outside the CLI's stop-commands region). */
function annotations(stdout: string): string[] {
  const out: string[] = [];
  let stop: string | undefined;
  for (const line of stdout.split('\n')) {
    if (stop !== undefined) {
      if (line === `::${stop}::`) stop = undefined;
      continue;
    }
    const m = /^::stop-commands::(.+)$/.exec(line);
    if (m !== null) stop = m[1];
    else if (/^::(error|warning)/.test(line)) out.push(line);
  }
  return out;
}

function errors(r: ActionRun): string[] {
  return annotations(r.stdout).filter((l) => l.startsWith('::error'));
}

/** Nothing secret anywhere: the token, the key and the AWS secret in no log line, output or summary. */
function expectNoLeaks(r: ActionRun): void {
  const visible = r.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  for (const text of [visible, r.stderr, r.summary, JSON.stringify(r.outputs)]) {
    for (const secret of [TOKEN, AGE_KEY, AWS_SECRET]) expect(text).not.toContain(secret);
  }
}

describe('Action with a stand-in CLI release: runs without a plan (forks, no AWS credentials, mode validate)', () => {
  const inputs = (over: Record<string, string> = {}) => ({
    mode: 'plan',
    'secret-prefix': 'apps/prod',
    'source-root': 'secrets',
    'fail-on-drift': 'true',
    'pull-request-comment': 'true',
    'cli-version': STANDIN,
    'github-token': TOKEN,
    ...over,
  });
  const validated = reportJson({ tool_version: STANDIN, status: 'converged', git_revision: 'a'.repeat(40) });
  const invalid = reportJson({ tool_version: STANDIN, status: 'invalid', git_revision: 'a'.repeat(40) });
  const roots = (...rs: string[]) =>
    JSON.stringify({ schema_version: 'sops-aws-sync/source-roots/v1', scopes: rs.map((r, i) => ({ name: `s${i}`, source_root: r })) });
  const markdownFile = async (): Promise<string> => {
    const f = join(work, `show-${randomUUID()}.md`);
    await writeFile(f, '### sops-aws-sync validate\n\nwarning:not-planned: no plan was computed\n');
    return f;
  };
  const validatePlan = JSON.stringify({ schema_version: 'sops-aws-sync/plan/v3', command: 'validate' });
  /** A CLI that ran validate: exit, report, plan file, rendering and source roots. */
  /** sourceRoots null: the CLI writes no source-roots file. */
  const cli = async (exit: number, report: string, sourceRoots: string | null = roots('secrets')) => ({
    STANDIN_EXIT: String(exit),
    STANDIN_REPORT: report,
    STANDIN_PLAN: validatePlan,
    STANDIN_SHOW_MARKDOWN: await markdownFile(),
    ...(sourceRoots === null ? {} : { STANDIN_SOURCE_ROOTS: sourceRoots }),
  });
  const event = async (fork: boolean, name = 'pull_request') => {
    const f = join(work, `event-${randomUUID()}.json`);
    await writeFile(f, JSON.stringify(pullRequestPayload(PR, REPO, fork ? 'eve/infra' : REPO)));
    return { GITHUB_EVENT_NAME: name, GITHUB_EVENT_PATH: f };
  };
  /** What a pull_request_target job of a fork holds: the repository's secrets and an OIDC token. */
  const secretsInEnv = {
    SOPS_AGE_KEY: AGE_KEY,
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: AWS_SECRET,
    AWS_REGION: 'eu-west-1',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.example',
  };
  const files = (...names: string[]) => {
    server.pullFiles.set(`${REPO}#${PR}`, names.map((filename) => ({ filename })));
  };
  const filesRequests = (from: number) => server.requests.slice(from).filter((q) => q.path === `/repos/${REPO}/pulls/${PR}/files`);
  const commentRequests = (from: number) => server.requests.slice(from).filter((q) => q.path.includes('/issues/'));
  const args = async () => (await readFile(standInArgs, 'utf8')).trim().split('\n');

  afterEach(() => {
    server.pullFiles.clear();
    server.pullFilesFault = undefined;
  });

  it('fork pull request that changes no secret: validate --no-decrypt, planned false, passes; no comment, no secret reaches the CLI', async () => {
    files('README.md', 'src/main.go', 'secrets-old/notes.txt');
    const before = server.requests.length;
    const r = await runner.runAction({
      inputs: inputs(),
      env: { ...(await event(true, 'pull_request_target')), ...secretsInEnv, ...(await cli(0, validated)) },
    });
    expect(r.code, r.stdout).toBe(0);
    expect(errors(r)).toEqual([]);
    expect(r.outputs.planned).toBe('false');
    expect(r.outputs.status).toBe('converged');
    const a = await args();
    expect(a[0]).toBe('validate');
    expect(a).toContain('--no-decrypt');
    expect(a.some((x) => x.startsWith('--source-roots-file='))).toBe(true);
    expect(a).not.toContain('--detailed-exit-code');
    // No secret in the CLI's environment, the Region kept.
    const env = await readFile(standInEnv, 'utf8');
    for (const secret of [AGE_KEY, AWS_SECRET, 'AKIAEXAMPLE', 'https://token.example', TOKEN]) expect(env).not.toContain(secret);
    expect(env).toMatch(/^AWS_REGION=eu-west-1$/m);
    // The summary says no plan was computed and why, and how it was judged.
    expect(r.summary).toContain('sops-aws-sync validate');
    expect(r.summary).toContain('No plan was computed: this pull request comes from a fork');
    expect(r.summary).toContain('changes no file under a source root (secrets)');
    expect(r.summary).toContain('warning:not-planned');
    // The files were listed page by page with the token; no comment was written.
    const listed = filesRequests(before);
    expect(listed.map((q) => q.query)).toEqual(['per_page=100&page=1']);
    expect(listed.every((q) => q.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(commentRequests(before)).toEqual([]);
    expect(r.stdout).toContain('No plan was computed: no pull-request comment.');
    expectNoLeaks(r);
  });

  it('fork pull request that changes a secret: validate passes, the step fails saying a maintainer must plan it from a branch', async () => {
    // 150 files: the one under the source root is on the second page.
    files(...Array.from({ length: 149 }, (_, i) => `src/f${i}.go`), 'secrets/db.sops.json');
    const before = server.requests.length;
    const r = await runner.runAction({ inputs: inputs(), env: { ...(await event(true)), ...(await cli(0, validated)) } });
    expect(r.code).toBe(1);
    expect(errors(r)).toEqual([`::error::${MSG.unplannedChange}`]);
    expect(r.outputs.planned).toBe('false');
    expect(filesRequests(before).map((q) => q.query)).toEqual(['per_page=100&page=1', 'per_page=100&page=2']);
    expect(r.summary).toContain('No plan was computed: this pull request comes from a fork');
    expect(r.summary).toContain('changes 1 file under a source root or the config file');
    expect(r.summary).toContain(`Result: ${MSG.unplannedChange}`);
    expect(r.stdout).toContain('from a branch of this repository');
    expect(r.summary).not.toContain('db.sops.json');
    expect(commentRequests(before)).toEqual([]);
    expectNoLeaks(r);
  });

  it('fork pull request that renames a document out of the source root, or changes the config file: fails', async () => {
    server.pullFiles.set(`${REPO}#${PR}`, [{ filename: 'archive/db.sops.json', previous_filename: 'secrets/db.sops.json' }]);
    let r = await runner.runAction({ inputs: inputs(), env: { ...(await event(true)), ...(await cli(0, validated)) } });
    expect(errors(r)).toEqual([`::error::${MSG.unplannedChange}`]);

    files('sops-aws-sync.yaml');
    r = await runner.runAction({
      inputs: inputs({ 'config-file': 'sops-aws-sync.yaml', 'secret-prefix': '', 'source-root': '' }),
      env: { ...(await event(true)), ...(await cli(0, validated, roots('estate/prod', 'estate/staging'))) },
    });
    expect(errors(r)).toEqual([`::error::${MSG.unplannedChange}`]);

    // The same config-file job passes when only other files change, and
    // the roots are the CLI's, not the source-root default.
    files('secrets/untracked-here.txt', 'docs/x.md');
    r = await runner.runAction({
      inputs: inputs({ 'config-file': 'sops-aws-sync.yaml', 'secret-prefix': '', 'source-root': '' }),
      env: { ...(await event(true)), ...(await cli(0, validated, roots('estate/prod', 'estate/staging'))) },
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.summary).toContain('(estate/prod, estate/staging) and not the config file');
  });

  it('fails closed: files that cannot be listed, a CLI that lists no source root, an invalid document', async () => {
    server.pullFilesFault = 403;
    let r = await runner.runAction({ inputs: inputs(), env: { ...(await event(true)), ...(await cli(0, validated)) } });
    expect(errors(r)).toEqual([`::error::${MSG.unplannedChange}`]);
    expect(r.stdout).toContain('returned HTTP 403');
    server.pullFilesFault = undefined;

    files('README.md');
    r = await runner.runAction({ inputs: inputs(), env: { ...(await event(true)), ...(await cli(0, validated, null)) } });
    expect(errors(r)).toEqual([`::error::${MSG.unplannedChange}`]);

    // A committed plaintext document: validate exits 3, the invalid message, no listing needed.
    const before = server.requests.length;
    r = await runner.runAction({ inputs: inputs(), env: { ...(await event(true)), ...(await cli(3, invalid)) } });
    expect(errors(r)).toEqual([`::error::${MSG.invalid}`]);
    expect(r.outputs.planned).toBe('false');
    expect(r.outputs.status).toBe('invalid');
    expect(filesRequests(before)).toEqual([]);
  });

  it('fork-pull-requests: fail refuses at once, before anything is installed or run', async () => {
    await rm(standInArgs, { force: true });
    const before = server.requests.length;
    const r = await runner.runAction({ inputs: inputs({ 'fork-pull-requests': 'fail' }), env: await event(true) });
    expect(r.code).toBe(1);
    expect(errors(r)).toEqual([`::error::${MSG.forkRefused}`]);
    expect(r.outputs).toEqual({ planned: 'false' });
    expect(server.requests.length).toBe(before);
    expect(await isFile(standInArgs)).toBe(false);
  });

  it('mode sync for a fork pull request is refused, whatever fork-pull-requests says', async () => {
    await rm(standInArgs, { force: true });
    const r = await runner.runAction({ inputs: inputs({ mode: 'sync', 'fail-on-drift': 'false' }), env: { ...(await event(true)), ...secretsInEnv } });
    expect(errors(r)).toEqual([`::error::${MSG.invalid}`]);
    expect(r.stdout).toContain('never runs for a pull request from a fork');
    expect(await isFile(standInArgs)).toBe(false);
  });

  it('the repository\'s own pull request with credentials plans as before: planned true, plan with the keys', async () => {
    const r = await runner.runAction({
      inputs: inputs({ 'pull-request-comment': 'false' }),
      env: { ...(await event(false)), ...secretsInEnv, STANDIN_EXIT: '0', STANDIN_REPORT: validated },
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs.planned).toBe('true');
    const a = await args();
    expect(a[0]).toBe('plan');
    expect(a).not.toContain('--no-decrypt');
    expect(await readFile(standInEnv, 'utf8')).toContain(AGE_KEY);
  });

  it('no AWS credentials: on the repository\'s own pull request judged like a fork; outside a pull request it fails', async () => {
    files('README.md');
    let r = await runner.runAction({ inputs: inputs(), env: { ...(await event(false)), ...(await cli(0, validated)) } });
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs.planned).toBe('false');
    expect(r.summary).toContain('No plan was computed: the job has no AWS credentials');
    expect((await args())[0]).toBe('validate');

    files('secrets/a.sops.yaml');
    r = await runner.runAction({ inputs: inputs(), env: { ...(await event(false)), ...(await cli(0, validated)) } });
    expect(errors(r)).toEqual([`::error::${MSG.unplannedChange}`]);

    r = await runner.runAction({ inputs: inputs(), env: { GITHUB_EVENT_NAME: 'push', ...(await cli(0, validated)) } });
    expect(errors(r)).toEqual([`::error::${MSG.noCredentials}`]);
    expect(r.outputs.planned).toBe('false');

    // A self-hosted runner may have an instance role: it plans.
    r = await runner.runAction({ inputs: inputs(), env: { GITHUB_EVENT_NAME: 'push', RUNNER_ENVIRONMENT: 'self-hosted', STANDIN_EXIT: '0', STANDIN_REPORT: validated } });
    expect(r.outputs.planned).toBe('true');
    expect((await args())[0]).toBe('plan');
  });

  it('mode validate in a normal job: validate with the job\'s keys, planned false, passes on exit 0 and fails on exit 3', async () => {
    const before = server.requests.length;
    let r = await runner.runAction({
      inputs: inputs({ mode: 'validate', 'fail-on-drift': 'false' }),
      env: { GITHUB_EVENT_NAME: 'push', ...secretsInEnv, ...(await cli(0, validated)) },
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.outputs.planned).toBe('false');
    const a = await args();
    expect(a[0]).toBe('validate');
    expect(a).not.toContain('--no-decrypt');
    expect(a.some((x) => x.startsWith('--source-roots-file='))).toBe(false);
    expect(await readFile(standInEnv, 'utf8')).toContain(AGE_KEY);
    expect(r.summary).toContain('mode validate: no plan was computed');
    expect(r.summary).toContain('warning:not-planned');
    expect(filesRequests(before)).toEqual([]);

    r = await runner.runAction({ inputs: inputs({ mode: 'validate', 'fail-on-drift': 'false' }), env: { GITHUB_EVENT_NAME: 'push', ...(await cli(3, invalid)) } });
    expect(errors(r)).toEqual([`::error::${MSG.invalid}`]);
    expect(r.outputs.planned).toBe('false');

    // On a fork's pull request mode validate reads no key either.
    r = await runner.runAction({
      inputs: inputs({ mode: 'validate', 'fail-on-drift': 'false' }),
      env: { ...(await event(true)), ...secretsInEnv, ...(await cli(0, validated)) },
    });
    expect(r.code, r.stdout).toBe(0);
    expect(await args()).toContain('--no-decrypt');
    expect(await readFile(standInEnv, 'utf8')).not.toContain(AGE_KEY);
    expectNoLeaks(r);
  });
});
