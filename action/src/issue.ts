/**
 * The scheduled drift check's one issue (SPEC §8, input drift-issue): a
 * `plan` that found drift (exit 2) opens the scope's issue, or reopens it,
 * with the rendered plan as its body; a converged plan (exit 0) closes it
 * with a comment naming the verified commit; any other result leaves it
 * alone.
 *
 * The issue is found again by its label and a hidden marker (an HTML
 * comment, the whole first line of the body), through the Issues list API
 * with state=all — GET /repos/{owner}/{repo}/issues?state=all&labels=LABEL,
 * oldest first, every page — never by title (anyone can rename an issue)
 * and never through the search API, whose index lags behind writes, so a
 * run shortly after another would miss the issue it just opened and open a
 * second one. Only an issue the token's own identity opened counts (the
 * rule of the sticky comment, src/comment.ts isOwnComment): an issue anyone
 * else opened with the marker and the label is left alone.
 *
 * Writes (GitHub REST API, issues): POST /repos/{owner}/{repo}/issues
 * (title, body, labels), PATCH /repos/{owner}/{repo}/issues/{number} (body;
 * state with state_reason, which GitHub only accepts alongside a state), POST
 * /repos/{owner}/{repo}/issues/{number}/comments. The body is written only
 * when it differs from what the issue holds, so the same drift seen by every
 * scheduled run leaves the issue untouched.
 */
import { GitHubRest, isOwnComment, type CommentAuthor } from './comment.js';
import { legacyDigest, scopeDigest, type ScopeIdentity } from './identity.js';
import { targetRow } from './inputs.js';
import { capMarkdown, COMMENT_PLAN_MAX_BYTES } from './plan.js';

/** A drift-issue failure in our own words: the request and the HTTP status, never a body or the token. */
export class IssueError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'IssueError';
  }
}

/** Pages read at most (100 issues each); beyond them the Action fails rather than risk a second issue. */
export const MAX_ISSUE_PAGES = 100;

/** The hidden marker of one run's drift issue: an HTML comment holding the run's digest (src/identity.ts scopeDigest). */
export function driftMarker(id: ScopeIdentity): string {
  return `<!-- sops-aws-sync:drift:${scopeDigest(id)} -->`;
}

/** The marker earlier releases wrote for the same repository and prefix (legacyDigest): looked for only when the run has no issue of its own. */
export function legacyDriftMarker(id: ScopeIdentity): string {
  return `<!-- sops-aws-sync:drift:${legacyDigest(id)} -->`;
}

/**
 * The title of a new drift issue; fixed text (the service in the target's
 * words, TARGET_ROWS) and the run's digest, never the prefix. Never used to
 * find it.
 */
export function driftTitle(id: ScopeIdentity, service = targetRow('').service): string {
  return `sops-aws-sync: ${service} differs from Git (scope ${scopeDigest(id)})`;
}

/** The fixed line under the marker. */
export const DRIFT_NOTE =
  "_Opened by the sops-aws-sync Action's drift check. It edits this issue when the plan changes and closes it when AWS matches Git again; it finds the issue by its label and the hidden first line, so keep both._";

/**
 * The issue body: the marker line, the fixed note, then the rendering `show`
 * printed, cut like the pull-request comment (below GitHub's 65,536-character
 * body limit). Nothing else: the Action adds only fixed text.
 */
export function driftBody(marker: string, markdown: string): string {
  return `${marker}\n${DRIFT_NOTE}\n\n${capMarkdown(markdown, COMMENT_PLAN_MAX_BYTES).text}`;
}

/**
 * The comment that closes the issue: the verified commit (the report's
 * git_revision) and, when the runner names one, the run that verified it.
 */
export function closingComment(commit: string, runUrl: string | undefined, service = targetRow('').service): string {
  const at = /^[0-9a-f]{40}$/.test(commit) ? `commit \`${commit}\`` : 'the planned commit';
  const run = runUrl === undefined ? '' : ` ([run](${runUrl}))`;
  return `sops-aws-sync plan found ${service} equal to Git at ${at}: no drift is left, so this issue is closed${run}.`;
}

/**
 * The workflow run's page, from the runner's GITHUB_SERVER_URL,
 * GITHUB_REPOSITORY and GITHUB_RUN_ID, or undefined when one is missing or
 * malformed.
 */
export function runUrl(env: NodeJS.ProcessEnv): string | undefined {
  const repo = env.GITHUB_REPOSITORY ?? '';
  const id = env.GITHUB_RUN_ID ?? '';
  let server: URL;
  try {
    server = new URL(env.GITHUB_SERVER_URL ?? '');
  } catch {
    return undefined;
  }
  if (server.protocol !== 'https:' || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo) || !/^\d{1,20}$/.test(id)) return undefined;
  return `${server.origin}/${repo}/actions/runs/${id}`;
}

/** One issue as the reconciliation needs it. */
export interface Issue {
  number: number;
  open: boolean;
  /** '' when GitHub returns no body (null). */
  body: string;
  author: CommentAuthor;
}

/** A change to one issue: a new body, a new state, or both in one request. */
export interface IssueChange {
  body?: string;
  state?: { open: true; reason: 'reopened' } | { open: false; reason: 'completed' };
}

/** The issue calls and the token's identity; GitHubIssues is the REST implementation. */
export interface IssuesApi {
  /** The login the token acts as (GET /user), or undefined for an installation token, whose issues a bot account opens. */
  identity(): Promise<string | undefined>;
  /** One page (1-based, 100 per page, oldest first) of repo's issues, open and closed, carrying label; pull requests left out. */
  list(repo: string, label: string, page: number): Promise<{ issues: Issue[]; more: boolean }>;
  /** Opens an issue carrying label; returns its number. */
  create(repo: string, title: string, body: string, label: string): Promise<number>;
  edit(repo: string, number: number, change: IssueChange): Promise<void>;
  comment(repo: string, number: number, body: string): Promise<void>;
}

/** True when body is a drift issue of this marker: the marker is its whole first line. */
export function isDriftIssue(body: string, marker: string): boolean {
  return body === marker || body.startsWith(`${marker}\n`) || body.startsWith(`${marker}\r\n`);
}

/**
 * True when two bodies say the same: line endings and trailing white space
 * at the end are not compared (GitHub may store a body with CRLF), every
 * other character is.
 */
export function sameBody(a: string, b: string): boolean {
  const norm = (s: string): string => s.replace(/\r\n/g, '\n').trimEnd();
  return norm(a) === norm(b);
}

/**
 * Every issue of repo that carries label, whose first line is marker and
 * that the token's identity opened, oldest first. Reads every page; more
 * than MAX_ISSUE_PAGES pages is an IssueError (a partial view could hide the
 * issue and lead to a second one).
 */
export async function findDriftIssues(api: IssuesApi, repo: string, label: string, marker: string): Promise<Issue[]> {
  return (await scanDriftIssues(api, repo, label, marker, undefined)).own;
}

/** One scan of every page: the own issues of marker and, when legacy is given, those of legacy. */
async function scanDriftIssues(
  api: IssuesApi,
  repo: string,
  label: string,
  marker: string,
  legacy: string | undefined,
): Promise<{ own: Issue[]; legacy: Issue[] }> {
  const identity = await api.identity();
  const found: Issue[] = [];
  const old: Issue[] = [];
  for (let page = 1; ; page++) {
    if (page > MAX_ISSUE_PAGES) {
      throw new IssueError(`More than ${MAX_ISSUE_PAGES * 100} issues carry the drift label; the drift issue cannot be told apart safely`);
    }
    const { issues, more } = await api.list(repo, label, page);
    for (const i of issues) {
      if (!isOwnComment(i.author, identity)) continue;
      if (isDriftIssue(i.body, marker)) found.push(i);
      else if (legacy !== undefined && isDriftIssue(i.body, legacy)) old.push(i);
    }
    if (!more) return { own: found, legacy: old };
  }
}

/** What the reconciliation did, for the log. */
export type IssueOutcome =
  | { action: 'opened' | 'reopened' | 'edited' | 'unchanged'; number: number }
  | { action: 'closed'; numbers: number[] }
  | { action: 'none' };

/**
 * The issues a run acts on: the own issues of marker, or, when there are
 * none and legacy is given (the marker an earlier release wrote for a
 * coarser identity, legacyDriftMarker), the own issues of legacy.
 */
async function ownIssues(api: IssuesApi, repo: string, label: string, marker: string, legacy: string | undefined): Promise<Issue[]> {
  const found = await scanDriftIssues(api, repo, label, marker, legacy === marker ? undefined : legacy);
  return found.own.length > 0 ? found.own : found.legacy;
}

/**
 * Drift (exit 2): makes the scope's one issue open with body. The issue is
 * the oldest own open one, else the oldest own closed one (reopened), else a
 * new one. Its body is written only when it differs; an open issue with the
 * same body gets no write at all. An issue found by legacy gets the new
 * body, whose first line is marker: it is this run's from then on.
 */
export async function reportDrift(
  api: IssuesApi,
  repo: string,
  label: string,
  marker: string,
  title: string,
  body: string,
  legacy?: string,
): Promise<IssueOutcome> {
  const own = await ownIssues(api, repo, label, marker, legacy);
  const target = own.find((i) => i.open) ?? own[0];
  if (target === undefined) return { action: 'opened', number: await api.create(repo, title, body, label) };
  const change: IssueChange = {};
  if (!sameBody(target.body, body)) change.body = body;
  if (!target.open) change.state = { open: true, reason: 'reopened' };
  if (change.body === undefined && change.state === undefined) return { action: 'unchanged', number: target.number };
  await api.edit(repo, target.number, change);
  return { action: target.open ? 'edited' : 'reopened', number: target.number };
}

/**
 * Convergence (exit 0): closes every own open drift issue of the scope (one,
 * unless an earlier race left two) with comment, then state closed, reason
 * completed. Nothing open: no write. With no issue of marker at all, the
 * open issues of legacy are closed the same way (their marker stays, so a
 * run that still drifts reopens and takes one over).
 */
export async function reportConvergence(
  api: IssuesApi,
  repo: string,
  label: string,
  marker: string,
  comment: string,
  legacy?: string,
): Promise<IssueOutcome> {
  const open = (await ownIssues(api, repo, label, marker, legacy)).filter((i) => i.open);
  if (open.length === 0) return { action: 'none' };
  for (const i of open) {
    await api.comment(repo, i.number, comment);
    await api.edit(repo, i.number, { state: { open: false, reason: 'completed' } });
  }
  return { action: 'closed', numbers: open.map((i) => i.number) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The issue calls over the REST API at base (apiBase), with the token as bearer credential. */
export class GitHubIssues extends GitHubRest implements IssuesApi {
  protected fail(reason: string): Error {
    return new IssueError(reason);
  }

  async list(repo: string, label: string, page: number): Promise<{ issues: Issue[]; more: boolean }> {
    const what = 'Listing the issues with the drift label';
    const q = `state=all&labels=${encodeURIComponent(label)}&sort=created&direction=asc&per_page=100&page=${page}`;
    const res = await this.send(what, () => this.http.get(`${this.base}/repos/${repo}/issues?${q}`, this.headers()), 200);
    const doc = this.json(res.body, what);
    if (!Array.isArray(doc)) throw this.fail(`${what} returned an unexpected document`);
    const issues: Issue[] = [];
    for (const i of doc as unknown[]) {
      // Every pull request is an issue too; the list marks them with a pull_request key.
      if (!isRecord(i) || i.pull_request !== undefined || typeof i.number !== 'number') continue;
      if (i.state !== 'open' && i.state !== 'closed') continue;
      const u = isRecord(i.user) ? i.user : {};
      const author = { login: typeof u.login === 'string' ? u.login : '', bot: u.type === 'Bot' };
      // An issue without a readable author is nobody's: never edited.
      if (author.login === '') continue;
      issues.push({ number: i.number, open: i.state === 'open', body: typeof i.body === 'string' ? i.body : '', author });
    }
    // As for comments: only whether a next page exists is read from the Link header.
    return { issues, more: /<[^>]*>\s*;\s*rel="?next"?/.test(res.link) };
  }

  async create(repo: string, title: string, body: string, label: string): Promise<number> {
    const what = 'Opening the drift issue';
    const payload = JSON.stringify({ title, body, labels: [label] });
    const res = await this.send(what, () => this.http.post(`${this.base}/repos/${repo}/issues`, payload, this.headers()), 201);
    const doc = this.json(res.body, what);
    if (!isRecord(doc) || typeof doc.number !== 'number') throw this.fail(`${what} returned an unexpected document`);
    // GitHub silently drops labels a token may not set; an issue without the
    // label would never be found again, and every later run would open
    // another one.
    const labels = Array.isArray(doc.labels) ? (doc.labels as unknown[]) : [];
    const labelled = labels.some((l) => (isRecord(l) ? l.name === label : l === label));
    if (!labelled) throw this.fail(`${what} gave issue #${doc.number} without the drift label (the token may not set labels)`);
    return doc.number;
  }

  async edit(repo: string, number: number, change: IssueChange): Promise<void> {
    const what = `Editing drift issue #${number}`;
    const payload: Record<string, string> = {};
    if (change.body !== undefined) payload.body = change.body;
    if (change.state !== undefined) {
      payload.state = change.state.open ? 'open' : 'closed';
      payload.state_reason = change.state.reason;
    }
    const url = `${this.base}/repos/${repo}/issues/${number}`;
    await this.send(what, () => this.http.patch(url, JSON.stringify(payload), this.headers()), 200);
  }

  async comment(repo: string, number: number, body: string): Promise<void> {
    const what = `Commenting on drift issue #${number}`;
    const url = `${this.base}/repos/${repo}/issues/${number}/comments`;
    await this.send(what, () => this.http.post(url, JSON.stringify({ body }), this.headers()), 201);
  }
}
