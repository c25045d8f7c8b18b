/**
 * The sticky pull-request comment: one comment per scope,
 * found again by its hidden marker (src/plan.ts planMarker) and edited, never
 * duplicated. GitHub REST API, issue comments (every pull request is an
 * issue): GET /repos/{owner}/{repo}/issues/{number}/comments (paginated,
 * ascending id), POST the same path, PATCH
 * /repos/{owner}/{repo}/issues/comments/{comment_id}. A failure here is never
 * the step's result: the caller turns a CommentError into a warning.
 *
 * Only a comment the token's own identity wrote is ever edited: anyone who
 * can comment on the pull request can start a comment with the marker, and
 * editing theirs would put the plan under a comment its author can rewrite
 * afterwards. The identity is GET /user's login for a user token (a personal
 * access token); an installation token (GITHUB_TOKEN, a GitHub App) cannot
 * read /user (403), and its comments are written by a bot account
 * (user.type "Bot", such as github-actions[bot]), which no one commenting
 * on a pull request can impersonate.
 */
import { readFile } from 'node:fs/promises';
import { HttpClient } from '@actions/http-client';

/** A comment failure in our own words: the request and the HTTP status, never a body or the token. */
export class CommentError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CommentError';
  }
}

/** Where the comment goes: owner/repo and the pull request's number. */
export interface PullRequestTarget {
  repo: string;
  number: number;
}

/** Events whose payload is a pull request (GITHUB_EVENT_NAME). */
const PR_EVENTS = new Set(['pull_request', 'pull_request_target']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The pull request of this run: GITHUB_EVENT_NAME must be pull_request or
 * pull_request_target, GITHUB_EVENT_PATH's payload must carry
 * pull_request.number, and GITHUB_REPOSITORY (the base repository, also for
 * a pull request from a fork) names the repository. Throws a CommentError.
 */
export async function pullRequestTarget(env: NodeJS.ProcessEnv): Promise<PullRequestTarget> {
  const event = env.GITHUB_EVENT_NAME ?? '';
  if (!PR_EVENTS.has(event)) throw new CommentError('the run is not for a pull_request or pull_request_target event');
  const repo = env.GITHUB_REPOSITORY ?? '';
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) throw new CommentError('GITHUB_REPOSITORY is not owner/repo');
  let payload: unknown;
  try {
    payload = JSON.parse(await readFile(env.GITHUB_EVENT_PATH ?? '', 'utf8'));
  } catch {
    throw new CommentError('the event payload (GITHUB_EVENT_PATH) cannot be read');
  }
  const pr = isRecord(payload) ? payload.pull_request : undefined;
  const n = isRecord(pr) ? pr.number : undefined;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n <= 0) {
    throw new CommentError('the event payload has no pull request number');
  }
  return { repo, number: n };
}

/** Who wrote a comment: the account's login and whether it is a bot account (user.type "Bot"). */
export interface CommentAuthor {
  login: string;
  bot: boolean;
}

/** One issue comment as the upsert needs it. */
export interface IssueComment {
  id: number;
  body: string;
  author: CommentAuthor;
}

/** The issue-comment calls and the token's identity; GitHubComments is the REST implementation. */
export interface IssueCommentsApi {
  /** The login the token acts as (GET /user), or undefined for an installation token, whose comments a bot account writes. */
  identity(): Promise<string | undefined>;
  /** One page (1-based, 100 per page, ascending id) and whether another follows. */
  list(target: PullRequestTarget, page: number): Promise<{ comments: IssueComment[]; more: boolean }>;
  create(target: PullRequestTarget, body: string): Promise<number>;
  update(target: PullRequestTarget, id: number, body: string): Promise<void>;
}

/** Pages read at most while looking for the marker (100 comments each). */
export const MAX_COMMENT_PAGES = 100;

/** True when body is a plan comment of this marker: the marker is its whole first line. */
export function isPlanComment(body: string, marker: string): boolean {
  return body === marker || body.startsWith(`${marker}\n`);
}

/**
 * True when the token's identity wrote the comment: the login GET /user
 * gave (a user token), or, for an installation token (identity undefined),
 * a bot account.
 */
export function isOwnComment(author: CommentAuthor, identity: string | undefined): boolean {
  return identity === undefined ? author.bot : !author.bot && author.login === identity;
}

/**
 * Edits the oldest comment that the token's identity wrote and whose first
 * line is marker, or creates one when none exists; returns what it did. A
 * marked comment by anyone else is left alone. Bodies are only compared,
 * never logged.
 *
 * legacy, when given, is the marker an earlier release wrote for a coarser
 * identity (src/plan.ts legacyPlanMarker): when no own comment carries
 * marker, the oldest own comment carrying legacy is edited instead, and the
 * new body (which starts with marker) moves it to this run's identity, so
 * the next run of another Region finds it no longer and keeps its own.
 */
export async function upsertComment(
  api: IssueCommentsApi,
  target: PullRequestTarget,
  marker: string,
  body: string,
  legacy?: string,
): Promise<{ action: 'created' | 'updated'; id: number }> {
  const identity = await api.identity();
  let old: IssueComment | undefined;
  for (let page = 1; page <= MAX_COMMENT_PAGES; page++) {
    const { comments, more } = await api.list(target, page);
    const own = comments.filter((c) => isOwnComment(c.author, identity));
    const hit = own.find((c) => isPlanComment(c.body, marker));
    if (hit !== undefined) {
      await api.update(target, hit.id, body);
      return { action: 'updated', id: hit.id };
    }
    if (legacy !== undefined && legacy !== marker) old ??= own.find((c) => isPlanComment(c.body, legacy));
    if (!more) break;
  }
  if (old !== undefined) {
    await api.update(target, old.id, body);
    return { action: 'updated', id: old.id };
  }
  return { action: 'created', id: await api.create(target, body) };
}

const USER_AGENT = 'sops-aws-sync-action';

/** Milliseconds one comment or issue request may take. */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The plumbing of the comment and drift-issue calls: the REST API at base
 * (apiBase) with the token as bearer credential, one retry of idempotent
 * requests only (the HTTP client never resends a POST), no redirects, and
 * errors in our words (fail).
 */
export abstract class GitHubRest {
  protected readonly http = new HttpClient(USER_AGENT, [], {
    allowRetries: true,
    maxRetries: 1,
    allowRedirects: false,
    socketTimeout: REQUEST_TIMEOUT_MS,
  });

  constructor(
    protected readonly base: string,
    private readonly token: string,
  ) {}

  /** The error a failed request becomes (CommentError, IssueError). */
  protected abstract fail(reason: string): Error;

  protected headers(): Record<string, string> {
    return {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${this.token}`,
      'content-type': 'application/json',
      'x-github-api-version': '2022-11-28',
    };
  }

  protected async send(
    what: string,
    call: () => ReturnType<HttpClient['get']>,
    expected: number,
  ): Promise<{ body: string; link: string }> {
    let res: Awaited<ReturnType<HttpClient['get']>>;
    try {
      res = await call();
    } catch {
      throw this.fail(`${what} could not reach the GitHub API`);
    }
    const status = res.message.statusCode ?? 0;
    if (status !== expected) {
      res.message.resume();
      throw this.fail(`${what} returned HTTP ${status}`);
    }
    const link = res.message.headers.link;
    return { body: await res.readBody(), link: typeof link === 'string' ? link : '' };
  }

  protected json(body: string, what: string): unknown {
    try {
      return JSON.parse(body);
    } catch {
      throw this.fail(`${what} did not return JSON`);
    }
  }

  async identity(): Promise<string | undefined> {
    const what = 'Reading the token\'s identity';
    let res: Awaited<ReturnType<HttpClient['get']>>;
    try {
      res = await this.http.get(`${this.base}/user`, this.headers());
    } catch {
      throw this.fail(`${what} could not reach the GitHub API`);
    }
    const status = res.message.statusCode ?? 0;
    if (status === 403) {
      // An installation token (GITHUB_TOKEN, a GitHub App): "Resource not
      // accessible by integration". Its comments are a bot account's.
      res.message.resume();
      return undefined;
    }
    if (status !== 200) {
      res.message.resume();
      throw this.fail(`${what} returned HTTP ${status}`);
    }
    const doc = this.json(await res.readBody(), what);
    if (!isRecord(doc) || typeof doc.login !== 'string' || doc.login === '') throw this.fail(`${what} returned an unexpected document`);
    return doc.login;
  }

}

/** The issue-comment calls over the REST API. */
export class GitHubComments extends GitHubRest implements IssueCommentsApi {
  protected fail(reason: string): Error {
    return new CommentError(reason);
  }

  async list(target: PullRequestTarget, page: number): Promise<{ comments: IssueComment[]; more: boolean }> {
    const what = 'Listing the pull request comments';
    const url = `${this.base}/repos/${target.repo}/issues/${target.number}/comments?per_page=100&page=${page}`;
    const res = await this.send(what, () => this.http.get(url, this.headers()), 200);
    const doc = this.json(res.body, what);
    if (!Array.isArray(doc)) throw this.fail(`${what} returned an unexpected document`);
    const comments: IssueComment[] = [];
    for (const c of doc as unknown[]) {
      if (!isRecord(c) || typeof c.id !== 'number' || typeof c.body !== 'string') continue;
      // A comment without a readable author is nobody's: never edited.
      const u = isRecord(c.user) ? c.user : {};
      const author = { login: typeof u.login === 'string' ? u.login : '', bot: u.type === 'Bot' };
      if (author.login !== '') comments.push({ id: c.id, body: c.body, author });
    }
    // Only whether a next page exists is read from the Link header: the
    // next request is built here, so the token never follows a URL the
    // response chose.
    return { comments, more: /<[^>]*>\s*;\s*rel="?next"?/.test(res.link) };
  }

  async create(target: PullRequestTarget, body: string): Promise<number> {
    const what = 'Creating the plan comment';
    const url = `${this.base}/repos/${target.repo}/issues/${target.number}/comments`;
    const res = await this.send(what, () => this.http.post(url, JSON.stringify({ body }), this.headers()), 201);
    const doc = this.json(res.body, what);
    if (!isRecord(doc) || typeof doc.id !== 'number') throw this.fail(`${what} returned an unexpected document`);
    return doc.id;
  }

  async update(target: PullRequestTarget, id: number, body: string): Promise<void> {
    const what = 'Editing the plan comment';
    const url = `${this.base}/repos/${target.repo}/issues/comments/${id}`;
    await this.send(what, () => this.http.patch(url, JSON.stringify({ body }), this.headers()), 200);
  }
}
