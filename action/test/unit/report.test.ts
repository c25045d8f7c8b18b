import { describe, expect, it } from 'vitest';
import {
  crossCheck,
  failureMessageFor,
  isDocumentedExit,
  parseReport,
  ReportError,
  type Report,
  type Status,
  type Verification,
} from '../../src/report.js';
import { Message } from '../../src/messages.js';

function report(over: Record<string, unknown> = {}, counts: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schema_version: 'sops-aws-sync/report/v1',
    tool_version: '1.2.3',
    git_revision: '0123456789abcdef0123456789abcdef01234567',
    status: 'converged',
    counts: { create: 0, update: 0, restore: 0, schedule_delete: 0, unchanged: 2, conflicts: 0, ...counts },
    verification: 'not-run',
    duration_ms: 15,
    ...over,
  };
}

describe('parseReport', () => {
  it('accepts a schema v1 report and keeps its values', () => {
    const r = parseReport(JSON.stringify(report({ git_revision: '' })));
    expect(r.status).toBe('converged');
    expect(r.counts.unchanged).toBe(2);
    expect(r.git_revision).toBe('');
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['an extra key', { name: 'db' }, {}],
    ['a missing key', { duration_ms: undefined }, {}],
    ['another schema', { schema_version: 'sops-aws-sync/report/v2' }, {}],
    ['an unknown status', { status: 'ok' }, {}],
    ['an unknown verification', { verification: 'skipped' }, {}],
    ['an upper-case revision', { git_revision: 'ABCDEF0123456789ABCDEF0123456789ABCDEF01' }, {}],
    ['a short revision', { git_revision: 'abc123' }, {}],
    ['a tool version with markup', { tool_version: '<b>1</b>' }, {}],
    ['an empty tool version', { tool_version: '' }, {}],
    ['a negative count', {}, { create: -1 }],
    ['a fractional count', {}, { update: 1.5 }],
    ['a string count', {}, { unchanged: '2' }],
    ['an extra count', {}, { rename: 0 }],
    ['a missing count', {}, { conflicts: undefined }],
    ['a negative duration', { duration_ms: -1 }, {}],
  ])('rejects %s', (_what, over, counts) => {
    expect(() => parseReport(JSON.stringify(report(over, counts)))).toThrow(ReportError);
  });

  const scope = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
    name: 'prod',
    region: 'eu-west-1',
    status: 'converged',
    verification: 'not-run',
    counts: { create: 0, update: 1, restore: 0, schedule_delete: 0, unchanged: 2, conflicts: 0 },
    ...over,
  });

  it('accepts a report with scopes and keeps each scope', () => {
    const r = parseReport(JSON.stringify(report({ scopes: [scope(), scope({ name: 'staging', region: '', status: 'drift' })] })));
    expect(r.scopes?.map((s) => [s.name, s.region, s.status, s.counts.update])).toEqual([
      ['prod', 'eu-west-1', 'converged', 1],
      ['staging', '', 'drift', 1],
    ]);
  });

  it('accepts a scope skipped as unreachable beside scopes that converged (SPEC §17)', () => {
    const r = parseReport(
      JSON.stringify(
        report({
          status: 'unreachable',
          scopes: [scope(), scope({ name: 'bravo', status: 'unreachable', counts: { create: 0, update: 0, restore: 0, schedule_delete: 0, unchanged: 0, conflicts: 0 } })],
        }),
      ),
    );
    expect(r.status).toBe('unreachable');
    expect(r.scopes?.map((s) => [s.name, s.status])).toEqual([
      ['prod', 'converged'],
      ['bravo', 'unreachable'],
    ]);
  });

  it.each<[string, unknown]>([
    ['an empty scopes array', []],
    ['scopes that are not an array', { prod: scope() }],
    ['a null scope', [null]],
    ['a scope name with upper case', [scope({ name: 'Prod' })]],
    ['a scope name with markup', [scope({ name: '<b>x</b>' })]],
    ['a scope listed twice', [scope(), scope()]],
    ['a scope region that is no Region code', [scope({ region: 'eu west 1' })]],
    ['a scope status that is unknown', [scope({ status: 'ok' })]],
    ['a scope verification that is unknown', [scope({ verification: 'yes' })]],
    ['a scope with an extra key', [scope({ secret: 'db' })]],
    ['a scope without counts', [scope({ counts: undefined })]],
    ['a scope count that is negative', [scope({ counts: { ...(scope().counts as object), create: -1 } })]],
    ['a scope count key too many', [scope({ counts: { ...(scope().counts as object), adopt: 1 } })]],
  ])('rejects %s', (_what, scopes) => {
    expect(() => parseReport(JSON.stringify(report({ scopes })))).toThrow(ReportError);
  });

  it.each(['', 'null', '[]', '"converged"', '{', '{"status":"converged"}'])('rejects %j', (text) => {
    expect(() => parseReport(text)).toThrow(ReportError);
  });
});

function r(status: Status, verification: Verification, ops = 0): Report {
  return parseReport(JSON.stringify(report({ status, verification }, { create: ops })));
}

const plan = { mode: 'plan', detailedExitCode: false } as const;
const planGated = { mode: 'plan', detailedExitCode: true } as const;
const sync = { mode: 'sync', detailedExitCode: false } as const;

describe('crossCheck (SPEC §7.1)', () => {
  it.each<[number, Report, typeof plan | typeof planGated | typeof sync]>([
    [0, r('converged', 'not-run'), plan],
    [0, r('drift', 'not-run', 1), plan],
    [0, r('converged', 'not-run'), planGated],
    [2, r('drift', 'not-run', 3), planGated],
    // A configured replica that is Failed: drift with nothing to write.
    [2, r('drift', 'not-run', 0), planGated],
    [0, r('drift', 'not-run', 0), plan],
    [0, r('converged', 'converged', 2), sync],
    [3, r('invalid', 'not-run'), plan],
    [3, r('invalid', 'not-run'), sync],
    [4, r('conflict', 'not-run'), sync],
    [5, r('apply-failed', 'not-run'), sync],
    [5, r('observation-failed', 'not-run'), plan],
    // A scope skipped under --max-unreachable-scopes (SPEC §17): never exit 0.
    [5, r('unreachable', 'not-run', 2), sync],
    [5, r('unreachable', 'not-run'), plan],
    [6, r('verification-failed', 'failed'), sync],
    [6, r('verification-inconclusive', 'inconclusive'), sync],
    [130, r('interrupted', 'not-run'), sync],
  ])('agrees: exit %i with %o', (code, rep, ctx) => {
    expect(crossCheck(code, rep, ctx)).toBeUndefined();
  });

  it.each<[number, Report, typeof plan | typeof planGated | typeof sync]>([
    [1, r('invalid', 'not-run'), plan],
    [-1, r('interrupted', 'not-run'), sync],
    [7, r('invalid', 'not-run'), plan],
    [0, r('conflict', 'not-run'), plan],
    [4, r('converged', 'not-run'), plan],
    [2, r('drift', 'not-run', 1), plan],
    [0, r('drift', 'not-run', 1), planGated],
    [0, r('converged', 'not-run', 1), plan],
    [0, r('converged', 'converged'), plan],
    [0, r('converged', 'not-run'), sync],
    [2, r('drift', 'not-run', 1), sync],
    [0, r('drift', 'not-run', 1), sync],
    [6, r('verification-failed', 'inconclusive'), sync],
    [6, r('verification-inconclusive', 'failed'), sync],
    [5, r('apply-failed', 'converged'), sync],
    [3, r('apply-failed', 'not-run'), sync],
    [130, r('converged', 'converged'), sync],
    [0, r('unreachable', 'not-run'), sync],
    [3, r('unreachable', 'not-run'), sync],
  ])('disagrees: exit %i with %o', (code, rep, ctx) => {
    expect(crossCheck(code, rep, ctx)).toBeTypeOf('string');
  });
});

describe('exit code messages (SPEC §7.1)', () => {
  it('maps every failing exit code to its fixed message', () => {
    expect(failureMessageFor(0)).toBeUndefined();
    expect(failureMessageFor(2)).toBe('sops-aws-sync plan detected drift');
    expect(failureMessageFor(3)).toBe('sops-aws-sync rejected the Action configuration or desired state');
    expect(failureMessageFor(4)).toBe('sops-aws-sync found an ownership or observed-state conflict');
    expect(failureMessageFor(5)).toBe('sops-aws-sync apply did not complete safely');
    expect(failureMessageFor(6)).toBe('sops-aws-sync verification did not converge');
    expect(failureMessageFor(130)).toBe('sops-aws-sync was interrupted');
  });

  it('documents exactly 0, 2, 3, 4, 5, 6 and 130', () => {
    const documented = Array.from({ length: 256 }, (_, i) => i).filter(isDocumentedExit);
    expect(documented).toEqual([0, 2, 3, 4, 5, 6, 130]);
  });

  it('keeps the wrapper messages of the recovery guide', () => {
    expect(Message.skew).toBe('CLI exit status and redacted report disagree');
    expect(Message.install).toBe('Exact CLI installation or verification failed');
    expect(Message.checksum).toBe('CLI binary checksum verification failed');
    expect(Message.internal).toBe('sops-aws-sync Action execution failed');
    expect(Message.stderrWarning).toBe('sops-aws-sync wrote a diagnostic to stderr');
  });
});
