import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CommentError,
  isPlanComment,
  MAX_COMMENT_PAGES,
  pullRequestTarget,
  upsertComment,
  type IssueComment,
  type IssueCommentsApi,
  type PullRequestTarget,
} from '../../src/comment.js';
import { planMarker } from '../../src/plan.js';

/** In-memory issue comments (pure logic of the upsert; the REST client is covered end to end). */
class FakeComments implements IssueCommentsApi {
  comments: IssueComment[] = [];
  calls: string[] = [];
  private nextId = 1;

  constructor(
    private readonly perPage = 100,
    private readonly endless = false,
  ) {}

  add(body: string): number {
    const id = this.nextId++;
    this.comments.push({ id, body });
    return id;
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
const marker = planMarker('acme/infra', 'apps/prod');

describe('upsertComment', () => {
  it('creates the comment on the first run and edits that one on the next: exactly one exists', async () => {
    const api = new FakeComments();
    api.add('LGTM');
    const first = await upsertComment(api, target, marker, `${marker}\nplan one`);
    expect(first.action).toBe('created');
    const second = await upsertComment(api, target, marker, `${marker}\nplan two`);
    expect(second).toEqual({ action: 'updated', id: first.id });
    expect(api.comments.filter((c) => isPlanComment(c.body, marker))).toEqual([{ id: first.id, body: `${marker}\nplan two` }]);
    expect(api.comments.find((c) => c.body === 'LGTM')).toBeDefined();
  });

  it('follows pagination to find the comment on a later page', async () => {
    const api = new FakeComments(10);
    for (let i = 0; i < 25; i++) api.add(`chatter ${i}`);
    const id = api.add(`${marker}\nold`);
    for (let i = 0; i < 5; i++) api.add(`more ${i}`);
    const r = await upsertComment(api, target, marker, `${marker}\nnew`);
    expect(r).toEqual({ action: 'updated', id });
    expect(api.calls).toEqual(['list 1', 'list 2', 'list 3', `update ${id}`]);
  });

  it('keeps one comment per scope: another scope’s marker is not this one', async () => {
    const api = new FakeComments();
    const other = planMarker('acme/infra', 'apps/staging');
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
