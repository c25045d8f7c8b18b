import { describe, expect, it } from 'vitest';
import { judgeRun, parseReport, type CliEnd, type Report, type ReportRead, type Verdict } from '../../src/report.js';
import { Message } from '../../src/messages.js';

function report(over: Record<string, unknown> = {}): Report {
  return parseReport(
    JSON.stringify({
      schema_version: 'sops-aws-sync/report/v1',
      tool_version: '1.2.3',
      git_revision: '0123456789abcdef0123456789abcdef01234567',
      status: 'converged',
      counts: { create: 0, update: 0, restore: 0, schedule_delete: 0, unchanged: 2, conflicts: 0 },
      verification: 'converged',
      duration_ms: 15,
      ...over,
    }),
  );
}

const converged = report();
const vConverged = report({ tool_version: 'v1.2.3' });
const otherVersion = report({ tool_version: '1.2.4' });
const conflict = report({ status: 'conflict', verification: 'not-run' });
const interrupted = report({ status: 'interrupted', verification: 'not-run' });
const valid = (r: Report): ReportRead => ({ kind: 'valid', report: r });
const absent: ReportRead = { kind: 'absent' };
const broken: ReportRead = { kind: 'broken', reason: 'report is not a regular file', regularFile: false };
const exited = (exitCode: number, over: Partial<CliEnd> = {}): CliEnd => ({
  exitCode,
  signal: null,
  forwarded: undefined,
  killed: false,
  ...over,
});
const cancelled = (exitCode: number, over: Partial<CliEnd> = {}): CliEnd => exited(exitCode, { forwarded: 'SIGINT', ...over });
const publish = (r: Report, failure?: string): Verdict => ({ kind: 'publish', report: r, failure: failure as never });
const fail = (message: string, detail: string, pub?: Report): Verdict =>
  pub === undefined ? { kind: 'fail', message: message as never, detail } : { kind: 'fail', message: message as never, detail, publish: pub };

const sync = { mode: 'sync', detailedExitCode: false } as const;

// The step's decision from what the CLI left: every branch of execute's
// former inline logic, one row each.
describe('judgeRun (SPEC §7.1, §8)', () => {
  it.each<[string, ReportRead, CliEnd, Verdict]>([
    ['a converged sync is published, no failure', valid(converged), exited(0), publish(converged)],
    ['a report whose tool_version has a leading v matches', valid(vConverged), exited(0), publish(vConverged)],
    ['a failing exit that agrees is published with its fixed message', valid(conflict), exited(4), publish(conflict, Message.conflict)],
    ['a broken report is skew', broken, exited(0), fail(Message.skew, 'The report is not a regular file.')],
    ['exit 3 without a report is an invalid run', absent, exited(3), fail(Message.invalid, 'The CLI exited 3 without writing its report.')],
    [
      'a signal without a report is skew',
      absent,
      exited(-1, { signal: 'SIGSEGV' }),
      fail(Message.skew, 'The CLI was ended by SIGSEGV without writing its report.'),
    ],
    ['another exit without a report is skew', absent, exited(0), fail(Message.skew, 'The CLI exited 0 without writing its report.')],
    [
      'a report of another version is skew',
      valid(otherVersion),
      exited(0),
      fail(Message.skew, 'The report names a CLI version other than cli-version.'),
    ],
    [
      'an exit code the report contradicts is skew',
      valid(converged),
      exited(4),
      fail(Message.skew, 'Exit code and report disagree: exit code 4 does not allow status converged.'),
    ],
    ['cancelled, a valid agreeing report stands', valid(interrupted), cancelled(130), publish(interrupted, Message.interrupted)],
    [
      'cancelled without a report is the interruption, not skew',
      absent,
      cancelled(-1, { signal: 'SIGINT' }),
      fail(Message.interrupted, 'The CLI was interrupted without writing its report.'),
    ],
    [
      'cancelled with a broken report',
      broken,
      cancelled(130),
      fail(Message.interrupted, 'The CLI was interrupted and left a report is not a regular file.'),
    ],
    [
      'cancelled with a report of another version: not published',
      valid(otherVersion),
      cancelled(130),
      fail(Message.interrupted, 'The CLI was interrupted and its report names a CLI version other than cli-version.'),
    ],
    [
      'cancelled and killed: the report it wrote is published with the interruption',
      valid(converged),
      cancelled(-1, { signal: 'SIGKILL', killed: true }),
      fail(Message.interrupted, 'The CLI was interrupted and had to be killed; the outputs are from the report it had written.', converged),
    ],
    [
      'cancelled with a report the exit code contradicts: published with the interruption',
      valid(converged),
      cancelled(130),
      fail(
        Message.interrupted,
        'The CLI was interrupted and its exit code and report disagree: exit code 130 does not allow status converged.',
        converged,
      ),
    ],
  ])('%s', (_, read, cli, want) => {
    expect(judgeRun(read, cli, '1.2.3', sync)).toEqual(want);
  });
});
