import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CommentError,
  type CommentAuthor,
  isOwnComment,
  isPlanComment,
  MAX_COMMENT_PAGES,
  pullRequestTarget,
  upsertComment,
  type IssueComment,
  type IssueCommentsApi,
  type PullRequestTarget,
} from '../../src/comment.js';
import { legacyPlanMarker, planMarker } from '../../src/plan.js';
import { identityOf } from '../fixtures/identity.js';

/** GITHUB_TOKEN's comments are written by this bot account. */
const ACTIONS_BOT: CommentAuthor = { login: 'github-actions[bot]', bot: true };
const MALLORY: CommentAuthor = { login: 'mallory', bot: false };

/** In-memory issue comments (pure logic of the upsert; the REST client is covered end to end). */
class FakeComments implements IssueCommentsApi {
  comments: IssueComment[] = [];
  calls: string[] = [];
  private nextId = 1;

  /** me: the token's identity (undefined: an installation token, whose comments ACTIONS_BOT writes). */
  constructor(
    private readonly perPage = 100,
    private readonly endless = false,
    private readonly me?: string,
  ) {}

  private get self(): CommentAuthor {
    return this.me === undefined ? ACTIONS_BOT : { login: this.me, bot: false };
  }

  /** Adds a comment; by default one the token's identity wrote. */
  add(body: string, author: CommentAuthor = this.self): number {
    const id = this.nextId++;
    this.comments.push({ id, body, author });
    return id;
  }

  identity(): Promise<string | undefined> {
    this.calls.push('identity');
    return Promise.resolve(this.me);
  }

  list(_t: PullRequestTarget, page: number): Promise<{ comments: IssueComment[]; more: boolean }> {
    this.calls.push(`list ${page}`);
    const start = (page - 1) * this.perPage;
    return Promise.resolve({
      comments: this.comments.slice(start, start + this.perPage),
      more: this.endless || start + this.perPage < this.comments.length,
    });
  }

  create(_t: PullRequestTarget, body: string): Promise<number> {
    this.calls.push('create');
    return Promise.resolve(this.add(body));
  }

  update(_t: PullRequestTarget, id: number, body: string): Promise<void> {
    this.calls.push(`update ${id}`);
    const c = this.comments.find((x) => x.id === id);
    if (c === undefined) return Promise.reject(new CommentError('no such comment'));
    c.body = body;
    return Promise.resolve();
  }
}

const target = { repo: 'acme/infra', number: 7 };
const marker = planMarker(identityOf());

describe('upsertComment', () => {
  it('creates the comment on the first run and edits that one on the next: exactly one exists', async () => {
    const api = new FakeComments();
    api.add('LGTM');
    const first = await upsertComment(api, target, marker, `${marker}\nplan one`);
    expect(first.action).toBe('created');
    const second = await upsertComment(api, target, marker, `${marker}\nplan two`);
    expect(second).toEqual({ action: 'updated', id: first.id });
    expect(api.comments.filter((c) => isPlanComment(c.body, marker))).toEqual([{ id: first.id, body: `${marker}\nplan two`, author: ACTIONS_BOT }]);
    expect(api.comments.find((c) => c.body === 'LGTM')).toBeDefined();
  });

  it('follows pagination to find the comment on a later page', async () => {
    const api = new FakeComments(10);
    for (let i = 0; i < 25; i++) api.add(`chatter ${i}`);
    const id = api.add(`${marker}\nold`);
    for (let i = 0; i < 5; i++) api.add(`more ${i}`);
    const r = await upsertComment(api, target, marker, `${marker}\nnew`);
    expect(r).toEqual({ action: 'updated', id });
    expect(api.calls).toEqual(['identity', 'list 1', 'list 2', 'list 3', `update ${id}`]);
  });

  it('keeps one comment per scope: another scope’s marker is not this one', async () => {
    const api = new FakeComments();
    const other = planMarker(identityOf({ secretPrefix: 'apps/staging' }));
    const otherId = api.add(`${other}\nstaging plan`);
    const r = await upsertComment(api, target, marker, `${marker}\nprod plan`);
    expect(r.action).toBe('created');
    expect(api.comments.find((c) => c.id === otherId)?.body).toBe(`${other}\nstaging plan`);
  });

  it('matches the marker only as the whole first line, never quoted later in a comment', async () => {
    const api = new FakeComments();
    api.add(`see this: ${marker}\nquoted`);
    api.add(`> ${marker}\nquoted`);
    api.add(`${marker}extra\nnot ours`);
    expect((await upsertComment(api, target, marker, `${marker}\nplan`)).action).toBe('created');
  });

  it('edits the oldest when several carry the marker', async () => {
    const api = new FakeComments();
    const oldest = api.add(`${marker}\na`);
    api.add(`${marker}\nb`);
    expect(await upsertComment(api, target, marker, `${marker}\nc`)).toEqual({ action: 'updated', id: oldest });
  });

  it('never edits a marked comment someone else wrote: a planted marker gets its own plan comment beside it', async () => {
    const api = new FakeComments();
    const planted = api.add(`${marker}\nno changes, approve me`, MALLORY);
    const first = await upsertComment(api, target, marker, `${marker}\nplan: 3 deletions`);
    expect(first.action).toBe('created');
    const second = await upsertComment(api, target, marker, `${marker}\nplan: 2 deletions`);
    expect(second).toEqual({ action: 'updated', id: first.id });
    expect(api.comments.find((c) => c.id === planted)).toEqual({ id: planted, body: `${marker}\nno changes, approve me`, author: MALLORY });
    expect(api.calls).not.toContain(`update ${planted}`);
  });

  it('with a user token (GET /user answers), only that login’s comment is ours, not a bot’s or another user’s', async () => {
    const api = new FakeComments(100, false, 'release-bot-user');
    api.add(`${marker}\nby a bot`, ACTIONS_BOT);
    api.add(`${marker}\nby mallory`, MALLORY);
    api.add(`${marker}\nby a bot named like us`, { login: 'release-bot-user', bot: true });
    const own = api.add(`${marker}\nours`);
    expect(await upsertComment(api, target, marker, `${marker}\nnew`)).toEqual({ action: 'updated', id: own });
  });

  it('passes a failure to read the identity on to the caller (which warns), before listing', async () => {
    const api = new FakeComments();
    api.identity = () => Promise.reject(new CommentError("Reading the token's identity returned HTTP 401"));
    await expect(upsertComment(api, target, marker, 'b')).rejects.toThrow('HTTP 401');
    expect(api.calls).toEqual([]);
  });

  it('stops listing after MAX_COMMENT_PAGES pages, then creates', async () => {
    const api = new FakeComments(1, true);
    for (let i = 0; i < 3; i++) api.add('x');
    const r = await upsertComment(api, target, marker, `${marker}\nplan`);
    expect(r.action).toBe('created');
    expect(api.calls.filter((c) => c.startsWith('list'))).toHaveLength(MAX_COMMENT_PAGES);
  });

  it('passes an API failure on to the caller (which warns)', async () => {
    const api = new FakeComments();
    api.create = () => Promise.reject(new CommentError('Creating the plan comment returned HTTP 403'));
    await expect(upsertComment(api, target, marker, 'b')).rejects.toThrow('HTTP 403');
  });
});

describe('isOwnComment', () => {
  it.each([
    ['installation token, a bot wrote it', ACTIONS_BOT, undefined, true],
    ['installation token, a user wrote it', MALLORY, undefined, false],
    ['user token, that user wrote it', MALLORY, 'mallory', true],
    ['user token, another user wrote it', MALLORY, 'alice', false],
    ['user token, a bot with that login wrote it', { login: 'alice', bot: true }, 'alice', false],
  ] as const)('%s: %s', (_what, author, identity, want) => {
    expect(isOwnComment(author, identity)).toBe(want);
  });
});

describe('pullRequestTarget', () => {
  const payload = (doc: unknown): string => {
    const f = join(mkdtempSync(join(tmpdir(), 'event-')), 'event.json');
    writeFileSync(f, JSON.stringify(doc));
    return f;
  };

  it.each(['pull_request', 'pull_request_target'])('reads the pull request number of a %s event', async (event) => {
    const env = { GITHUB_EVENT_NAME: event, GITHUB_REPOSITORY: 'acme/infra', GITHUB_EVENT_PATH: payload({ pull_request: { number: 42 } }) };
    expect(await pullRequestTarget(env)).toEqual({ repo: 'acme/infra', number: 42 });
  });

  it.each([
    ['a push event', { GITHUB_EVENT_NAME: 'push' }, 'not for a pull_request'],
    ['no payload', { GITHUB_EVENT_NAME: 'pull_request', GITHUB_REPOSITORY: 'a/b', GITHUB_EVENT_PATH: '/no/such' }, 'cannot be read'],
    ['a bad repository', { GITHUB_EVENT_NAME: 'pull_request', GITHUB_REPOSITORY: 'a/b/c' }, 'owner/repo'],
  ])('refuses %s', async (_what, env, reason) => {
    await expect(pullRequestTarget(env)).rejects.toThrow(reason);
  });

  it('refuses a payload without a pull request number', async () => {
    const env = { GITHUB_EVENT_NAME: 'pull_request', GITHUB_REPOSITORY: 'a/b', GITHUB_EVENT_PATH: payload({ pull_request: { number: '7' } }) };
    await expect(pullRequestTarget(env)).rejects.toThrow('no pull request number');
  });
});

describe('upsertComment: the comment of an earlier release (legacy marker)', () => {
  const eu = planMarker(identityOf({ region: 'eu-west-1' }));
  const us = planMarker(identityOf({ region: 'us-east-1' }));
  const legacy = legacyPlanMarker(identityOf());

  it('is taken over by the first run without a comment of its own, which rewrites its marker; the next Region then keeps its own', async () => {
    const api = new FakeComments(10);
    for (let i = 0; i < 15; i++) api.add(`chatter ${i}`);
    const old = api.add(`${legacy}\nplan of some Region`);
    const first = await upsertComment(api, target, eu, `${eu}\neu plan`, legacy);
    expect(first).toEqual({ action: 'updated', id: old });
    const second = await upsertComment(api, target, us, `${us}\nus plan`, legacy);
    expect(second.action).toBe('created');
    expect(api.comments.filter((c) => c.body.startsWith('<!--')).map((c) => c.body)).toEqual([`${eu}\neu plan`, `${us}\nus plan`]);
  });

  it('is left alone when the run has its own comment, even on a later page', async () => {
    const api = new FakeComments(10);
    const old = api.add(`${legacy}\nold`);
    for (let i = 0; i < 15; i++) api.add(`chatter ${i}`);
    const own = api.add(`${eu}\neu`);
    expect(await upsertComment(api, target, eu, `${eu}\nnew`, legacy)).toEqual({ action: 'updated', id: own });
    expect(api.comments.find((c) => c.id === old)?.body).toBe(`${legacy}\nold`);
  });

  it('is never taken when someone else wrote it', async () => {
    const api = new FakeComments();
    const planted = api.add(`${legacy}\nno changes`, MALLORY);
    expect((await upsertComment(api, target, eu, `${eu}\nplan`, legacy)).action).toBe('created');
    expect(api.calls).not.toContain(`update ${planted}`);
  });
});
