/**
 * Applying the reviewed plan (SPEC §14), the I/O: a plan job uploads its
 * plan file as a workflow artifact (@actions/artifact: the Actions results
 * service through ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL, no
 * GITHUB_TOKEN permission); a sync job on a push to the default branch
 * finds the pull request merged as its commit and downloads that pull
 * request's plan (GitHub REST through @actions/github's Octokit with
 * github-token: GET /repos/{owner}/{repo}/commits/{sha}/pulls
 * (pull-requests: read), GET /repos/{owner}/{repo}/actions/runs and
 * .../runs/{run_id}/artifacts, and the artifact download (actions: read)).
 * Every decision is src/review.ts's; this file only asks and moves bytes.
 * Reasons name a request and an HTTP status, never a URL (a signed storage
 * URL carries a token), a body or the token.
 */
import { chmod, copyFile, lstat, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultArtifactClient } from '@actions/artifact';
import * as core from '@actions/core';
import { getOctokit } from '@actions/github';
import { apiBase } from './github.js';
import { scopeIdentity } from './identity.js';
import type { Inputs } from './inputs.js';
import { ActionFailure, Message } from './messages.js';
import {
  concludeLookup,
  judgeReview,
  lookupFailure,
  lookupStart,
  MAX_PLAN_BYTES,
  mergedPullRequest,
  pickArtifact,
  PLAN_ARTIFACT_FILE,
  planArtifactName,
  planRuns,
  uploadDecision,
  type ArtifactFact,
  type FoundPlan,
  type NoPlan,
  type PlanEnd,
  type PullFact,
  type RunFact,
} from './review.js';

/** A lookup that could not be made, in our words. */
class LookupError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A fresh private (0700) directory under RUNNER_TEMP. */
async function privateDir(env: NodeJS.ProcessEnv, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(env.RUNNER_TEMP || tmpdir(), prefix));
  await chmod(dir, 0o700);
  return dir;
}

/** Appends one line to the job summary (when the runner gives one). */
export async function summaryLine(line: string): Promise<void> {
  if (!process.env.GITHUB_STEP_SUMMARY) return;
  await core.summary.addRaw(line, true).write();
}

/**
 * Uploads the plan file of a plan run as the scope identity's plan
 * artifact when uploadDecision says so. Never throws: a failure is the
 * fixed warning and a reason line (the sync that needs it will say that it
 * found none).
 */
export async function uploadPlan(inputs: Inputs, env: NodeJS.ProcessEnv, planPath: string, end: PlanEnd): Promise<void> {
  const d = uploadDecision(end);
  if (!d.upload) {
    core.info(`The plan file is not uploaded as an artifact: ${d.why}.`);
    return;
  }
  const name = planArtifactName(scopeIdentity(inputs, env));
  try {
    const dir = await privateDir(env, 'sops-aws-sync-artifact-');
    const file = join(dir, PLAN_ARTIFACT_FILE);
    await copyFile(planPath, file);
    const up = await new DefaultArtifactClient().uploadArtifact(name, [file], dir);
    core.info(`Uploaded the plan file as artifact ${name} (id ${String(up.id)}).`);
    await summaryLine(`Plan artifact: \`${name}\`. A sync of this pull request's merge commit applies this plan or nothing.`);
  } catch {
    core.warning(Message.planUploadWarning);
    core.info(`The artifact ${name} could not be uploaded (the Actions artifact service refused it or could not be reached); a sync with require-reviewed-plan: true will find no reviewed plan.`);
  }
}

/** The default branch the push event's payload names (repository.default_branch), if any. */
async function defaultBranch(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const payload: unknown = JSON.parse(await readFile(env.GITHUB_EVENT_PATH ?? '', 'utf8'));
    const repo = isRecord(payload) ? payload.repository : undefined;
    const b = isRecord(repo) ? repo.default_branch : undefined;
    return typeof b === 'string' ? b : undefined;
  } catch {
    return undefined;
  }
}

/** What a failed request says: the request and its HTTP status, and the permission it needs. */
function requestFailure(what: string, permission: string, e: unknown): LookupError {
  const status = isRecord(e) && typeof e.status === 'number' ? e.status : undefined;
  if (status === undefined) return new LookupError(`${what} could not reach the GitHub API`);
  const hint = status === 401 || status === 403 || status === 404 ? ` (github-token needs ${permission})` : '';
  return new LookupError(`${what} returned HTTP ${status}${hint}`);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

type Octokit = ReturnType<typeof getOctokit>;

/** GET /repos/{owner}/{repo}/commits/{sha}/pulls as PullFacts. */
async function pullsOf(api: Octokit, owner: string, repo: string, sha: string): Promise<PullFact[]> {
  let data: unknown;
  try {
    ({ data } = await api.rest.repos.listPullRequestsAssociatedWithCommit({ owner, repo, commit_sha: sha, per_page: 100 }));
  } catch (e) {
    throw requestFailure('The pull requests of the commit', 'pull-requests: read', e);
  }
  if (!Array.isArray(data)) throw new LookupError('The pull requests of the commit came back in an unexpected form');
  const out: PullFact[] = [];
  for (const p of data as unknown[]) {
    if (!isRecord(p)) continue;
    const number = num(p.number);
    const base = isRecord(p.base) ? str(p.base.ref) : undefined;
    const head = isRecord(p.head) ? str(p.head.sha) : undefined;
    if (number === undefined || base === undefined || head === undefined) continue;
    out.push({ number, mergedAt: str(p.merged_at) ?? null, mergeCommitSha: str(p.merge_commit_sha) ?? null, baseRef: base, headSha: head });
  }
  return out;
}

/** GET /repos/{owner}/{repo}/actions/runs?head_sha&event=pull_request&status=completed as RunFacts. */
async function runsOf(api: Octokit, owner: string, repo: string, headSha: string): Promise<RunFact[]> {
  let data: unknown;
  try {
    ({ data } = await api.rest.actions.listWorkflowRunsForRepo({ owner, repo, head_sha: headSha, event: 'pull_request', status: 'completed', per_page: 100 }));
  } catch (e) {
    throw requestFailure('The workflow runs of the pull request', 'actions: read', e);
  }
  const runs = isRecord(data) && Array.isArray(data.workflow_runs) ? (data.workflow_runs as unknown[]) : undefined;
  if (runs === undefined) throw new LookupError('The workflow runs came back in an unexpected form');
  const out: RunFact[] = [];
  for (const r of runs) {
    if (!isRecord(r)) continue;
    const id = num(r.id);
    if (id === undefined) continue;
    const prs = Array.isArray(r.pull_requests) ? (r.pull_requests as unknown[]) : [];
    out.push({
      id,
      event: str(r.event) ?? '',
      headSha: str(r.head_sha) ?? '',
      status: str(r.status) ?? '',
      pullRequests: prs.flatMap((p) => (isRecord(p) && num(p.number) !== undefined ? [num(p.number) as number] : [])),
      createdAt: str(r.created_at) ?? '',
    });
  }
  return out;
}

/** GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts?name as ArtifactFacts. */
async function artifactsOf(api: Octokit, owner: string, repo: string, runId: number, name: string): Promise<ArtifactFact[]> {
  let data: unknown;
  try {
    ({ data } = await api.rest.actions.listWorkflowRunArtifacts({ owner, repo, run_id: runId, name, per_page: 100 }));
  } catch (e) {
    throw requestFailure(`The artifacts of workflow run ${runId}`, 'actions: read', e);
  }
  const list = isRecord(data) && Array.isArray(data.artifacts) ? (data.artifacts as unknown[]) : undefined;
  if (list === undefined) throw new LookupError('The artifacts came back in an unexpected form');
  const out: ArtifactFact[] = [];
  for (const a of list) {
    if (!isRecord(a)) continue;
    const id = num(a.id);
    if (id === undefined) continue;
    out.push({
      id,
      name: str(a.name) ?? '',
      expired: a.expired === true,
      runId: isRecord(a.workflow_run) ? num(a.workflow_run.id) : undefined,
      digest: str(a.digest),
    });
  }
  return out;
}

/** Candidate runs looked at, at most (newest first). */
const MAX_RUNS_LOOKED_AT = 20;

/** Finds the reviewed plan of this push (src/review.ts decides each step). */
async function lookup(api: Octokit, owner: string, repo: string, sha: string, branch: string, name: string): Promise<FoundPlan | NoPlan> {
  const pr = mergedPullRequest(await pullsOf(api, owner, repo, sha), sha, branch);
  if ('kind' in pr) return pr;
  const looked: { run: RunFact; pick: ReturnType<typeof pickArtifact> }[] = [];
  for (const run of planRuns(await runsOf(api, owner, repo, pr.headSha), pr).slice(0, MAX_RUNS_LOOKED_AT)) {
    const pick = pickArtifact(await artifactsOf(api, owner, repo, run.id, name), name, run);
    looked.push({ run, pick });
    if (typeof pick === 'object') break;
  }
  return concludeLookup(pr, looked);
}

/** Downloads the found plan's artifact into a fresh private directory and returns the plan file's path. */
async function download(env: NodeJS.ProcessEnv, token: string, owner: string, repo: string, plan: FoundPlan): Promise<string> {
  const dir = await privateDir(env, 'sops-aws-sync-reviewed-');
  let mismatch: boolean;
  try {
    const got = await new DefaultArtifactClient().downloadArtifact(plan.artifact.id, {
      path: dir,
      ...(plan.artifact.digest !== undefined ? { expectedHash: plan.artifact.digest } : {}),
      findBy: { token, workflowRunId: plan.run, repositoryOwner: owner, repositoryName: repo },
    });
    mismatch = got.digestMismatch === true;
  } catch {
    throw new LookupError(`The plan artifact of pull request #${plan.pr} could not be downloaded (github-token needs actions: read)`);
  }
  if (mismatch) throw new LookupError(`The plan artifact of pull request #${plan.pr} does not match the digest GitHub recorded for it`);
  const entries = await readdir(dir);
  const file = join(dir, PLAN_ARTIFACT_FILE);
  const st = entries.length === 1 && entries[0] === PLAN_ARTIFACT_FILE ? await lstat(file) : undefined;
  if (st === undefined || !st.isFile() || st.size > MAX_PLAN_BYTES) {
    throw new LookupError(`The plan artifact of pull request #${plan.pr} does not hold exactly one plan file`);
  }
  return file;
}

/** The CLI arguments and the job-summary line of the reviewed plan. */
export interface ReviewedPlan {
  args: string[];
  line: string;
}

/**
 * For a sync: looks for the reviewed plan of this push and downloads it.
 * Returns the CLI arguments (`--reviewed-plan=FILE`, or none) and the line
 * for the job summary. With require-reviewed-plan and no plan, writes the
 * line to the summary and throws the noReviewedPlan failure: the CLI never
 * runs. Without it, a lookup that failed is the fixed warning and the sync
 * runs without a plan.
 */
export async function reviewedPlan(inputs: Inputs, env: NodeJS.ProcessEnv): Promise<ReviewedPlan> {
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const start = lookupStart({
    event: env.GITHUB_EVENT_NAME ?? '',
    ref: env.GITHUB_REF ?? '',
    sha: env.GITHUB_SHA ?? '',
    defaultBranch: await defaultBranch(env),
  });
  let outcome: FoundPlan | NoPlan = start.kind === 'none' ? start : { kind: 'none', why: 'not looked up' };
  let file: string | undefined;
  if (start.kind === 'lookup') {
    try {
      if (!/^[A-Za-z0-9_.-]+$/.test(owner) || !/^[A-Za-z0-9_.-]+$/.test(repo)) throw new LookupError('GITHUB_REPOSITORY is not owner/repo');
      const api = getOctokit(inputs.githubToken, { baseUrl: apiBase(env) });
      const name = planArtifactName(scopeIdentity(inputs, env));
      outcome = await lookup(api, owner, repo, env.GITHUB_SHA ?? '', start.branch, name);
      if (outcome.kind === 'found') file = await download(env, inputs.githubToken, owner, repo, outcome);
    } catch (e) {
      const why = e instanceof LookupError ? e.message : e instanceof ActionFailure && e.reason !== undefined ? e.reason : 'the lookup failed unexpectedly';
      outcome = lookupFailure(why);
      if (!inputs.requireReviewedPlan) core.warning(Message.reviewLookupWarning);
    }
  }
  const verdict = judgeReview(outcome, inputs.requireReviewedPlan);
  core.info(verdict.line);
  if (verdict.kind === 'fail') {
    await summaryLine(verdict.line);
    throw new ActionFailure(Message.noReviewedPlan, verdict.reason);
  }
  return { args: verdict.kind === 'apply' && file !== undefined ? [`--reviewed-plan=${file}`] : [], line: verdict.line };
}
