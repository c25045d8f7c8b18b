/**
 * Runs without a plan (SPEC §15): `mode: validate`, and the plan a job
 * cannot or must not compute — a pull request from a fork (its head
 * repository is not the base repository: GitHub gives it no secrets and no
 * OIDC token, and its change is untrusted) or a job without AWS
 * credentials. Such a run checks the documents with `validate --no-decrypt`
 * and never passes as if a plan had been reviewed: on a pull request it
 * passes only when the pull request changes no file a scope reads (a
 * source root, the config file); elsewhere it fails.
 *
 * Everything here is pure: the facts (environment, event payload, whether
 * a shared AWS file exists, the pull request's files, the CLI's source
 * roots) are read by main.ts and src/pulls.ts and handed in.
 */
import { posix } from 'node:path';
import { Message, type FixedMessage } from './messages.js';

/** The fork-pull-requests input: validate instead of plan, or fail at once. */
export type ForkPolicy = 'validate' | 'fail';

/** What the event payload says about the pull request the run is for. */
export interface PullRequestFacts {
  /** The pull request's number. */
  number: number;
  /** Its head repository is not the base repository (or is gone: a deleted fork). */
  fork: boolean;
}

/** Events whose payload is a pull request (GITHUB_EVENT_NAME), as for the comment. */
const PR_EVENTS = new Set(['pull_request', 'pull_request_target']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The repository of a pull request's head or base: its numeric id and full name, when given. */
function repoOf(side: unknown): { id: unknown; name: unknown } | undefined {
  if (!isRecord(side) || !isRecord(side.repo)) return undefined;
  return { id: side.repo.id, name: side.repo.full_name };
}

/**
 * The pull request of a pull_request or pull_request_target event, from its
 * payload (GitHub's webhook payload: pull_request.number,
 * pull_request.head.repo and pull_request.base.repo), or undefined for any
 * other event or a payload without a positive pull request number. The
 * head is a fork unless both repositories are given and are the same one:
 * the same numeric id when both have one, else the same full name (GitHub
 * compares names without regard to case). A head repository of null (the
 * fork was deleted) or a payload that does not say is a fork: the run then
 * computes no plan, which can only fail a check, never pass one.
 */
export function pullRequestFacts(eventName: string, payload: unknown): PullRequestFacts | undefined {
  if (!PR_EVENTS.has(eventName) || !isRecord(payload) || !isRecord(payload.pull_request)) return undefined;
  const pr = payload.pull_request;
  const n = pr.number;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) return undefined;
  const head = repoOf(pr.head);
  const base = repoOf(pr.base);
  let same = false;
  if (head !== undefined && base !== undefined) {
    if (typeof head.id === 'number' && typeof base.id === 'number') same = head.id === base.id;
    else if (typeof head.name === 'string' && typeof base.name === 'string' && head.name !== '') {
      same = head.name.toLowerCase() === base.name.toLowerCase();
    }
  }
  return { number: n, fork: !same };
}

/**
 * Variables through which the AWS SDK's default chain finds credentials
 * (static keys, web identity, a named profile, the container credentials
 * endpoint), and the runner's OIDC token request URL, present when the job
 * was granted `id-token: write` (aws-actions/configure-aws-credentials
 * turns it into credentials).
 */
export const AWS_CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_PROFILE',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
] as const;

/**
 * Whether the job may reach AWS. It may not only when all of these hold:
 * the runner is GitHub-hosted (RUNNER_ENVIRONMENT github-hosted: a
 * self-hosted runner may have an instance or container role no variable
 * shows), none of AWS_CREDENTIAL_VARIABLES is set, and no shared AWS
 * credentials or config file exists (sharedFile: AWS_SHARED_CREDENTIALS_FILE
 * or ~/.aws/credentials, AWS_CONFIG_FILE or ~/.aws/config). Anything else
 * counts as credentials: a plan without working ones fails on its own, so a
 * wrong guess here can fail a job but never pass one.
 */
export function mayReachAws(env: NodeJS.ProcessEnv, sharedFile: boolean): boolean {
  if (env.RUNNER_ENVIRONMENT !== 'github-hosted') return true;
  if (sharedFile) return true;
  return AWS_CREDENTIAL_VARIABLES.some((name) => (env[name] ?? '') !== '');
}

/** Why a plan run computes no plan. */
export type NoPlanReason = 'fork' | 'no-credentials';

/** What the step runs, decided before the CLI is installed (chooseRun). */
export type RunChoice =
  /** plan or sync as asked: planned true. */
  | { kind: 'plan' }
  /** mode validate: validate with the job's keys (none on a fork: --no-decrypt), planned false. */
  | { kind: 'validate'; noDecrypt: boolean; pullRequest: PullRequestFacts | undefined }
  /** A plan run that computes no plan: validate --no-decrypt, then judgeNoPlan. */
  | { kind: 'no-plan'; reason: NoPlanReason; pullRequest: PullRequestFacts | undefined }
  /** Fail at once, nothing installed or run. */
  | { kind: 'refuse'; message: FixedMessage; detail: string };

export interface RunFacts {
  mode: 'plan' | 'sync' | 'validate';
  forkPolicy: ForkPolicy;
  pullRequest: PullRequestFacts | undefined;
  /** mayReachAws. */
  awsReachable: boolean;
}

/**
 * The run for the facts (docs/github-action.md, "Pull requests from forks
 * and jobs without AWS credentials"):
 * - a fork's pull request: sync is refused (its change is not reviewed, and
 *   pull_request_target would hand it the job's credentials); plan is
 *   refused with fork-pull-requests fail, else replaced by validate
 *   --no-decrypt; validate runs with --no-decrypt (a fork's run reads no
 *   secret);
 * - otherwise a plan without AWS credentials (mayReachAws) is replaced by
 *   validate --no-decrypt; validate runs with the job's keys; plan and sync
 *   run as asked (sync without credentials fails in the CLI).
 */
export function chooseRun(f: RunFacts): RunChoice {
  const fork = f.pullRequest?.fork === true;
  if (f.mode === 'validate') return { kind: 'validate', noDecrypt: fork, pullRequest: f.pullRequest };
  if (fork && f.mode === 'sync') {
    return {
      kind: 'refuse',
      message: Message.invalid,
      detail: 'mode sync never runs for a pull request from a fork: sync the merged commit on the protected branch.',
    };
  }
  if (fork && f.forkPolicy === 'fail') {
    return {
      kind: 'refuse',
      message: Message.forkRefused,
      detail: `Pull request #${f.pullRequest?.number ?? 0} comes from a fork and fork-pull-requests is fail: no plan and no check were run. A maintainer can plan it from a branch of this repository (docs/github-action.md).`,
    };
  }
  if (fork) return { kind: 'no-plan', reason: 'fork', pullRequest: f.pullRequest };
  if (f.mode === 'plan' && !f.awsReachable) return { kind: 'no-plan', reason: 'no-credentials', pullRequest: f.pullRequest };
  return { kind: 'plan' };
}

/** The sentence the job summary and the log give for a run without a plan. */
export function noPlanSentence(reason: NoPlanReason): string {
  return reason === 'fork'
    ? 'No plan was computed: this pull request comes from a fork, whose run gets no AWS credentials and must read no secret. sops-aws-sync ran `validate --no-decrypt` (the checks that need no key) instead.'
    : 'No plan was computed: the job has no AWS credentials (no AWS credential variable, no shared AWS file, no OIDC token, on a GitHub-hosted runner). sops-aws-sync ran `validate --no-decrypt` (the checks that need no key) instead.';
}

/** One file of a pull request (GET /repos/{owner}/{repo}/pulls/{n}/files). */
export interface ChangedFile {
  /** Repository-relative path after the change. */
  filename: string;
  /** For a rename, the path before it. */
  previousFilename?: string;
}

/**
 * The most files GET /repos/{owner}/{repo}/pulls/{n}/files lists (GitHub
 * REST API, "List pull requests files": at most 3000 files): a listing this
 * long may have left some out.
 */
export const MAX_LISTED_FILES = 3000;

/** A repository-relative path in clean form ("" when it leaves the repository or is absolute). */
function cleanRel(p: string): string {
  const n = posix.normalize(p.replace(/\\/g, '/'));
  if (n.startsWith('/') || n === '..' || n.startsWith('../')) return '';
  return n === '.' ? '.' : n.replace(/\/+$/, '');
}

/** True when path lies at or under root ("." is the whole repository). */
export function isUnder(path: string, root: string): boolean {
  const r = cleanRel(root);
  const p = cleanRel(path);
  if (r === '' || p === '') return false;
  return r === '.' || p === r || p.startsWith(`${r}/`);
}

/**
 * The paths of files (after and, for a rename, before the change) that a
 * scope reads: under one of the source roots, or the config file itself
 * (configFile repository-relative, "" for none). Sorted, each once.
 */
export function secretsChanges(files: readonly ChangedFile[], sourceRoots: readonly string[], configFile: string): string[] {
  const config = configFile === '' ? '' : cleanRel(configFile);
  const hit = new Set<string>();
  for (const f of files) {
    for (const p of [f.filename, f.previousFilename]) {
      if (p === undefined) continue;
      if ((config !== '' && cleanRel(p) === config) || sourceRoots.some((r) => isUnder(p, r))) hit.add(p);
    }
  }
  return [...hit].sort();
}

/** What the step learnt about the pull request's files (src/pulls.ts), for judgeNoPlan. */
export type FilesRead =
  | { kind: 'listed'; files: ChangedFile[] }
  /** The listing failed; reason names the request and the HTTP status. */
  | { kind: 'failed'; reason: string };

/** What ends a run without a plan whose validate passed. */
export type NoPlanVerdict =
  | { kind: 'pass'; detail: string }
  | { kind: 'fail'; message: FixedMessage; detail: string };

/**
 * The step's result once validate --no-decrypt passed in a run without a
 * plan: outside a pull request it fails (nothing tells that no plan was
 * needed); on a pull request it fails when the pull request changes a file
 * a scope reads (secretsChanges), when its files cannot be listed, or when
 * the listing may be cut (MAX_LISTED_FILES), and passes otherwise.
 * sourceRoots undefined: the CLI wrote no source-roots file (fails).
 */
export function judgeNoPlan(
  reason: NoPlanReason,
  pullRequest: PullRequestFacts | undefined,
  sourceRoots: readonly string[] | undefined,
  configFile: string,
  files: FilesRead | undefined,
): NoPlanVerdict {
  const branch = 'A maintainer must run the plan from a branch of this repository (docs/github-action.md, "Pull requests from forks").';
  if (pullRequest === undefined) {
    return {
      kind: 'fail',
      message: Message.noCredentials,
      detail: 'No plan was computed and the run is not for a pull request, so nothing tells that none was needed. Give the job AWS credentials.',
    };
  }
  const unplanned = (detail: string): NoPlanVerdict => ({ kind: 'fail', message: Message.unplannedChange, detail: `${detail} ${branch}` });
  if (sourceRoots === undefined || sourceRoots.length === 0) return unplanned('The CLI did not list the source roots, so the pull request may change secrets.');
  if (files === undefined || files.kind === 'failed') {
    const why = files === undefined ? 'were not listed' : `could not be listed: ${files.reason}`;
    return unplanned(`The files of pull request #${pullRequest.number} ${why}, so it may change secrets.`);
  }
  if (files.files.length >= MAX_LISTED_FILES) {
    return unplanned(`Pull request #${pullRequest.number} changes ${MAX_LISTED_FILES} or more files, more than GitHub lists, so it may change secrets.`);
  }
  const hits = secretsChanges(files.files, sourceRoots, configFile);
  if (hits.length > 0) {
    return unplanned(`Pull request #${pullRequest.number} changes ${hits.length} file${hits.length === 1 ? '' : 's'} under a source root or the config file.`);
  }
  return {
    kind: 'pass',
    detail: `Pull request #${pullRequest.number} changes no file under a source root (${sourceRoots.join(', ')})${configFile === '' ? '' : ' and not the config file'}: there is no plan to review.`,
  };
}

/** Variables kept in a run that must read no secret although their prefix is dropped. */
const KEPT = new Set(['AWS_REGION', 'AWS_DEFAULT_REGION']);

/**
 * The child environment of a run that must read no secret (a fork's pull
 * request, a run without a plan): without every AWS_* variable but the
 * Region, every SOPS_* variable but the CLI's own settings
 * (SOPS_AWS_SYNC_*), and the key material variables of the other key
 * services SOPS can use (Vault, GCP, Azure, GnuPG's home).
 */
export function withoutSecrets(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    const u = k.toUpperCase();
    const dropped =
      (u.startsWith('AWS_') && !KEPT.has(u)) ||
      (u.startsWith('SOPS_') && !u.startsWith('SOPS_AWS_SYNC_')) ||
      /^(VAULT_|GOOGLE_|CLOUDSDK_|AZURE_|ARM_)/.test(u) ||
      u === 'GNUPGHOME';
    if (!dropped) out[k] = v;
  }
  return out;
}
