/**
 * Applying the reviewed plan (SPEC §14), the decisions: which artifact a
 * plan job uploads, whether a sync looks for one, which pull request, run
 * and artifact it takes, and what the step does when there is none. Pure:
 * every function is of the values it is given (GitHub's answers as plain
 * facts); src/reviewed.ts does the I/O.
 *
 * The rules (docs/github-action.md, "Applying the reviewed plan"):
 * - Only a push to the default branch has a reviewed plan: the pull request
 *   merged as this commit (its merge_commit_sha is the pushed SHA, its base
 *   the default branch). A direct push, a scheduled or manual run has none.
 * - Of that pull request, the newest pull_request run for its head commit
 *   that lists the pull request and holds an unexpired artifact named for
 *   this scope identity. A plan job uploads the artifact only when its plan
 *   ended drift or converged (a plan that can be applied), so a run that
 *   holds one is a run whose plan succeeded, whatever the conclusion of the
 *   workflow run (fail-on-drift fails the run whenever there is drift).
 * - A plan of another pull request (not listed by the run, another head
 *   commit) or of another identity (another artifact name) is never taken.
 */
import { createHash } from 'node:crypto';
import type { ScopeIdentity } from './identity.js';

/** The file inside the plan artifact: the plan file the CLI wrote. */
export const PLAN_ARTIFACT_FILE = 'sops-aws-sync-plan.json';

/** The longest plan file taken from an artifact, as the CLI reads one (64 MiB). */
export const MAX_PLAN_BYTES = 64 << 20;

const ROLE_ACCOUNT = /^arn:[a-z-]+:(?:iam|sts)::(\d{12}):/;

/**
 * The name of the plan artifact of one scope identity:
 * `sops-aws-sync-plan-` and the first 16 hex digits of the SHA-256 of the
 * JSON array ["sops-aws-sync/plan-artifact/v1", repositoryId, sourceRoot,
 * secretPrefix, region, account, profile, configFile, [scopes, sorted]].
 * It is the comment's identity (src/identity.ts) with the role replaced by
 * its account: the plan job and the sync job of one scope assume different
 * roles (a read-only plan role, the writer role) of one account, and the
 * account is what tells two estates apart. account is the aws-account-id
 * input, else the account of AWS_ROLE_ARN, else ''. Values are hashed,
 * never shown.
 */
export function planArtifactName(id: ScopeIdentity): string {
  const account = id.account !== '' ? id.account : (ROLE_ACCOUNT.exec(id.role)?.[1] ?? '');
  const key = [
    'sops-aws-sync/plan-artifact/v1',
    id.repositoryId,
    id.sourceRoot,
    id.secretPrefix,
    id.region,
    account,
    id.profile,
    id.configFile,
    [...id.scopes].sort(),
  ];
  return `sops-aws-sync-plan-${createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16)}`;
}

/** How a plan run ended, as the report and the exit code say. */
export interface PlanEnd {
  event: string;
  status: string;
  exitCode: number;
  planFile: boolean;
  /** The runner gives the artifact service (ACTIONS_RUNTIME_TOKEN and ACTIONS_RESULTS_URL set, as GitHub's runners do for every action). */
  service: boolean;
}

/**
 * Whether a plan run uploads its plan file as the plan artifact, and why
 * not: only on a pull_request event (the runs a later sync looks at), only
 * a plan that can be applied (status drift or converged, exit 0, or 2 with
 * --detailed-exit-code), only when the CLI wrote the file, and only on a
 * runner that gives the artifact service.
 */
export function uploadDecision(end: PlanEnd): { upload: true } | { upload: false; why: string } {
  if (end.event !== 'pull_request') return { upload: false, why: `the run is for a ${end.event || 'unknown'} event, not pull_request` };
  if (!(end.status === 'drift' || end.status === 'converged') || !(end.exitCode === 0 || end.exitCode === 2)) {
    return { upload: false, why: `the plan ended ${end.status}: only a plan that ended drift or converged can be applied` };
  }
  if (!end.planFile) return { upload: false, why: 'the CLI wrote no plan file' };
  if (!end.service) return { upload: false, why: 'the runner gives no artifact service (ACTIONS_RUNTIME_TOKEN, ACTIONS_RESULTS_URL)' };
  return { upload: true };
}

/** The push a sync runs for: GITHUB_EVENT_NAME, GITHUB_REF, GITHUB_SHA and the payload's repository.default_branch. */
export interface PushFacts {
  event: string;
  ref: string;
  sha: string;
  defaultBranch: string | undefined;
}

/** Why there is no reviewed plan, in our words: what happened and what to do. */
export interface NoPlan {
  kind: 'none';
  why: string;
}

/** Whether a sync looks for a reviewed plan: only on a push to the default branch. */
export function lookupStart(f: PushFacts): { kind: 'lookup'; branch: string } | NoPlan {
  if (f.event !== 'push') {
    return { kind: 'none', why: `the run is for a ${f.event || 'unknown'} event: only a push to the default branch has a merged pull request's plan` };
  }
  if (f.defaultBranch === undefined || f.defaultBranch === '') return { kind: 'none', why: 'the push event names no default branch' };
  if (f.ref !== `refs/heads/${f.defaultBranch}`) return { kind: 'none', why: 'the push is not to the default branch' };
  if (!/^[0-9a-f]{40}$/.test(f.sha)) return { kind: 'none', why: 'GITHUB_SHA is not a commit SHA' };
  return { kind: 'lookup', branch: f.defaultBranch };
}

/** A pull request as GET /repos/{owner}/{repo}/commits/{sha}/pulls lists it. */
export interface PullFact {
  number: number;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  baseRef: string;
  headSha: string;
}

/**
 * The pull request merged as commit sha into branch: merged, its
 * merge_commit_sha the pushed commit (a merge, squash or rebase merge made
 * by GitHub), its base the default branch. None: a direct push (a commit
 * pushed to the branch, or a pull request merged outside GitHub).
 */
export function mergedPullRequest(pulls: readonly PullFact[], sha: string, branch: string): PullFact | NoPlan {
  const hits = pulls.filter((p) => p.mergedAt !== null && p.mergeCommitSha === sha && p.baseRef === branch);
  if (hits.length === 1 && hits[0] !== undefined) return hits[0];
  if (hits.length > 1) return { kind: 'none', why: `several pull requests name commit ${sha.slice(0, 12)} as their merge commit` };
  return { kind: 'none', why: `no pull request was merged as commit ${sha.slice(0, 12)} (a direct push, or a merge made outside GitHub)` };
}

/** A workflow run as GET /repos/{owner}/{repo}/actions/runs lists it. */
export interface RunFact {
  id: number;
  event: string;
  headSha: string;
  status: string;
  /** The numbers of the pull requests the run lists. */
  pullRequests: readonly number[];
  /** ISO 8601 time the run was created. */
  createdAt: string;
}

/**
 * The runs that may hold the pull request's plan, newest first: completed
 * pull_request runs of its head commit that list it. A run of another pull
 * request, or of the same pull request's earlier head, is never one.
 */
export function planRuns(runs: readonly RunFact[], pr: PullFact): RunFact[] {
  return runs
    .filter((r) => r.event === 'pull_request' && r.status === 'completed' && r.headSha === pr.headSha && r.pullRequests.includes(pr.number))
    .sort((a, b) => (a.createdAt === b.createdAt ? b.id - a.id : a.createdAt < b.createdAt ? 1 : -1));
}

/** An artifact as GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts lists it. */
export interface ArtifactFact {
  id: number;
  name: string;
  expired: boolean;
  /** The run it belongs to (workflow_run.id). */
  runId: number | undefined;
  /** "sha256:<hex>" when GitHub recorded it. */
  digest: string | undefined;
}

/** The plan artifact of run, if it holds one: named name, of that run; expired when only an expired one is there. */
export function pickArtifact(artifacts: readonly ArtifactFact[], name: string, run: RunFact): ArtifactFact | 'expired' | 'absent' {
  const named = artifacts.filter((a) => a.name === name && a.runId === run.id);
  const live = named.filter((a) => !a.expired).sort((a, b) => b.id - a.id)[0];
  if (live !== undefined) return live;
  return named.length > 0 ? 'expired' : 'absent';
}

/** The reviewed plan found: the pull request, the run, the artifact. */
export interface FoundPlan {
  kind: 'found';
  pr: number;
  run: number;
  artifact: ArtifactFact;
}

/**
 * The outcome of looking through the candidate runs (planRuns order), given
 * what pickArtifact said of each run looked at: the first run with an
 * artifact, else why there is none.
 */
export function concludeLookup(pr: PullFact, looked: readonly { run: RunFact; pick: ReturnType<typeof pickArtifact> }[]): FoundPlan | NoPlan {
  for (const l of looked) {
    if (typeof l.pick === 'object') return { kind: 'found', pr: pr.number, run: l.run.id, artifact: l.pick };
  }
  if (looked.some((l) => l.pick === 'expired')) {
    return { kind: 'none', why: `the plan artifact of pull request #${pr.number} has expired (the repository's artifact retention)` };
  }
  if (looked.length === 0) {
    return { kind: 'none', why: `pull request #${pr.number} has no completed pull_request run for its head commit` };
  }
  return {
    kind: 'none',
    why: `no run of pull request #${pr.number} for its head commit holds this scope's plan artifact (the plan job was skipped, stopped before a plan, planned another scope, or ran an Action without the upload)`,
  };
}

/**
 * A lookup that could not be made (a request refused, an answer of an
 * unexpected form, a download that failed or did not match its digest), as
 * the reason judgeReview puts after "No reviewed plan: ": a leading
 * capitalised word lowercased (an identifier such as GITHUB_REPOSITORY
 * kept), a trailing period dropped.
 */
export function lookupFailure(reason: string): NoPlan {
  const why = reason.replace(/\.$/, '');
  return { kind: 'none', why: /^[A-Z][a-z]/.test(why) ? why.charAt(0).toLowerCase() + why.slice(1) : why };
}

/** What the step does about the reviewed plan. */
export type ReviewVerdict =
  | { kind: 'apply'; plan: FoundPlan; line: string }
  | { kind: 'without'; line: string }
  | { kind: 'fail'; reason: string; line: string };

/** What to do when require-reviewed-plan is true and there is no plan. */
export const REQUIRE_NEXT =
  'Merge the change through a pull request whose plan job ran this Action in plan mode, or, to apply this commit as it is, ' +
  'review `plan` of this commit and run the sync once with require-reviewed-plan: false (a workflow_dispatch run).';

/**
 * The step's decision, pure: a plan found is applied (the CLI gets
 * --reviewed-plan); none, or a lookup that failed, fails the step when
 * require-reviewed-plan is true (before the CLI runs: nothing is written),
 * else the sync runs as without this feature and the job summary says that
 * no reviewed plan was applied, and why.
 */
export function judgeReview(outcome: FoundPlan | NoPlan, requireReviewed: boolean): ReviewVerdict {
  if (outcome.kind === 'found') {
    return {
      kind: 'apply',
      plan: outcome,
      line: `Reviewed plan: the plan of pull request #${outcome.pr} (workflow run ${outcome.run}) was given to sops-aws-sync sync --reviewed-plan; it applies that plan or nothing.`,
    };
  }
  if (requireReviewed) {
    return {
      kind: 'fail',
      reason: `No reviewed plan: ${outcome.why}. require-reviewed-plan is true, so nothing was applied. ${REQUIRE_NEXT}`,
      line: `No reviewed plan was applied: ${outcome.why}. require-reviewed-plan is true: the sync did not run.`,
    };
  }
  return { kind: 'without', line: `No reviewed plan was applied: ${outcome.why}. The sync applied this commit as it is (require-reviewed-plan is false).` };
}
