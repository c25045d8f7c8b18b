/**
 * The Action's flow (SPEC §8): validate inputs → install and verify the exact
 * CLI → run it → validate the report and cross-check it with the exit code →
 * outputs and job summary → fail with the fixed message of SPEC §7.1.
 */
import { lstat, mkdtemp, chmod, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import { cliArgs, runCli } from './cli.js';
import { scrubbedEnv } from './env.js';
import { envInputReader, parseInputs, type Inputs } from './inputs.js';
import { installCli } from './install.js';
import { ActionFailure, Message, skewFailure, type FixedMessage } from './messages.js';
import {
  crossCheck,
  failureMessageFor,
  MAX_REPORT_BYTES,
  parseReport,
  ReportError,
  type Report,
} from './report.js';

/** Output names (action.yml) in declaration order. */
export const OUTPUT_NAMES = [
  'status',
  'cli-version',
  'git-revision',
  'create-count',
  'update-count',
  'restore-count',
  'scheduled-delete-count',
  'unchanged-count',
  'conflict-count',
  'verification-status',
  'redacted-report-path',
] as const;

async function privateReportPath(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = await mkdtemp(join(env.RUNNER_TEMP || tmpdir(), 'sops-aws-sync-'));
  await chmod(dir, 0o700);
  return join(dir, 'report.json');
}

/** Reads the report if it exists as a regular file; undefined when absent. */
async function readReport(path: string): Promise<Report | undefined> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return undefined;
  }
  if (!st.isFile()) throw new ReportError('report is not a regular file');
  if (st.size > MAX_REPORT_BYTES) throw new ReportError('report is larger than expected');
  return parseReport(await readFile(path, 'utf8'));
}

function publish(inputs: Inputs, report: Report, reportPath: string, failure: FixedMessage | undefined): Promise<void> {
  const c = report.counts;
  const outputs: Record<(typeof OUTPUT_NAMES)[number], string> = {
    status: report.status,
    'cli-version': inputs.cliVersion,
    'git-revision': report.git_revision,
    'create-count': String(c.create),
    'update-count': String(c.update),
    'restore-count': String(c.restore),
    'scheduled-delete-count': String(c.schedule_delete),
    'unchanged-count': String(c.unchanged),
    'conflict-count': String(c.conflicts),
    'verification-status': report.verification,
    'redacted-report-path': reportPath,
  };
  for (const name of OUTPUT_NAMES) core.setOutput(name, outputs[name]);
  if (!process.env.GITHUB_STEP_SUMMARY) return Promise.resolve();
  const row = (k: string, v: string): [string, string] => [k, v];
  return core.summary
    .addHeading(`sops-aws-sync ${inputs.mode}`, 2)
    .addRaw(failure === undefined ? `Result: ${report.status}` : `Result: ${failure}`, true)
    .addTable([
      [
        { data: 'Field', header: true },
        { data: 'Value', header: true },
      ],
      row('Status', report.status),
      row('Verification', report.verification),
      row('Create', String(c.create)),
      row('Update', String(c.update)),
      row('Restore', String(c.restore)),
      row('Scheduled delete', String(c.schedule_delete)),
      row('Unchanged', String(c.unchanged)),
      row('Conflicts', String(c.conflicts)),
      row('Git revision', report.git_revision || '(not resolved)'),
      row('CLI version', report.tool_version),
      row('Duration (ms)', String(report.duration_ms)),
    ])
    .write()
    .then(() => undefined);
}

/** Runs the CLI and turns its exit code and report into the step's result. */
async function execute(inputs: Inputs, binary: string, childEnv: Record<string, string>): Promise<void> {
  const env = process.env;
  const reportPath = await privateReportPath(env);
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const args = cliArgs(inputs, workspace, reportPath);
  core.info(`Running sops-aws-sync ${inputs.mode} (cli ${inputs.cliVersion}).`);
  const { exitCode, stderrBytes } = await runCli(binary, args, workspace, childEnv);
  if (stderrBytes > 0) core.warning(Message.stderrWarning);
  core.setOutput('cli-version', inputs.cliVersion);
  core.setOutput('redacted-report-path', reportPath);

  let report: Report | undefined;
  try {
    report = await readReport(reportPath);
  } catch (e) {
    if (e instanceof ReportError) throw skewFailure(`The ${e.message}.`);
    throw e;
  }
  if (report === undefined) {
    // A report that cannot be written forces exit 3 (SPEC §7.1); any other
    // exit without a report means the CLI does not honour this contract.
    if (exitCode === 3) throw new ActionFailure(Message.invalid, 'The CLI exited 3 without writing its report.');
    throw skewFailure(`The CLI exited ${exitCode} without writing its report.`);
  }
  const tv = report.tool_version;
  if (tv !== inputs.cliVersion && tv !== `v${inputs.cliVersion}`) {
    throw skewFailure('The report names a CLI version other than cli-version.');
  }
  const disagreement = crossCheck(exitCode, report, {
    mode: inputs.mode,
    detailedExitCode: inputs.mode === 'plan' && inputs.failOnDrift,
  });
  if (disagreement !== undefined) throw skewFailure(`Exit code and report disagree: ${disagreement}.`);

  const failure = failureMessageFor(exitCode);
  await publish(inputs, report, reportPath, failure);
  if (failure !== undefined) throw new ActionFailure(failure);
}

/** Entry point: never throws; failures end in core.setFailed with a fixed message. */
export async function run(): Promise<void> {
  try {
    const inputs = parseInputs(envInputReader(process.env), process.env);
    core.setSecret(inputs.githubToken);
    const childEnv = scrubbedEnv(process.env);
    const installed = await installCli(inputs.cliVersion, inputs.githubToken, process.env, childEnv);
    await execute(inputs, installed.path, childEnv);
  } catch (e) {
    if (e instanceof ActionFailure) {
      if (e.reason !== undefined) core.info(e.reason);
      core.setFailed(e.message);
      return;
    }
    core.debug(e instanceof Error ? `unexpected ${e.name}` : 'unexpected non-error value');
    core.setFailed(Message.internal);
  }
}
