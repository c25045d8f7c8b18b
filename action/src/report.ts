/**
 * The CLI's redacted report, schema sops-aws-sync/report/v1 (SPEC §7.2), and
 * the cross-check between the process exit code and the report (SPEC §7.1).
 */
import { Message, type FixedMessage } from './messages.js';

export const REPORT_SCHEMA = 'sops-aws-sync/report/v1';

/** Largest report the Action reads; a real one is a few hundred bytes. */
export const MAX_REPORT_BYTES = 64 * 1024;

export const STATUSES = [
  'converged',
  'drift',
  'invalid',
  'conflict',
  'apply-failed',
  'observation-failed',
  'verification-failed',
  'verification-inconclusive',
  'interrupted',
  'unreachable',
] as const;
export type Status = (typeof STATUSES)[number];

export const VERIFICATIONS = ['converged', 'failed', 'inconclusive', 'not-run'] as const;
export type Verification = (typeof VERIFICATIONS)[number];

/** The keys of the report's counts object, in file order (SPEC §7.2). */
export const COUNT_KEYS = ['create', 'update', 'restore', 'schedule_delete', 'unchanged', 'conflicts'] as const;
/** The report's top-level keys, in file order (SPEC §7.2; scopes is an additive key of v1). */
export const REPORT_KEYS = [
  'schema_version',
  'tool_version',
  'git_revision',
  'status',
  'counts',
  'verification',
  'duration_ms',
  'scopes',
] as const;
/**
 * The report keys a report may lack: scopes is absent in reports of CLI
 * versions before it (cli-version pins any release) and when a usage error
 * or a rejected configuration stopped the run before its scopes were known.
 */
export const OPTIONAL_REPORT_KEYS = ['scopes'] as const;
/** The keys of one element of the report's scopes, in file order. */
export const SCOPE_KEYS = ['name', 'region', 'status', 'verification', 'counts'] as const;

export type CountKey = (typeof COUNT_KEYS)[number];

/** The report's counts: one non-negative integer per COUNT_KEYS entry. */
export type Counts = Record<CountKey, number>;

/** One scope of a run (SPEC §10): its own outcome and counts. */
export interface ScopeResult {
  /** The scope's name, [a-z0-9-]{1,32}. */
  name: string;
  /** The Region its calls went to, or '' when none was known. */
  region: string;
  status: Status;
  verification: Verification;
  counts: Counts;
}

export interface Report {
  schema_version: typeof REPORT_SCHEMA;
  tool_version: string;
  git_revision: string;
  status: Status;
  counts: Counts;
  verification: Verification;
  duration_ms: number;
  /** The run's scopes in configuration order; absent in older reports. */
  scopes?: ScopeResult[];
}

/** The report is missing, unreadable or breaks the schema. */
export class ReportError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ReportError';
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sameKeys(obj: Record<string, unknown>, keys: readonly string[]): boolean {
  const have = Object.keys(obj).sort();
  const want = [...keys].sort();
  return have.length === want.length && have.every((k, i) => k === want[i]);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Checks a counts object of the report (the run's or a scope's); where names it in the error. */
function checkCounts(counts: unknown, where: string): void {
  if (!isPlainObject(counts) || !sameKeys(counts, COUNT_KEYS)) {
    throw new ReportError(`report ${where} keys differ from schema v1`);
  }
  for (const k of COUNT_KEYS) {
    if (!isCount(counts[k])) throw new ReportError(`report ${where}.${k} is not a non-negative integer`);
  }
}

/**
 * Checks the report's scopes: a non-empty array of objects with exactly
 * SCOPE_KEYS, each name of the scope-name rule and listed once, a Region
 * code or '', a known status and verification, valid counts. The name and
 * Region are echoed nowhere unchecked.
 */
function checkScopes(scopes: unknown): void {
  if (!Array.isArray(scopes) || scopes.length === 0) throw new ReportError('report scopes is not a non-empty array');
  const seen = new Set<string>();
  for (const s of scopes as unknown[]) {
    if (!isPlainObject(s) || !sameKeys(s, SCOPE_KEYS)) throw new ReportError('report scope keys differ from schema v1');
    if (typeof s.name !== 'string' || !/^[a-z0-9-]{1,32}$/.test(s.name) || seen.has(s.name)) {
      throw new ReportError('report scope name is malformed or repeated');
    }
    seen.add(s.name);
    if (typeof s.region !== 'string' || !/^(?:[a-z]{2}(?:-[a-z]+){1,3}-[0-9]{1,3})?$/.test(s.region)) {
      throw new ReportError('report scope region is malformed');
    }
    if (!(STATUSES as readonly unknown[]).includes(s.status)) throw new ReportError('report scope status is unknown');
    if (!(VERIFICATIONS as readonly unknown[]).includes(s.verification)) {
      throw new ReportError('report scope verification is unknown');
    }
    checkCounts(s.counts, 'scope counts');
  }
}

/**
 * Parses and validates a report: exactly the keys of SPEC §7.2 (no more, no
 * fewer, also inside counts; scopes may be absent, see OPTIONAL_REPORT_KEYS,
 * and each scope has exactly SCOPE_KEYS), a known status and verification, non-negative
 * safe-integer counts and duration, git_revision 40 lower-case hex or empty,
 * and a tool_version made only of version characters (it is echoed into
 * outputs and the job summary). Throws ReportError naming the broken rule.
 */
export function parseReport(text: string): Report {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ReportError('report is not valid JSON');
  }
  if (!isPlainObject(doc)) throw new ReportError('report is not a JSON object');
  const required = REPORT_KEYS.filter((k) => !(OPTIONAL_REPORT_KEYS as readonly string[]).includes(k));
  if (!sameKeys(doc, REPORT_KEYS) && !sameKeys(doc, required)) throw new ReportError('report keys differ from schema v1');
  if (doc.schema_version !== REPORT_SCHEMA) throw new ReportError('report schema_version is not v1');
  const toolVersion = doc.tool_version;
  if (typeof toolVersion !== 'string' || !/^[0-9A-Za-z.+_-]{1,128}$/.test(toolVersion)) {
    throw new ReportError('report tool_version is malformed');
  }
  const rev = doc.git_revision;
  if (typeof rev !== 'string' || !/^(?:[0-9a-f]{40})?$/.test(rev)) {
    throw new ReportError('report git_revision is malformed');
  }
  if (!(STATUSES as readonly unknown[]).includes(doc.status)) {
    throw new ReportError('report status is unknown');
  }
  if (!(VERIFICATIONS as readonly unknown[]).includes(doc.verification)) {
    throw new ReportError('report verification is unknown');
  }
  checkCounts(doc.counts, 'counts');
  if ('scopes' in doc) checkScopes(doc.scopes);
  if (!isCount(doc.duration_ms)) throw new ReportError('report duration_ms is not a non-negative integer');
  return doc as unknown as Report;
}

/** What the Action asked the CLI to do; the cross-check depends on it. */
export interface RunContext {
  /** The CLI command run (validate: SPEC §15, a plan with nothing planned or observed). */
  mode: 'plan' | 'sync' | 'validate';
  /** plan was run with --detailed-exit-code (fail-on-drift). */
  detailedExitCode: boolean;
}

/** Exit code → the statuses it may carry (SPEC §7.1). */
export const EXIT_STATUS: ReadonlyMap<number, readonly Status[]> = new Map<number, readonly Status[]>([
  [0, ['converged', 'drift']],
  [2, ['drift']],
  [3, ['invalid']],
  [4, ['conflict']],
  [5, ['apply-failed', 'observation-failed', 'unreachable']],
  [6, ['verification-failed', 'verification-inconclusive']],
  [130, ['interrupted']],
]);

/** Exit code → the Action's fixed failure message (SPEC §7.1). */
const EXIT_MESSAGE: ReadonlyMap<number, FixedMessage> = new Map<number, FixedMessage>([
  [2, Message.drift],
  [3, Message.invalid],
  [4, Message.conflict],
  [5, Message.apply],
  [6, Message.verification],
  [130, Message.interrupted],
]);

/** True when code is one of the documented exit codes of SPEC §7.1. */
export function isDocumentedExit(code: number): boolean {
  return EXIT_STATUS.has(code);
}

/** The fixed failure message for a documented failing exit code, or undefined for 0. */
export function failureMessageFor(code: number): FixedMessage | undefined {
  return EXIT_MESSAGE.get(code);
}

/** The planned mutations in c: create + update + restore + schedule_delete (Go's vocab.Counts.Operations). */
export function plannedOperations(c: Counts): number {
  return c.create + c.update + c.restore + c.schedule_delete;
}

/**
 * Checks that the exit code and the report tell the same story (SPEC §7.1).
 * Returns undefined when they agree, otherwise the reason they disagree (the
 * caller fails with "CLI exit status and redacted report disagree"). Rules:
 * - the exit code is documented and allows the report's status;
 * - exit 2 only for plan with --detailed-exit-code, and then drift never exits 0;
 * - sync never reports drift; plan never runs verification;
 * - sync: converged ⇔ verification converged, verification-failed ⇔ failed,
 *   verification-inconclusive ⇔ inconclusive;
 * - plan: converged has no planned operation. Drift may have none: a
 *   configured replica that is Failed is drift with nothing to write (the
 *   scope cannot converge until an operator acts, docs/recovery.md).
 */
export function crossCheck(exitCode: number, report: Report, ctx: RunContext): string | undefined {
  const allowed = EXIT_STATUS.get(exitCode);
  if (allowed === undefined) return `exit code ${exitCode} is not documented`;
  const { status, verification } = report;
  if (!allowed.includes(status)) return `exit code ${exitCode} does not allow status ${status}`;

  if (ctx.mode !== 'sync') {
    if (verification !== 'not-run') return `${ctx.mode} reported a verification outcome`;
    if (ctx.mode === 'validate' && (status === 'drift' || Object.values(report.counts).some((n) => n !== 0))) {
      return 'validate reported a plan';
    }
    if (exitCode === 2 && !ctx.detailedExitCode) return 'exit code 2 without fail-on-drift';
    if (status === 'drift' && exitCode === 0 && ctx.detailedExitCode) {
      return 'drift exited 0 although fail-on-drift was set';
    }
    if (status === 'converged' && plannedOperations(report.counts) !== 0) {
      return 'converged plan has planned operations';
    }
    return undefined;
  }

  if (status === 'drift') return 'sync reported drift';
  const pairs: Partial<Record<Status, Verification>> = {
    converged: 'converged',
    'verification-failed': 'failed',
    'verification-inconclusive': 'inconclusive',
  };
  const want = pairs[status];
  if (want !== undefined && verification !== want) {
    return `status ${status} with verification ${verification}`;
  }
  if (want === undefined && verification === 'converged') {
    return `status ${status} with verification converged`;
  }
  return undefined;
}

/** What lies at the report path after the CLI has run (main.ts reads it). */
export type ReportRead =
  | { kind: 'absent' }
  | { kind: 'valid'; report: Report }
  | { kind: 'broken'; reason: string; regularFile: boolean };

/** How the CLI process ended: the part of cli.ts's CliResult that judgeRun reads. */
export interface CliEnd {
  /** The exit code; -1 when a signal ended the process. */
  exitCode: number;
  /** The signal that ended the process, or null. */
  signal: string | null;
  /** The cancellation signal the Action forwarded, if any. */
  forwarded: string | undefined;
  /** The CLI outlived the grace period after that signal and was sent SIGKILL. */
  killed: boolean;
}

/**
 * What the step does with a finished CLI run:
 * - publish: the report is accepted; publish it (outputs, summary, comment,
 *   drift issue) and fail with failure when there is one (after the drift
 *   issue had its say);
 * - fail: fail with message, detail being the log line that says why; when
 *   publish is set, that report is published first (with message as its
 *   result) although the run is not accepted as it stands.
 */
export type Verdict =
  | { kind: 'publish'; report: Report; failure: FixedMessage | undefined }
  | { kind: 'fail'; message: FixedMessage; detail: string; publish?: Report };

/**
 * The decision of the step from what the CLI left (SPEC §7.1, §8), pure:
 * the report read, how the process ended, the cli-version input and the
 * run's mode. A report is accepted only when it is valid, names cli-version
 * (with or without a leading v), the CLI was not killed, and it agrees with
 * the exit code (crossCheck). After a forwarded cancellation anything less
 * is the interruption (never version skew), and a valid report of this
 * version is still published. Without a cancellation: a broken report, a
 * report of another version or one that disagrees with the exit code is
 * version skew; no report is exit 3's invalid run (the CLI could not write
 * it) or else skew.
 */
export function judgeRun(read: ReportRead, cli: CliEnd, cliVersion: string, ctx: RunContext): Verdict {
  const report = read.kind === 'valid' ? read.report : undefined;
  const tv = report?.tool_version;
  const versionMatches = tv === cliVersion || tv === `v${cliVersion}`;
  const disagreement =
    report === undefined || !versionMatches || cli.killed ? undefined : crossCheck(cli.exitCode, report, ctx);
  const skew = (detail: string): Verdict => ({ kind: 'fail', message: Message.skew, detail });

  if (cli.forwarded !== undefined) {
    if (report !== undefined && versionMatches && !cli.killed && disagreement === undefined) {
      return { kind: 'publish', report, failure: failureMessageFor(cli.exitCode) };
    }
    let why: string;
    if (read.kind === 'absent') why = 'without writing its report';
    else if (read.kind === 'broken') why = `and left a ${read.reason}`;
    else if (!versionMatches) why = 'and its report names a CLI version other than cli-version';
    else if (cli.killed) why = 'and had to be killed; the outputs are from the report it had written';
    else why = `and its exit code and report disagree: ${disagreement ?? 'unknown'}`;
    const v: Verdict = { kind: 'fail', message: Message.interrupted, detail: `The CLI was interrupted ${why}.` };
    return report !== undefined && versionMatches ? { ...v, publish: report } : v;
  }

  if (read.kind === 'broken') return skew(`The ${read.reason}.`);
  if (report === undefined) {
    // A report that cannot be written forces exit 3 (SPEC §7.1); any other
    // exit without a report means the CLI does not honour this contract.
    if (cli.exitCode === 3) return { kind: 'fail', message: Message.invalid, detail: 'The CLI exited 3 without writing its report.' };
    if (cli.signal !== null) return skew(`The CLI was ended by ${cli.signal} without writing its report.`);
    return skew(`The CLI exited ${cli.exitCode} without writing its report.`);
  }
  if (!versionMatches) return skew('The report names a CLI version other than cli-version.');
  if (disagreement !== undefined) return skew(`Exit code and report disagree: ${disagreement}.`);
  return { kind: 'publish', report, failure: failureMessageFor(cli.exitCode) };
}
