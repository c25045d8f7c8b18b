/**
 * Running the verified CLI (SPEC §8): no shell, --log-format=json, the report
 * in a private directory, stdout forwarded with workflow commands disabled,
 * stderr captured and never forwarded.
 */
import { randomUUID } from 'node:crypto';
import * as exec from '@actions/exec';
import type { Inputs } from './inputs.js';

/** The CLI arguments for the validated inputs; one flag per set input. */
export function cliArgs(inputs: Inputs, repositoryPath: string, reportFile: string): string[] {
  const args: string[] = [inputs.mode];
  const flag = (name: string, value: string | number | undefined): void => {
    if (value !== undefined && value !== '') args.push(`--${name}=${value}`);
  };
  flag('repository', repositoryPath);
  flag('revision', inputs.revision);
  flag('repository-id', inputs.repositoryId);
  flag('source-root', inputs.sourceRoot);
  flag('secret-prefix', inputs.secretPrefix);
  flag('aws-region', inputs.awsRegion);
  flag('recovery-window-days', inputs.recoveryWindowDays);
  flag('run-timeout', inputs.runTimeout);
  flag('operation-timeout', inputs.operationTimeout);
  flag('verification-timeout', inputs.verificationTimeout);
  flag('allow-empty', String(inputs.allowEmpty));
  flag('show-resource-names', String(inputs.showResourceNames));
  flag('log-format', 'json');
  flag('report-file', reportFile);
  if (inputs.mode === 'plan' && inputs.failOnDrift) args.push('--detailed-exit-code');
  return args;
}

export interface CliResult {
  /** The process exit code; -1 when the process ended without one (killed by a signal). */
  exitCode: number;
  /** Bytes the CLI wrote to stderr (the bytes themselves are discarded). */
  stderrBytes: number;
}

/**
 * Runs the binary directly (no shell) in cwd with env. stdout goes to the
 * log between stop-commands markers, so no line the CLI prints can act as a
 * workflow command; stderr is counted and dropped.
 */
export async function runCli(
  binary: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  write: (chunk: Buffer | string) => void = (c) => process.stdout.write(c),
): Promise<CliResult> {
  let stderrBytes = 0;
  const marker = randomUUID().replace(/-/g, '');
  write(`::stop-commands::${marker}\n`);
  let code: number;
  try {
    code = await exec.exec(`"${binary}"`, args, {
      cwd,
      env,
      silent: true,
      ignoreReturnCode: true,
      windowsVerbatimArguments: false,
      listeners: {
        stdout: (data: Buffer) => {
          write(data);
        },
        stderr: (data: Buffer) => {
          stderrBytes += data.length;
        },
      },
    });
  } finally {
    write(`\n::${marker}::\n`);
  }
  return { exitCode: Number.isInteger(code) ? code : -1, stderrBytes };
}
