import { describe, expect, it } from 'vitest';
import type { CommentAuthor } from '../../src/comment.js';
import { targetRow } from '../../src/inputs.js';
import { countLabel } from '../../src/main.js';
import {
  closingComment,
  DRIFT_NOTE,
  driftBody,
  driftMarker,
  driftTitle,
  findDriftIssues,
  IssueError,
  isDriftIssue,
  legacyDriftMarker,
  MAX_ISSUE_PAGES,
  reportConvergence,
  reportDrift,
  runUrl,
  sameBody,
  type Issue,
  type IssueChange,
  type IssuesApi,
} from '../../src/issue.js';
import { COMMENT_LIMIT, planMarker } from '../../src/plan.js';
import { identityOf } from '../fixtures/identity.js';

/** GITHUB_TOKEN's issues are opened by this bot account. */
const ACTIONS_BOT: CommentAuthor = { login: 'github-actions[bot]', bot: true };
const MALLORY: CommentAuthor = { login: 'mallory', bot: false };
const REPO = 'acme/infra';
const LABEL = 'sops-aws-sync-drift';
const marker = driftMarker(identityOf());

interface Stored extends Issue {
  labels: string[];
}

/** In-memory issues of one repository (the pure logic; the REST client is covered end to end). */
class FakeIssues implements IssuesApi {
  issues: Stored[] = [];
  calls: string[] = [];
  private next = 1;

  /** me: the token's identity (undefined: an installation token, whose issues ACTIONS_BOT opens). */
  constructor(
    private readonly perPage = 100,
    private readonly endless = false,
    private readonly me?: string,
  ) {}

  private get self(): CommentAuthor {
    return this.me === undefined ? ACTIONS_BOT : { login: this.me, bot: false };
  }

  add(body: string, over: Partial<Stored> = {}): number {
    const number = this.next++;
    this.issues.push({ number, open: true, body, author: this.self, labels: [LABEL], ...over });
    return number;
  }

  identity(): Promise<string | undefined> {
    this.calls.push('identity');
    return Promise.resolve(this.me);
  }

  list(_repo: string, label: string, page: number): Promise<{ issues: Issue[]; more: boolean }> {
    this.calls.push(`list ${page}`);
    const hits = this.issues.filter((i) => i.labels.includes(label));
    const start = (page - 1) * this.perPage;
    return Promise.resolve({
      issues: hits.slice(start, start + this.perPage).map((i) => ({ number: i.number, open: i.open, body: i.body, author: i.author })),
      more: this.endless || start + this.perPage < hits.length,
    });
  }

  create(_repo: string, _title: string, body: string, label: string): Promise<number> {
    this.calls.push('create');
    return Promise.resolve(this.add(body, { labels: [label] }));
  }

  edit(_repo: string, number: number, change: IssueChange): Promise<void> {
    const parts = [change.body === undefined ? '' : 'body', change.state === undefined ? '' : `${change.state.open ? 'open' : 'closed'}/${change.state.reason}`];
    this.calls.push(`edit ${number} ${parts.filter((p) => p !== '').join(' ')}`);
    const i = this.issues.find((x) => x.number === number);
    if (i === undefined) return Promise.reject(new IssueError('no such issue'));
    if (change.body !== undefined) i.body = change.body;
    if (change.state !== undefined) i.open = change.state.open;
    return Promise.resolve();
  }

  comment(_repo: string, number: number, body: string): Promise<void> {
    this.calls.push(`comment ${number} ${body}`);
    return Promise.resolve();
  }
}

const drift = (api: IssuesApi, body: string) => reportDrift(api, REPO, LABEL, marker, 'title', body);
const converge = (api: IssuesApi) => reportConvergence(api, REPO, LABEL, marker, 'converged at c');
const writes = (api: FakeIssues) => api.calls.filter((c) => !c.startsWith('list') && c !== 'identity');

describe('reportDrift and reportConvergence', () => {
  it('open, leave, edit, close, reopen: one issue through a drift cycle, with no write when nothing changed', async () => {
    const api = new FakeIssues();
    const a = `${marker}\nplan a`;
    const first = await drift(api, a);
    expect(first).toEqual({ action: 'opened', number: 1 });
    expect(await drift(api, a)).toEqual({ action: 'unchanged', number: 1 });
    expect(await drift(api, `${marker}\nplan b`)).toEqual({ action: 'edited', number: 1 });
    expect(await converge(api)).toEqual({ action: 'closed', numbers: [1] });
    expect(await converge(api)).toEqual({ action: 'none' });
    expect(await drift(api, `${marker}\nplan b`)).toEqual({ action: 'reopened', number: 1 });
    expect(await drift(api, `${marker}\nplan b`)).toEqual({ action: 'unchanged', number: 1 });
    expect(writes(api)).toEqual(['create', 'edit 1 body', 'comment 1 converged at c', 'edit 1 closed/completed', 'edit 1 open/reopened']);
    expect(api.issues).toHaveLength(1);
  });

  it('reopens with the new body in one edit when the plan changed while it was closed', async () => {
    const api = new FakeIssues();
    api.add(`${marker}\nold`, { open: false });
    expect(await drift(api, `${marker}\nnew`)).toEqual({ action: 'reopened', number: 1 });
    expect(writes(api)).toEqual(['edit 1 body open/reopened']);
  });

  it('reads every page: the issue on a later page is found, not duplicated', async () => {
    const api = new FakeIssues(10);
    for (let i = 0; i < 25; i++) api.add(`someone's ${i}`, { author: MALLORY });
    const own = api.add(`${marker}\nplan`, { open: false });
    for (let i = 0; i < 5; i++) api.add(`more ${i}`, { author: MALLORY });
    expect(await drift(api, `${marker}\nplan`)).toEqual({ action: 'reopened', number: own });
    expect(api.calls.filter((c) => c.startsWith('list'))).toEqual(['list 1', 'list 2', 'list 3', 'list 4']);
  });

  it('prefers the oldest open issue over an older closed one, and closes every open one on convergence', async () => {
    const api = new FakeIssues();
    api.add(`${marker}\nclosed long ago`, { open: false });
    const openA = api.add(`${marker}\na`);
    const openB = api.add(`${marker}\nb`);
    expect(await drift(api, `${marker}\na`)).toEqual({ action: 'unchanged', number: openA });
    expect(await converge(api)).toEqual({ action: 'closed', numbers: [openA, openB] });
    expect(api.issues.map((i) => i.open)).toEqual([false, false, false]);
  });

  it('never takes a marked issue someone else opened, open or closed', async () => {
    const api = new FakeIssues();
    const planted = api.add(`${marker}\nno drift`, { author: MALLORY });
    api.add(`${marker}\nclosed`, { author: MALLORY, open: false });
    expect((await drift(api, `${marker}\nplan`)).action).toBe('opened');
    expect(await converge(api)).toEqual({ action: 'closed', numbers: [3] });
    expect(api.issues.find((i) => i.number === planted)).toMatchObject({ open: true, body: `${marker}\nno drift` });
    expect(writes(api).some((c) => c.includes(` ${planted} `) || c.endsWith(` ${planted}`))).toBe(false);
  });

  it('with a user token, only that login’s issue is ours, not a bot’s or a bot named like it', async () => {
    const api = new FakeIssues(100, false, 'infra-ci');
    api.add(`${marker}\nbot`, { author: ACTIONS_BOT });
    api.add(`${marker}\nlook-alike`, { author: { login: 'infra-ci', bot: true } });
    const own = api.add(`${marker}\nours`);
    expect(await drift(api, `${marker}\nnew`)).toEqual({ action: 'edited', number: own });
  });

  it('needs the label: an own marked issue without it is not the drift issue', async () => {
    const api = new FakeIssues();
    api.add(`${marker}\nunlabelled`, { labels: [] });
    expect((await drift(api, `${marker}\nplan`)).action).toBe('opened');
  });

  it('another scope’s marker, the pull-request comment marker and a quoted marker are not this scope’s', async () => {
    const api = new FakeIssues();
    api.add(`${driftMarker(identityOf({ secretPrefix: 'apps/staging' }))}\nstaging`);
    api.add(`${driftMarker(identityOf({ region: 'us-east-1' }))}\nanother Region`);
    api.add(`${planMarker(identityOf())}\ncomment marker`);
    api.add(`> ${marker}\nquoted`);
    api.add(`${marker}extra\nnot ours`);
    expect((await drift(api, `${marker}\nplan`)).action).toBe('opened');
  });

  it('refuses to decide after MAX_ISSUE_PAGES pages rather than risk a second issue', async () => {
    const api = new FakeIssues(1, true);
    api.add('x', { author: MALLORY });
    await expect(drift(api, `${marker}\nplan`)).rejects.toThrow(IssueError);
    expect(api.calls.filter((c) => c.startsWith('list'))).toHaveLength(MAX_ISSUE_PAGES);
    expect(writes(api)).toEqual([]);
  });

  it('passes a failure to read the identity on before listing or writing', async () => {
    const api = new FakeIssues();
    api.identity = () => Promise.reject(new IssueError("Reading the token's identity returned HTTP 401"));
    await expect(converge(api)).rejects.toThrow('HTTP 401');
    expect(api.calls).toEqual([]);
  });
});

describe('isDriftIssue and sameBody', () => {
  it('matches the marker only as the whole first line (LF or CRLF)', () => {
    expect(isDriftIssue(marker, marker)).toBe(true);
    expect(isDriftIssue(`${marker}\nx`, marker)).toBe(true);
    expect(isDriftIssue(`${marker}\r\nx`, marker)).toBe(true);
    expect(isDriftIssue(` ${marker}\nx`, marker)).toBe(false);
    expect(isDriftIssue(`x\n${marker}`, marker)).toBe(false);
  });

  it('ignores only line endings and trailing white space', () => {
    expect(sameBody('a\nb\n', 'a\r\nb')).toBe(true);
    expect(sameBody('a\nb', 'a\nc')).toBe(false);
    expect(sameBody('a \nb', 'a\nb')).toBe(false);
  });
});

describe('the issue text', () => {
  it('marker: a hidden HTML comment per scope, never the prefix, distinct from the comment marker', () => {
    expect(marker).toMatch(/^<!-- sops-aws-sync:drift:[0-9a-f]{16} -->$/);
    expect(driftMarker(identityOf())).toBe(marker);
    expect(driftMarker(identityOf({ secretPrefix: 'apps/staging' }))).not.toBe(marker);
    expect(driftMarker(identityOf({ secretPrefix: 'x --> <b>y</b>' }))).not.toContain('y</b>');
    expect(marker.replace(':drift:', ':plan:')).toBe(planMarker(identityOf()));
    expect(driftTitle(identityOf())).not.toContain('apps/prod');
    expect(driftTitle(identityOf())).not.toContain('123456789012');
    expect(driftTitle(identityOf())).toContain(marker.slice(25, 41));
  });

  it('body: marker, the fixed note, then the rendering; cut below the issue body limit', () => {
    expect(driftBody(marker, '### plan\n')).toBe(`${marker}\n${DRIFT_NOTE}\n\n### plan\n`);
    const big = driftBody(marker, '  ~ resource-0001 update\n'.repeat(10_000));
    expect(Buffer.byteLength(big)).toBeLessThan(COMMENT_LIMIT);
    expect(big).toContain('_Truncated by the sops-aws-sync Action');
    expect(big.startsWith(`${marker}\n${DRIFT_NOTE}\n\n`)).toBe(true);
  });

  it('closing comment: names the verified commit and the run', () => {
    const c = 'c'.repeat(40);
    expect(closingComment(c, 'https://github.com/acme/infra/actions/runs/7')).toBe(
      `sops-aws-sync plan found AWS Secrets Manager equal to Git at commit \`${c}\`: no drift is left, so this issue is closed ([run](https://github.com/acme/infra/actions/runs/7)).`,
    );
    expect(closingComment('', undefined)).toBe('sops-aws-sync plan found AWS Secrets Manager equal to Git at the planned commit: no drift is left, so this issue is closed.');
  });

  // Regression: a parameter-store run's drift issue and its closing
  // comment spoke of AWS Secrets Manager (SPEC §16: every output in the
  // target's words).
  it("title and closing comment: in the target's words", () => {
    const ps = targetRow('parameter-store').service;
    expect(driftTitle(identityOf(), ps)).toMatch(/^sops-aws-sync: Parameter Store differs from Git \(scope [0-9a-f]{16}\)$/);
    expect(closingComment('', undefined, ps)).toBe('sops-aws-sync plan found Parameter Store equal to Git at the planned commit: no drift is left, so this issue is closed.');
    expect(countLabel('schedule_delete', 'parameter-store')).toBe('Delete (immediate)');
    expect(countLabel('schedule_delete', 'secrets-manager')).toBe('Scheduled delete');
    expect(countLabel('create', 'parameter-store')).toBe('Create');
  });

  it('run URL: only from an https server, an owner/repo and a numeric run id', () => {
    const env = { GITHUB_SERVER_URL: 'https://github.example.com/', GITHUB_REPOSITORY: 'acme/infra', GITHUB_RUN_ID: '12' };
    expect(runUrl(env)).toBe('https://github.example.com/acme/infra/actions/runs/12');
    expect(runUrl({ ...env, GITHUB_SERVER_URL: 'http://github.com' })).toBeUndefined();
    expect(runUrl({ ...env, GITHUB_RUN_ID: '12)](x' })).toBeUndefined();
    expect(runUrl({ ...env, GITHUB_REPOSITORY: 'a/b)' })).toBeUndefined();
    expect(runUrl({})).toBeUndefined();
  });
});

describe('findDriftIssues', () => {
  it('returns the own marked labelled issues, oldest first', async () => {
    const api = new FakeIssues();
    const a = api.add(`${marker}\na`, { open: false });
    api.add(`${marker}\nm`, { author: MALLORY });
    const b = api.add(`${marker}\nb`);
    expect((await findDriftIssues(api, REPO, LABEL, marker)).map((i) => i.number)).toEqual([a, b]);
  });
});

describe('the issue of an earlier release (legacy marker)', () => {
  const eu = driftMarker(identityOf({ region: 'eu-west-1' }));
  const us = driftMarker(identityOf({ region: 'us-east-1' }));
  const legacy = legacyDriftMarker(identityOf());
  const driftIn = (api: IssuesApi, m: string, body: string) => reportDrift(api, REPO, LABEL, m, 'title', `${m}\n${body}`, legacy);
  const convergeIn = (api: IssuesApi, m: string) => reportConvergence(api, REPO, LABEL, m, 'converged at c', legacy);

  it('drift takes it over (the new body carries the run’s marker); another Region’s drift then opens its own', async () => {
    const api = new FakeIssues();
    const old = api.add(`${legacy}\nold plan`);
    expect(await driftIn(api, eu, 'eu plan')).toEqual({ action: 'edited', number: old });
    expect(api.issues.find((i) => i.number === old)?.body).toBe(`${eu}\neu plan`);
    const opened = await driftIn(api, us, 'us plan');
    expect(opened.action).toBe('opened');
    expect(api.issues.map((i) => i.body.split('\n')[0])).toEqual([eu, us]);
  });

  it('a closed one is reopened by drift and taken over', async () => {
    const api = new FakeIssues();
    const old = api.add(`${legacy}\nold plan`, { open: false });
    expect(await driftIn(api, eu, 'eu plan')).toEqual({ action: 'reopened', number: old });
  });

  it('convergence without an issue of its own closes the open one; a Region still drifting reopens it as its own', async () => {
    const api = new FakeIssues();
    const old = api.add(`${legacy}\nold plan`);
    expect(await convergeIn(api, eu)).toEqual({ action: 'closed', numbers: [old] });
    expect(await driftIn(api, us, 'us plan')).toEqual({ action: 'reopened', number: old });
    expect(api.issues.find((i) => i.number === old)).toMatchObject({ open: true, body: `${us}\nus plan` });
  });

  it('is left alone once the run has an issue of its own, and never taken from another author', async () => {
    const api = new FakeIssues();
    const old = api.add(`${legacy}\nold plan`);
    const planted = api.add(`${legacy}\nplanted`, { author: MALLORY });
    const own = api.add(`${eu}\neu plan`, { open: false });
    expect(await convergeIn(api, eu)).toEqual({ action: 'none' });
    expect(await driftIn(api, eu, 'eu again')).toEqual({ action: 'reopened', number: own });
    expect(api.issues.find((i) => i.number === old)).toMatchObject({ open: true, body: `${legacy}\nold plan` });
    expect(writes(api).filter((c) => c.startsWith(`edit ${planted} `) || c.startsWith(`comment ${planted} `))).toEqual([]);
  });
});
