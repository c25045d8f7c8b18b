/**
 * End-to-end tests of applying the reviewed plan (SPEC §14,
 * docs/github-action.md "Applying the reviewed plan"): the bundled Action
 * run as the runner runs it, with a stand-in CLI release, against the
 * loopback GitHub stand-in (test/e2e/github-stand-in.ts). The real
 * @actions/artifact client uploads through the results service and the blob
 * storage stand-ins; the sync job's lookup and download go through the REST
 * stand-in. A plan job and a sync job are two runs of the Action, as in a
 * workflow: what the first uploaded is what the second downloads.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GitHubStandIn, unzip, type StoredRun } from './github-stand-in.js';
import {
  freshDir,
  hostPlatform,
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
  noReviewedPlan: 'sops-aws-sync found no reviewed plan to apply',
  lookupWarning: 'sops-aws-sync could not look up the reviewed plan',
};

const host = hostPlatform();
const TOKEN = `ghs_e2e${randomBytes(12).toString('hex')}`;
const STANDIN = '0.0.0-standin.4';
const REPO = 'acme/infra';
const PLAN_FILE = 'sops-aws-sync-plan.json';
// The plan job and the sync job assume different roles of one account.
const PLAN_ROLE = 'arn:aws:iam::123456789012:role/secrets-plan';
const SYNC_ROLE = 'arn:aws:iam::123456789012:role/secrets-sync';

/**
 * The documented artifact name (docs/github-action.md), computed here
 * independently of src/review.ts: repository id, source root (the CLI
 * default), prefix, Region (none set), the roles' account, no profile, no
 * config file, no scopes.
 */
function artifactNameOf(prefix: string): string {
  const key = ['sops-aws-sync/plan-artifact/v1', REPO, 'secrets', prefix, '', '123456789012', '', '', []];
  return `sops-aws-sync-plan-${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}`;
}

const sha = (tag: string): string => createHash('sha1').update(tag).digest('hex');

let work: string;
let server: ReleaseServer;
let gh: GitHubStandIn;
let runner: Runner;
let standInArgs: string;
let standInReviewed: string;

beforeAll(async () => {
  work = await freshDir('sops-aws-sync-reviewed-e2e-');
  const binDir = join(work, 'bin');
  standInArgs = join(work, 'standin.args');
  standInReviewed = join(work, 'standin.reviewed');
  await writeStandInGh(binDir);
  server = new ReleaseServer(join(work, 'attested.txt'), join(work, 'commits.txt'));
  await server.start();
  gh = new GitHubStandIn(server, REPO, TOKEN);
  await makeStandInRelease(join(work, 'release'), STANDIN, host.goos, host.goarch);
  await server.addRelease(`v${STANDIN}`, join(work, 'release'), { withDigests: false });
  runner = new Runner(work, {
    PATH: pathWith(binDir),
    HOME: work,
    GITHUB_API_URL: server.base,
    GITHUB_REPOSITORY: REPO,
    GITHUB_WORKSPACE: work,
    RUNNER_OS: host.runnerOs,
    RUNNER_ARCH: host.runnerArch,
    ACTIONS_RESULTS_URL: gh.resultsUrl,
    GH_STANDIN_LOG: join(work, 'gh.log'),
    GH_STANDIN_ATTESTED: join(work, 'attested.txt'),
    GH_STANDIN_COMMITS: join(work, 'commits.txt'),
    STANDIN_ARGS: standInArgs,
    STANDIN_ENV: join(work, 'standin.env'),
    STANDIN_REVIEWED: standInReviewed,
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

describe('Action with a stand-in CLI release: the reviewed plan (artifact upload, lookup, download)', () => {
  /** A plan file whose canary must never reach a log, the summary or an output. */
  const planOf = (tag: string) => {
    const canary = `PLANCANARY-${tag}-${randomBytes(6).toString('hex')}`;
    const json = JSON.stringify({ schema_version: 'sops-aws-sync/plan/v3', command: 'plan', stand_in_canary: canary });
    return { json, canary };
  };
  const inputs = (over: Record<string, string> = {}) => ({
    'secret-prefix': 'apps/prod',
    'cli-version': STANDIN,
    'github-token': TOKEN,
    ...over,
  });
  const drift = reportJson({ tool_version: STANDIN, status: 'drift', git_revision: 'a'.repeat(40) }, { update: 1 });
  const converged = reportJson({ tool_version: STANDIN, status: 'converged', verification: 'converged', git_revision: 'a'.repeat(40) });

  /** The plan job of pull request pr at head: a pull_request run whose plan ended drift and wrote plan. */
  const planJob = async (run: StoredRun, pr: number, plan: string, over: Record<string, string> = {}): Promise<ActionRun> => {
    const event = join(work, `event-${randomUUID()}.json`);
    await writeFile(event, JSON.stringify(pullRequestPayload(pr, REPO)));
    const md = join(work, `show-${randomUUID()}.md`);
    await writeFile(md, '### sops-aws-sync plan\n\n1 to update\n');
    return runner.runAction({
      inputs: inputs({ mode: 'plan', ...over }),
      env: {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event,
        GITHUB_REF: `refs/pull/${pr}/merge`,
        GITHUB_SHA: sha(`test-merge-${pr}-${run.id}`),
        AWS_ROLE_ARN: PLAN_ROLE,
        ACTIONS_RUNTIME_TOKEN: gh.runtimeToken(run),
        STANDIN_EXIT: '0',
        STANDIN_REPORT: drift,
        STANDIN_PLAN: plan,
        STANDIN_SHOW_MARKDOWN: md,
      },
    });
  };

  /** The sync job of a push of commit to main. */
  const syncJob = async (commit: string, over: Record<string, string> = {}): Promise<ActionRun> => {
    const event = join(work, `event-${randomUUID()}.json`);
    await writeFile(event, JSON.stringify({ ref: 'refs/heads/main', after: commit, repository: { full_name: REPO, default_branch: 'main' } }));
    await rm(standInArgs, { force: true });
    await rm(standInReviewed, { force: true });
    const syncRun = gh.addRun({ event: 'push', headSha: commit, pullRequests: [], createdAt: '2026-12-06T12:00:00Z', status: 'in_progress', conclusion: null });
    return runner.runAction({
      inputs: inputs({ mode: 'sync', ...over }),
      env: {
        GITHUB_EVENT_NAME: 'push',
        GITHUB_EVENT_PATH: event,
        GITHUB_REF: 'refs/heads/main',
        GITHUB_SHA: commit,
        AWS_ROLE_ARN: SYNC_ROLE,
        ACTIONS_RUNTIME_TOKEN: gh.runtimeToken(syncRun),
        STANDIN_EXIT: '0',
        STANDIN_REPORT: converged,
      },
    });
  };

  /** A pull request merged as merge into main from head. */
  const merged = (number: number, merge: string, head: string) => {
    gh.addPull(merge, { number, mergedAt: '2026-12-06T11:00:00Z', mergeCommitSha: merge, baseRef: 'main', headSha: head });
  };

  const cliArgs = async (): Promise<string[]> => (await readFile(standInArgs, 'utf8')).trim().split('\n');
  const reviewedArg = (args: string[]) => args.find((a) => a.startsWith('--reviewed-plan'));
  /** REST requests of the lookup and download, since index from. */
  const zipRequests = (from: number) => server.requests.slice(from).filter((q) => /\/actions\/artifacts\/\d+\/zip$/.test(q.path));

  /** Nothing of the plan, the token or the runtime token in a log line, the summary or an output. */
  const expectNoLeaks = (r: ActionRun, ...canaries: string[]) => {
    const visible = r.stdout
      .split('\n')
      .filter((l) => !l.startsWith('::add-mask::'))
      .join('\n');
    for (const text of [visible, r.stderr, r.summary, JSON.stringify(r.outputs)]) {
      expect(text).not.toContain(TOKEN);
      for (const c of canaries) expect(text).not.toContain(c);
      expect(text).not.toContain('stand_in_canary');
    }
  };

  /** The step failed with the fixed message before the CLI ran for the sync. */
  const expectRefusedBeforeTheCli = (r: ActionRun, why: string) => {
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(annotations(r.stdout).filter((l) => l.startsWith('::error'))).toEqual([`::error::${MSG.noReviewedPlan}`]);
    expect(r.stdout).toContain(`No reviewed plan: ${why}`);
    expect(r.stdout).toContain('require-reviewed-plan is true, so nothing was applied.');
    expect(r.summary).toContain(`No reviewed plan was applied: ${why}`);
    expect(r.summary).toContain('require-reviewed-plan is true: the sync did not run.');
    expect(existsSync(standInArgs)).toBe(false);
    expect(r.outputs.status).toBeUndefined();
  };

  afterEach(() => {
    gh.reset();
  });

  it('plan on a pull_request uploads the plan file as the scope identity\'s artifact: one CreateArtifact, the blob, one FinalizeArtifact; the zip holds exactly the plan file', async () => {
    const head = sha('head-11');
    const run = gh.addRun({ headSha: head, pullRequests: [11], createdAt: '2026-12-06T10:00:00Z' });
    const plan = planOf('upload');
    const from = server.requests.length;
    const r = await planJob(run, 11, plan.json);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(annotations(r.stdout)).toEqual([]);
    const name = artifactNameOf('apps/prod');
    // The results service saw exactly the upload's two calls, with this job's runtime token and backend ids.
    expect(gh.twirpCalls.map((c) => c.method)).toEqual(['CreateArtifact', 'FinalizeArtifact']);
    for (const c of gh.twirpCalls) {
      expect(c.body).toMatchObject({ workflow_run_backend_id: run.backendId, workflow_job_run_backend_id: run.jobBackendId, name });
      expect(gh.runOfToken(c.bearer)).toBe(run);
    }
    // The Azure client staged the zip as blocks on the signed URL, then committed the block list.
    const blob = server.requests.slice(from).filter((q) => q.path.startsWith('/blob/upload/'));
    const comps = blob.map((q) => `${q.method} ${new URLSearchParams(q.query).get('comp') ?? ''}`);
    expect(comps.length).toBeGreaterThanOrEqual(2);
    expect(comps.slice(0, -1).every((c) => c === 'PUT block')).toBe(true);
    expect(comps.at(-1)).toBe('PUT blocklist');
    const [artifact, ...more] = gh.artifactsOf(run);
    expect(more).toEqual([]);
    expect(artifact?.name).toBe(name);
    expect(gh.twirpCalls[1]?.body.hash).toBe(artifact?.digest);
    const entries = unzip(artifact?.zip ?? Buffer.alloc(0));
    expect(entries.map((e) => e.name)).toEqual([PLAN_FILE]);
    expect(entries[0]?.data.toString('utf8')).toBe(plan.json);
    expect(r.stdout).toContain(`Uploaded the plan file as artifact ${name} (id ${String(artifact?.id)}).`);
    expect(r.summary).toContain(`Plan artifact: \`${name}\`.`);
    expectNoLeaks(r, plan.canary);
  });

  it('sync on the push of the merge commit finds the merged pull request, its newest plan run for the head commit, downloads the artifact and passes it as --reviewed-plan', async () => {
    const head = sha('head-12');
    const older = gh.addRun({ headSha: head, pullRequests: [12], createdAt: '2026-12-06T09:00:00Z' });
    const newer = gh.addRun({ headSha: head, pullRequests: [12], createdAt: '2026-12-06T10:00:00Z' });
    const first = planOf('older-run');
    const reviewed = planOf('newest-run');
    expect((await planJob(older, 12, first.json)).code).toBe(0);
    expect((await planJob(newer, 12, reviewed.json)).code).toBe(0);
    const merge = sha('merge-12');
    merged(12, merge, head);
    const from = server.requests.length;
    const r = await syncJob(merge);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(annotations(r.stdout)).toEqual([]);
    const artifact = gh.artifactsOf(newer)[0];
    // The lookup: the pulls of the commit, the runs of the head, the newest run's artifacts by name, its zip.
    const asked = server.requests.slice(from).filter((q) => q.path.startsWith(`/repos/${REPO}/`));
    expect(asked.map((q) => q.path)).toEqual([
      `/repos/${REPO}/commits/${merge}/pulls`,
      `/repos/${REPO}/actions/runs`,
      `/repos/${REPO}/actions/runs/${newer.id}/artifacts`,
      `/repos/${REPO}/actions/artifacts/${String(artifact?.id)}/zip`,
    ]);
    expect(new URLSearchParams(asked[1]?.query).get('head_sha')).toBe(head);
    expect(new URLSearchParams(asked[2]?.query).get('name')).toBe(artifactNameOf('apps/prod'));
    expect(asked.every((q) => q.authorization === `token ${TOKEN}`)).toBe(true);
    expect(gh.downloads).toEqual([artifact?.id]);
    // The sync uploads nothing and asks the results service nothing: the download is the REST one.
    expect(gh.twirpCalls.map((c) => c.method)).toEqual(['CreateArtifact', 'FinalizeArtifact', 'CreateArtifact', 'FinalizeArtifact']);
    // The CLI ran sync with the downloaded file, whose bytes are what the newest plan job uploaded.
    const args = await cliArgs();
    expect(args[0]).toBe('sync');
    const file = reviewedArg(args)?.slice('--reviewed-plan='.length) ?? '';
    expect(file.startsWith(r.runnerTemp)).toBe(true);
    expect(file.endsWith(`/${PLAN_FILE}`)).toBe(true);
    expect(await readFile(standInReviewed, 'utf8')).toBe(reviewed.json);
    expect(r.summary).toContain(`Reviewed plan: the plan of pull request #12 (workflow run ${newer.id}) was given to sops-aws-sync sync --reviewed-plan`);
    expectNoLeaks(r, first.canary, reviewed.canary);
  });

  it('require-reviewed-plan true, a direct push (no pull request merged as the commit): fails with the fixed message, the CLI never runs', async () => {
    const commit = sha('direct-push');
    const r = await syncJob(commit, { 'require-reviewed-plan': 'true' });
    expectRefusedBeforeTheCli(r, `no pull request was merged as commit ${commit.slice(0, 12)} (a direct push, or a merge made outside GitHub)`);
    expect(gh.downloads).toEqual([]);
  });

  it('require-reviewed-plan true, the plan job uploaded nothing (it stopped before a plan): fails before the CLI runs', async () => {
    const head = sha('head-13');
    const run = gh.addRun({ headSha: head, pullRequests: [13], createdAt: '2026-12-06T10:00:00Z', conclusion: 'failure' });
    // A plan that ended invalid is not uploaded.
    const invalid = reportJson({ tool_version: STANDIN, status: 'invalid', git_revision: 'a'.repeat(40) });
    const e = join(work, `event-${randomUUID()}.json`);
    await writeFile(e, JSON.stringify(pullRequestPayload(13, REPO)));
    const stopped = await runner.runAction({
      inputs: inputs({ mode: 'plan' }),
      env: {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: e,
        GITHUB_SHA: sha('test-merge-13'),
        AWS_ROLE_ARN: PLAN_ROLE,
        ACTIONS_RUNTIME_TOKEN: gh.runtimeToken(run),
        STANDIN_EXIT: '3',
        STANDIN_REPORT: invalid,
        STANDIN_PLAN: planOf('stopped').json,
      },
    });
    expect(stopped.code).toBe(1);
    expect(gh.twirpCalls).toEqual([]);
    expect(stopped.stdout).toContain('The plan file is not uploaded as an artifact: the plan ended invalid');
    const merge = sha('merge-13');
    merged(13, merge, head);
    const r = await syncJob(merge, { 'require-reviewed-plan': 'true' });
    expectRefusedBeforeTheCli(r, 'no run of pull request #13 for its head commit holds this scope\'s plan artifact');
    expect(gh.downloads).toEqual([]);
  });

  it('require-reviewed-plan true, the plan artifact expired: fails before the CLI runs, nothing downloaded', async () => {
    const head = sha('head-14');
    const run = gh.addRun({ headSha: head, pullRequests: [14], createdAt: '2026-12-06T10:00:00Z' });
    expect((await planJob(run, 14, planOf('expired').json)).code).toBe(0);
    for (const a of gh.artifactsOf(run)) a.expired = true;
    const merge = sha('merge-14');
    merged(14, merge, head);
    const from = server.requests.length;
    const r = await syncJob(merge, { 'require-reviewed-plan': 'true' });
    expectRefusedBeforeTheCli(r, 'the plan artifact of pull request #14 has expired (the repository\'s artifact retention)');
    expect(zipRequests(from)).toEqual([]);
    expect(gh.downloads).toEqual([]);
  });

  it('require-reviewed-plan false, a direct push: the sync runs as before, without --reviewed-plan, and the summary says no reviewed plan was applied', async () => {
    const commit = sha('direct-push-2');
    const r = await syncJob(commit);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(annotations(r.stdout)).toEqual([]);
    const args = await cliArgs();
    expect(args[0]).toBe('sync');
    expect(reviewedArg(args)).toBeUndefined();
    expect(existsSync(standInReviewed)).toBe(false);
    expect(r.outputs.status).toBe('converged');
    expect(r.summary).toContain(
      `No reviewed plan was applied: no pull request was merged as commit ${commit.slice(0, 12)} (a direct push, or a merge made outside GitHub). The sync applied this commit as it is (require-reviewed-plan is false).`,
    );
  });

  it('require-reviewed-plan false, the plan artifact expired: the sync runs without --reviewed-plan, the summary says why', async () => {
    const head = sha('head-15');
    const run = gh.addRun({ headSha: head, pullRequests: [15], createdAt: '2026-12-06T10:00:00Z' });
    expect((await planJob(run, 15, planOf('expired-2').json)).code).toBe(0);
    for (const a of gh.artifactsOf(run)) a.expired = true;
    const merge = sha('merge-15');
    merged(15, merge, head);
    const r = await syncJob(merge, { 'require-reviewed-plan': 'false' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(reviewedArg(await cliArgs())).toBeUndefined();
    expect(r.summary).toContain('No reviewed plan was applied: the plan artifact of pull request #15 has expired');
    expect(gh.downloads).toEqual([]);
  });

  it('a plan of another pull request is never used: a run of the same head commit that lists only another pull request', async () => {
    const head = sha('head-16');
    // Pull request #17 from the same branch head planned; #16 was merged and never planned.
    const other = gh.addRun({ headSha: head, pullRequests: [17], createdAt: '2026-12-06T10:00:00Z' });
    const plan = planOf('other-pr');
    expect((await planJob(other, 17, plan.json)).code).toBe(0);
    expect(gh.artifactsOf(other).map((a) => a.name)).toEqual([artifactNameOf('apps/prod')]);
    const merge = sha('merge-16');
    merged(16, merge, head);
    const strict = await syncJob(merge, { 'require-reviewed-plan': 'true' });
    expectRefusedBeforeTheCli(strict, 'pull request #16 has no completed pull_request run for its head commit');
    const lax = await syncJob(merge);
    expect(lax.code, lax.stdout + lax.stderr).toBe(0);
    expect(reviewedArg(await cliArgs())).toBeUndefined();
    expect(existsSync(standInReviewed)).toBe(false);
    expect(gh.downloads).toEqual([]);
    expectNoLeaks(lax, plan.canary);
  });

  it('a plan of another head commit is never used: the pull request\'s plan of an earlier push to its branch', async () => {
    const earlier = sha('head-18-earlier');
    const head = sha('head-18');
    const run = gh.addRun({ headSha: earlier, pullRequests: [18], createdAt: '2026-12-06T10:00:00Z' });
    expect((await planJob(run, 18, planOf('earlier-head').json)).code).toBe(0);
    expect(gh.artifactsOf(run)).toHaveLength(1);
    const merge = sha('merge-18');
    merged(18, merge, head);
    const strict = await syncJob(merge, { 'require-reviewed-plan': 'true' });
    expectRefusedBeforeTheCli(strict, 'pull request #18 has no completed pull_request run for its head commit');
    const lax = await syncJob(merge);
    expect(lax.code, lax.stdout + lax.stderr).toBe(0);
    expect(reviewedArg(await cliArgs())).toBeUndefined();
    expect(gh.downloads).toEqual([]);
  });

  it('a plan of another scope is never used: only the run\'s artifact of this scope identity\'s name is downloaded', async () => {
    const head = sha('head-19');
    const run = gh.addRun({ headSha: head, pullRequests: [19], createdAt: '2026-12-06T10:00:00Z' });
    const staging = planOf('staging');
    expect((await planJob(run, 19, staging.json, { 'secret-prefix': 'apps/staging' })).code).toBe(0);
    expect(gh.artifactsOf(run).map((a) => a.name)).toEqual([artifactNameOf('apps/staging')]);
    const merge = sha('merge-19');
    merged(19, merge, head);
    // Only the other scope planned: none for apps/prod.
    const strict = await syncJob(merge, { 'require-reviewed-plan': 'true' });
    expectRefusedBeforeTheCli(strict, 'no run of pull request #19 for its head commit holds this scope\'s plan artifact');
    expect(gh.downloads).toEqual([]);
    // Both scopes planned in the run: each sync takes its own.
    const prod = planOf('prod');
    expect((await planJob(run, 19, prod.json)).code).toBe(0);
    const r = await syncJob(merge, { 'require-reviewed-plan': 'true' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const prodArtifact = gh.artifactsOf(run).find((a) => a.name === artifactNameOf('apps/prod'));
    expect(gh.downloads).toEqual([prodArtifact?.id]);
    expect(await readFile(standInReviewed, 'utf8')).toBe(prod.json);
    const s = await syncJob(merge, { 'require-reviewed-plan': 'true', 'secret-prefix': 'apps/staging' });
    expect(s.code, s.stdout + s.stderr).toBe(0);
    expect(await readFile(standInReviewed, 'utf8')).toBe(staging.json);
    expectNoLeaks(r, staging.canary, prod.canary);
  });

  it('an artifact whose bytes differ from the digest GitHub recorded is never used (storage serves another plan\'s zip)', async () => {
    const head = sha('head-20');
    const run = gh.addRun({ headSha: head, pullRequests: [20], createdAt: '2026-12-06T10:00:00Z' });
    const other = gh.addRun({ headSha: sha('head-21'), pullRequests: [21], createdAt: '2026-12-06T10:00:00Z' });
    expect((await planJob(run, 20, planOf('genuine').json)).code).toBe(0);
    const swapped = planOf('swapped');
    expect((await planJob(other, 21, swapped.json)).code).toBe(0);
    const [genuine] = gh.artifactsOf(run);
    const [foreign] = gh.artifactsOf(other);
    if (genuine === undefined || foreign === undefined) throw new Error('no artifact uploaded');
    gh.served.set(genuine.id, foreign.zip);
    const merge = sha('merge-20');
    merged(20, merge, head);
    const r = await syncJob(merge, { 'require-reviewed-plan': 'true' });
    expectRefusedBeforeTheCli(r, 'the plan artifact of pull request #20 does not match the digest GitHub recorded for it');
    expect(gh.downloads).toEqual([genuine.id]);
    expectNoLeaks(r, swapped.canary);
  });
});
