import { describe, expect, it } from 'vitest';
import { summaryTable } from '../../src/main.js';
import { TARGET_ROWS } from '../../src/inputs.js';
import { Message } from '../../src/messages.js';
import { COUNT_KEYS, STATUSES, parseReport, type Report, type Status } from '../../src/report.js';

// The job summary's table for every target × every run status: the
// Action's own rendering of what the CLI reported (the rest of the
// outputs × results table is Go's: test/e2e/outputs_table_test.go judges
// the report and the plan's Markdown the summary shows below this table).

const verificationOf = (s: Status): string =>
  s === 'converged' ? 'converged' : s === 'verification-failed' ? 'failed' : s === 'verification-inconclusive' ? 'inconclusive' : 'not-run';

function report(status: Status): Report {
  return parseReport(
    JSON.stringify({
      schema_version: 'sops-aws-sync/report/v1',
      tool_version: '1.2.3',
      git_revision: '0123456789abcdef0123456789abcdef01234567',
      status,
      counts: { create: 1, update: 2, restore: 0, schedule_delete: 3, unchanged: 4, conflicts: 0 },
      verification: verificationOf(status),
      duration_ms: 15,
    }),
  );
}

const targets = Object.keys(TARGET_ROWS);
const cells = targets.flatMap((t) => STATUSES.map((s) => [t, s] as const));

describe('job summary table (targets × statuses)', () => {
  it.each(cells)('%s, %s: the status, the verification and each count in the target’s words', (target, status) => {
    const r = report(status);
    const { result, rows } = summaryTable(r, target, undefined);
    expect(result).toBe(`Result: ${status}`);
    expect(rows[0]).toEqual(['Status', status]);
    expect(rows[1]).toEqual(['Verification', r.verification]);
    expect(rows).toHaveLength(2 + COUNT_KEYS.length + 3);
    const labels = rows.map(([k]) => k);
    const deletion = rows[2 + COUNT_KEYS.indexOf('schedule_delete')];
    expect(deletion?.[1]).toBe('3');
    if (TARGET_ROWS[target as keyof typeof TARGET_ROWS].deletionUndoable) {
      expect(deletion?.[0]).toBe('Scheduled delete');
    } else {
      expect(deletion?.[0]).toBe('Delete (immediate)');
      for (const l of labels) expect(l).not.toMatch(/schedul/i);
    }
    expect(rows.at(-3)).toEqual(['Git revision', r.git_revision]);
  });

  it('a failed run says its fixed message, not the status', () => {
    const { result } = summaryTable(report('apply-failed'), 'parameter-store', Message.apply);
    expect(result).toBe(`Result: ${Message.apply}`);
  });
});
