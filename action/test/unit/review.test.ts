import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  concludeLookup,
  judgeReview,
  lookupFailure,
  lookupStart,
  mergedPullRequest,
  pickArtifact,
  planArtifactName,
  planRuns,
  REQUIRE_NEXT,
  uploadDecision,
  type ArtifactFact,
  type PullFact,
  type RunFact,
} from '../../src/review.js';
import { identityOf } from '../fixtures/identity.js';

const SHA = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);
const pr = (over: Partial<PullFact> = {}): PullFact => ({ number: 7, mergedAt: '2026-12-05T10:00:00Z', mergeCommitSha: SHA, baseRef: 'main', headSha: HEAD, ...over });
const runOf = (over: Partial<RunFact> = {}): RunFact => ({
  id: 100,
  event: 'pull_request',
  headSha: HEAD,
  status: 'completed',
  pullRequests: [7],
  createdAt: '2026-12-05T09:00:00Z',
  ...over,
});
const art = (over: Partial<ArtifactFact> = {}): ArtifactFact => ({ id: 9, name: 'n', expired: false, runId: 100, digest: undefined, ...over });

describe('planArtifactName', () => {
  // The documented formula (src/review.ts), computed here independently.
  const expected = (key: unknown[]): string =>
    `sops-aws-sync-plan-${createHash('sha256').update(JSON.stringify(['sops-aws-sync/plan-artifact/v1', ...key])).digest('hex').slice(0, 16)}`;

  it('is the digest of the identity with the role replaced by its account', () => {
    const id = identityOf({ role: 'arn:aws:iam::123456789012:role/plan' });
    expect(planArtifactName(id)).toBe(expected(['acme/infra', 'secrets', 'apps/prod', 'eu-west-1', '123456789012', '', '', []]));
  });

  it('is the same for the plan role and the sync role of one account, with or without aws-account-id', () => {
    const plan = planArtifactName(identityOf({ account: '', role: 'arn:aws:iam::123456789012:role/secrets-plan' }));
    expect(planArtifactName(identityOf({ account: '', role: 'arn:aws:iam::123456789012:role/secrets-sync' }))).toBe(plan);
    expect(planArtifactName(identityOf({ account: '123456789012', role: '' }))).toBe(plan);
  });

  it('differs for every other part of the identity', () => {
    const base = planArtifactName(identityOf());
    const others = [
      identityOf({ repositoryId: 'acme/other' }),
      identityOf({ sourceRoot: 'secrets/prod' }),
      identityOf({ secretPrefix: 'apps/staging' }),
      identityOf({ region: 'us-east-1' }),
      identityOf({ account: '210987654321' }),
      identityOf({ profile: 'prod' }),
      identityOf({ configFile: 'sops-aws-sync.yaml' }),
      identityOf({ configFile: 'sops-aws-sync.yaml', scopes: ['prod'] }),
    ].map(planArtifactName);
    for (const o of others) expect(o).not.toBe(base);
    expect(new Set(others).size).toBe(others.length);
    expect(planArtifactName(identityOf({ account: '', role: 'arn:aws:iam::210987654321:role/secrets-sync' }))).toBe(others[4]);
    expect(planArtifactName(identityOf({ configFile: 'c.yaml', scopes: ['b', 'a'] }))).toBe(planArtifactName(identityOf({ configFile: 'c.yaml', scopes: ['a', 'b'] })));
  });

  it('is a valid artifact name that shows no part of the identity', () => {
    const name = planArtifactName(identityOf());
    expect(name).toMatch(/^sops-aws-sync-plan-[0-9a-f]{16}$/);
  });
});

describe('uploadDecision', () => {
  it.each([
    ['pull_request drift exit 0', { event: 'pull_request', status: 'drift', exitCode: 0, planFile: true, service: true }, true],
    ['pull_request drift exit 2 (fail-on-drift)', { event: 'pull_request', status: 'drift', exitCode: 2, planFile: true, service: true }, true],
    ['pull_request converged', { event: 'pull_request', status: 'converged', exitCode: 0, planFile: true, service: true }, true],
    ['invalid plan', { event: 'pull_request', status: 'invalid', exitCode: 3, planFile: true, service: true }, false],
    ['conflict', { event: 'pull_request', status: 'conflict', exitCode: 4, planFile: true, service: true }, false],
    ['observation failed', { event: 'pull_request', status: 'observation-failed', exitCode: 5, planFile: true, service: true }, false],
    ['no plan file', { event: 'pull_request', status: 'drift', exitCode: 0, planFile: false, service: true }, false],
    ['scheduled drift check', { event: 'schedule', status: 'drift', exitCode: 2, planFile: true, service: true }, false],
    ['push', { event: 'push', status: 'drift', exitCode: 0, planFile: true, service: true }, false],
    ['pull_request_target', { event: 'pull_request_target', status: 'drift', exitCode: 0, planFile: true, service: true }, false],
    ['no artifact service on the runner', { event: 'pull_request', status: 'drift', exitCode: 0, planFile: true, service: false }, false],
  ])('%s', (_, end, upload) => {
    expect(uploadDecision(end).upload).toBe(upload);
  });
});

describe('lookupStart', () => {
  it.each([
    ['push to the default branch', { event: 'push', ref: 'refs/heads/main', sha: SHA, defaultBranch: 'main' }, 'lookup'],
    ['push to another branch', { event: 'push', ref: 'refs/heads/dev', sha: SHA, defaultBranch: 'main' }, 'the push is not to the default branch'],
    ['a tag push', { event: 'push', ref: 'refs/tags/main', sha: SHA, defaultBranch: 'main' }, 'the push is not to the default branch'],
    ['schedule', { event: 'schedule', ref: 'refs/heads/main', sha: SHA, defaultBranch: undefined }, 'the run is for a schedule event'],
    ['workflow_dispatch', { event: 'workflow_dispatch', ref: 'refs/heads/main', sha: SHA, defaultBranch: 'main' }, 'the run is for a workflow_dispatch event'],
    ['no default branch in the payload', { event: 'push', ref: 'refs/heads/main', sha: SHA, defaultBranch: undefined }, 'names no default branch'],
    ['a SHA that is none', { event: 'push', ref: 'refs/heads/main', sha: 'HEAD', defaultBranch: 'main' }, 'is not a commit SHA'],
  ])('%s', (_, facts, want) => {
    const got = lookupStart(facts);
    if (want === 'lookup') expect(got).toEqual({ kind: 'lookup', branch: 'main' });
    else expect(got.kind === 'none' ? got.why : '').toContain(want);
  });
});

describe('mergedPullRequest', () => {
  it.each([
    ['the pull request merged as the commit', [pr()], 7],
    ['one of several: the others are open, of another base or another merge commit', [pr({ number: 1, mergedAt: null }), pr({ number: 2, baseRef: 'dev' }), pr({ number: 3, mergeCommitSha: 'c'.repeat(40) }), pr()], 7],
    ['a direct push: the commit is only in open pull requests', [pr({ mergedAt: null, mergeCommitSha: null })], 'no pull request was merged as commit aaaaaaaaaaaa'],
    ['no pull request at all', [], 'a direct push'],
    ['two claim the commit', [pr(), pr({ number: 8 })], 'several pull requests'],
  ])('%s', (_, pulls, want) => {
    const got = mergedPullRequest(pulls, SHA, 'main');
    if (typeof want === 'number') expect('number' in got ? got.number : undefined).toBe(want);
    else expect('why' in got ? got.why : '').toContain(want);
  });
});

describe('planRuns', () => {
  it('keeps completed pull_request runs of the head commit that list the pull request, newest first', () => {
    const runs = [
      runOf({ id: 1, createdAt: '2026-12-05T08:00:00Z' }),
      runOf({ id: 2, createdAt: '2026-12-05T09:30:00Z' }),
      runOf({ id: 3, pullRequests: [8] }),
      runOf({ id: 4, pullRequests: [] }),
      runOf({ id: 5, headSha: 'c'.repeat(40) }),
      runOf({ id: 6, event: 'push' }),
      runOf({ id: 7, status: 'in_progress' }),
      runOf({ id: 8, event: 'pull_request_target' }),
      runOf({ id: 9, createdAt: '2026-12-05T09:30:00Z', pullRequests: [8, 7] }),
    ];
    expect(planRuns(runs, pr()).map((r) => r.id)).toEqual([9, 2, 1]);
  });
});

describe('pickArtifact', () => {
  const run = runOf();
  it.each([
    ['the named artifact of the run', [art({ name: 'mine' })], 9],
    ['the newest of two', [art({ name: 'mine' }), art({ id: 12, name: 'mine' })], 12],
    ['another scope identity only', [art({ name: 'other' })], 'absent'],
    ['the name in another run', [art({ name: 'mine', runId: 101 })], 'absent'],
    ['expired', [art({ name: 'mine', expired: true })], 'expired'],
    ['an expired one beside a live one', [art({ id: 20, name: 'mine', expired: true }), art({ name: 'mine' })], 9],
    ['nothing', [], 'absent'],
  ])('%s', (_, artifacts, want) => {
    const got = pickArtifact(artifacts, 'mine', run);
    expect(typeof got === 'object' ? got.id : got).toBe(want);
  });
});

describe('concludeLookup', () => {
  const r1 = runOf({ id: 1 });
  const r2 = runOf({ id: 2 });
  it.each([
    ['the first run with an artifact', [{ run: r1, pick: 'absent' as const }, { run: r2, pick: art({ runId: 2 }) }], 'found 2'],
    ['no run', [], 'has no completed pull_request run'],
    ['runs without the artifact', [{ run: r1, pick: 'absent' as const }], 'holds this scope\'s plan artifact'],
    ['an expired artifact', [{ run: r1, pick: 'expired' as const }, { run: r2, pick: 'absent' as const }], 'has expired'],
  ])('%s', (_, looked, want) => {
    const got = concludeLookup(pr(), looked);
    expect(got.kind === 'found' ? `found ${got.run}` : got.why).toContain(want);
  });
});

describe('judgeReview', () => {
  const found = { kind: 'found' as const, pr: 7, run: 100, artifact: art() };
  const none = { kind: 'none' as const, why: 'no pull request was merged as commit aaaaaaaaaaaa (a direct push)' };
  it.each([
    ['found, required', found, true, 'apply'],
    ['found, not required', found, false, 'apply'],
    ['none, required: the step fails before the CLI', none, true, 'fail'],
    ['none, not required: the sync runs without one', none, false, 'without'],
  ])('%s', (_, outcome, required, kind) => {
    const v = judgeReview(outcome, required);
    expect(v.kind).toBe(kind);
    if (v.kind === 'apply') expect(v.line).toContain('pull request #7 (workflow run 100)');
    if (v.kind === 'fail') {
      expect(v.reason).toContain(none.why);
      expect(v.reason).toContain(REQUIRE_NEXT);
      expect(v.line).toContain('No reviewed plan was applied');
    }
    if (v.kind === 'without') expect(v.line).toMatch(/^No reviewed plan was applied: no pull request was merged .*require-reviewed-plan is false/);
  });
});

describe('regression: a failed lookup read "No reviewed plan: The plan artifact …" (a capital mid-sentence)', () => {
  it('lowercases a leading capitalised word and drops a trailing period', () => {
    const failed = lookupFailure('The plan artifact of pull request #20 does not match the digest GitHub recorded for it.');
    expect(failed).toEqual({ kind: 'none', why: 'the plan artifact of pull request #20 does not match the digest GitHub recorded for it' });
    const verdict = judgeReview(failed, true);
    expect(verdict.kind === 'fail' ? verdict.reason : '').toMatch(/^No reviewed plan: the plan artifact of pull request #20 does not match/);
    expect(judgeReview(failed, false).line).toMatch(/^No reviewed plan was applied: the plan artifact /);
  });

  it('keeps an identifier as it is spelled', () => {
    expect(lookupFailure('GITHUB_REPOSITORY is not owner/repo').why).toBe('GITHUB_REPOSITORY is not owner/repo');
    expect(lookupFailure('the lookup failed unexpectedly').why).toBe('the lookup failed unexpectedly');
  });
});
