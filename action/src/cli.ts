/**
 * Running the verified CLI (SPEC §8): no shell, --log-format=json, the report
 * in a private directory, stdout forwarded with workflow commands disabled,
 * stderr captured and never forwarded, cancellation signals forwarded.
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { DEFAULT_KILL_GRACE_MS, supervise, type Cancellation, type CancelSignal } from './cancel.js';
import type { Inputs } from './inputs.js';

/**
 * The CLI arguments for the validated inputs; one flag per set input, plus
 * the report file and the plan file (--plan-file) the Action reads, and
 * with the input changes (sync) the changes file (--changes-file).
 * With config-file, --config and --scope are passed and the boolean inputs
 * only when true: a flag overrides the file's key (SPEC §2.1), and one of a
 * per-scope key while the file has scopes: is refused (SPEC §10), so the
 * Action's own defaults must not reach the CLI as flags.
 */
export function cliArgs(
  inputs: Inputs,
  repositoryPath: string,
  reportFile: string,
  planFile: string,
  changesFile = '',
): string[] {
  const args: string[] = [inputs.mode];
  const flag = (name: string, value: string | number | undefined): void => {
    if (value !== undefined && value !== '') args.push(`--${name}=${value}`);
  };
  const bool = (name: string, value: boolean): void => {
    if (inputs.configFile === '' || value) flag(name, String(value));
  };
  flag('repository', repositoryPath);
  flag('config', inputs.configFile);
  flag('scope', inputs.scopes.join(','));
  flag('revision', inputs.revision);
  flag('repository-id', inputs.repositoryId);
  flag('source-root', inputs.sourceRoot);
  flag('secret-prefix', inputs.secretPrefix);
  flag('target', inputs.target);
  flag('parameter-tier', inputs.parameterTier);
  flag('aws-region', inputs.awsRegion);
  flag('recovery-window-days', inputs.recoveryWindowDays);
  flag('run-timeout', inputs.runTimeout);
  flag('operation-timeout', inputs.operationTimeout);
  flag('verification-timeout', inputs.verificationTimeout);
  bool('allow-empty', inputs.allowEmpty);
  flag('max-deletions', inputs.maxDeletions);
  flag('kms-key-id', inputs.kmsKeyId);
  flag('description', inputs.description);
  for (const pair of inputs.tags) flag('tag', pair);
  flag('key-services', inputs.keyServices);
  bool('show-resource-names', inputs.showResourceNames);
  flag('log-format', 'json');
  flag('report-file', reportFile);
  flag('plan-file', planFile);
  // sync's --changes-file: a flag of sync, not a setting (it names secrets).
  if (inputs.changes && inputs.mode === 'sync') flag('changes-file', changesFile);
  if (detailedExitCode(inputs)) args.push('--detailed-exit-code');
  return args;
}

/**
 * True when plan runs with --detailed-exit-code (drift exits 2): asked for by
 * fail-on-drift, and needed by drift-issue, which must tell drift from an
 * error by the exit code alone.
 */
export function detailedExitCode(inputs: Pick<Inputs, 'mode' | 'failOnDrift' | 'driftIssue'>): boolean {
  return inputs.mode === 'plan' && (inputs.failOnDrift || inputs.driftIssue !== undefined);
}

export interface CliResult {
  /** The process exit code; -1 when the process ended without one (killed by a signal). */
  exitCode: number;
  /** The signal that ended the process, or null when it exited on its own. */
  signal: NodeJS.Signals | null;
  /** Bytes the CLI wrote to stderr (the bytes themselves are discarded). */
  stderrBytes: number;
  /** The cancellation signal the Action forwarded to the CLI (src/cancel.ts), if any. */
  forwarded: CancelSignal | undefined;
  /** True when the CLI outlived the grace period after that signal and was sent SIGKILL. */
  killed: boolean;
}

export interface RunCliOptions {
  /** Where the CLI's stdout goes (the step log by default). */
  write?: (chunk: Buffer | string) => void;
  /** Forwards the runner's cancellation signals to the CLI while it runs. */
  cancellation?: Cancellation;
  /** Milliseconds between the forwarded signal and SIGKILL (DEFAULT_KILL_GRACE_MS). */
  graceMs?: number;
  /** Log lines of the Action itself about the forwarding. */
  log?: (line: string) => void;
}

/** Milliseconds to wait for the CLI's stdout/stderr to close after it exited (a grandchild may hold them). */
const STDIO_CLOSE_MS = 2000;

/**
 * Runs the binary directly (no shell) in cwd with env and no stdin. stdout
 * goes to the log between stop-commands markers, so no line the CLI prints
 * can act as a workflow command; stderr is counted and dropped. With a
 * cancellation, SIGINT/SIGTERM reach the CLI (see src/cancel.ts). Rejects
 * only when the process cannot be started.
 *
 * node:child_process rather than @actions/exec: forwarding a signal needs the
 * child process, which @actions/exec does not expose.
 */
export async function runCli(
  binary: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  opts: RunCliOptions = {},
): Promise<CliResult> {
  const write = opts.write ?? ((c: Buffer | string) => process.stdout.write(c));
  const marker = randomUUID().replace(/-/g, '');
  write(`::stop-commands::${marker}\n`);
  try {
    return await new Promise<CliResult>((resolve, reject) => {
      let stderrBytes = 0;
      let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let settled = false;
      let closeTimer: NodeJS.Timeout | undefined;
      // detached: the CLI leads its own process group, so a signal sent to
      // the Action's whole group (Ctrl-C in a terminal) reaches the CLI only
      // once, through supervise: a second delivery would make it exit at
      // once without its report.
      const child = spawn(binary, args, {
        cwd,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        windowsHide: true,
        detached: true,
      });
      const supervision =
        opts.cancellation === undefined
          ? undefined
          : supervise(child, opts.cancellation, {
              graceMs: opts.graceMs ?? DEFAULT_KILL_GRACE_MS,
              ...(opts.log === undefined ? {} : { log: opts.log }),
            });
      const finish = (): void => {
        if (settled) return;
        settled = true;
        if (closeTimer !== undefined) clearTimeout(closeTimer);
        const outcome = supervision?.release() ?? { forwarded: undefined, killed: false };
        if (exited === undefined) {
          reject(new Error('the CLI could not be started'));
          return;
        }
        const { code, signal } = exited;
        resolve({ exitCode: Number.isInteger(code) ? (code as number) : -1, signal, stderrBytes, ...outcome });
      };
      child.stdout.on('data', (data: Buffer) => {
        write(data);
      });
      child.stderr.on('data', (data: Buffer) => {
        stderrBytes += data.length;
      });
      child.on('error', () => {
        // Only a start failure (no pid, no exit to follow) ends the wait; a
        // failed kill of a running CLI changes nothing here.
        if (child.pid === undefined && exited === undefined) finish();
      });
      child.on('exit', (code, signal) => {
        exited = { code, signal };
        supervision?.release();
        closeTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, STDIO_CLOSE_MS);
      });
      child.on('close', finish);
    });
  } finally {
    write(`\n::${marker}::\n`);
  }
}
