/**
 * The Action's flow (SPEC §8): validate inputs → install and verify the exact
 * CLI → run it → validate the report and cross-check it with the exit code →
 * outputs and job summary → fail with the fixed message of SPEC §7.1.
 */
import { lstat, mkdtemp, chmod, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import * as core from '@actions/core';
import { Cancellation, killGraceMs, untilCancelled, type CancelSignal, type SignalSource } from './cancel.js';
import { cliArgs, detailedExitCode, runCli, type CliResult } from './cli.js';
import { CommentError, GitHubComments, pullRequestTarget, upsertComment } from './comment.js';
import { scrubbedEnv } from './env.js';
import { apiBase } from './github.js';
import { scopeIdentity } from './identity.js';
import { envInputReader, parseInputs, targetRow, type Inputs } from './inputs.js';
import { installCli } from './install.js';
import { reviewedPlan, summaryLine, uploadPlan } from './reviewed.js';
import {
  closingComment,
  driftBody,
  driftMarker,
  driftTitle,
  GitHubIssues,
  legacyDriftMarker,
  IssueError,
  reportConvergence,
  reportDrift,
  runUrl,
  type IssueOutcome,
} from './issue.js';
import { readChanges } from './changes.js';
import { runScopesCheck, scopesCheckArgs, type ScopesCheck } from './scopes.js';
import { ActionFailure, Message, skewFailure, type FixedMessage } from './messages.js';
import {
  capMarkdown,
  COMMENT_PLAN_MAX_BYTES,
  legacyPlanMarker,
  planFileExists,
  planMarker,
  renderMarkdown,
  SUMMARY_PLAN_MAX_BYTES,
} from './plan.js';
import { readPullFiles, readRunFacts, readSourceRoots, GitHubPullFiles } from './pulls.js';
import {
  COUNT_KEYS,
  judgeRun,
  MAX_REPORT_BYTES,
  parseReport,
  ReportError,
  type CountKey,
  type Report,
  type ReportRead,
} from './report.js';
import { chooseRun, judgeNoPlan, noPlanSentence, withoutSecrets, type RunChoice } from './unplanned.js';

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
  'plan-file-path',
  'planned',
  'changed',
  'state-digests',
] as const;

/** The report and plan file paths in a fresh private (0700) directory under RUNNER_TEMP. */
async function privatePaths(env: NodeJS.ProcessEnv): Promise<{ report: string; plan: string; roots: string; changes: string; scopesDiff: string }> {
  const dir = await mkdtemp(join(env.RUNNER_TEMP || tmpdir(), 'sops-aws-sync-'));
  await chmod(dir, 0o700);
  return {
    report: join(dir, 'report.json'),
    plan: join(dir, 'plan.json'),
    roots: join(dir, 'source-roots.json'),
    changes: join(dir, 'changes.json'),
    scopesDiff: join(dir, 'scopes-diff.md'),
  };
}

/**
 * With the input changes: sets the outputs changed (the changes as a JSON
 * array) and state-digests (a JSON object, scope → digest) from the CLI's
 * changes file. The content is never logged: a missing or broken file is
 * one fixed warning and a reason line, and the outputs stay unset. Returns
 * false then: a run that otherwise passed fails the step (execute), since
 * a redeploy keyed on the outputs would silently miss what changed.
 */
async function publishChanges(inputs: Inputs, path: string): Promise<boolean> {
  if (!inputs.changes) return true;
  const read = await readChanges(path);
  if (read.kind === 'valid') {
    core.setOutput('changed', read.outputs.changed);
    core.setOutput('state-digests', read.outputs.stateDigests);
    return true;
  }
  core.warning(Message.changesWarning);
  core.info(read.kind === 'absent' ? 'sops-aws-sync wrote no changes file.' : `${read.reason}.`);
  return false;
}


/** Reads and validates the report if the CLI left one. */
async function readReport(path: string): Promise<ReportRead> {
  let st;
  try {
    st = await lstat(path);
  } catch {
    return { kind: 'absent' };
  }
  if (!st.isFile()) return { kind: 'broken', reason: 'report is not a regular file', regularFile: false };
  if (st.size > MAX_REPORT_BYTES) return { kind: 'broken', reason: 'report is larger than expected', regularFile: true };
  try {
    return { kind: 'valid', report: parseReport(await readFile(path, 'utf8')) };
  } catch (e) {
    if (e instanceof ReportError) return { kind: 'broken', reason: e.message, regularFile: true };
    throw e;
  }
}

/** Outputs set from a valid report (plan-file-path, planned, changed and state-digests are set apart). */
type ReportOutput = Exclude<(typeof OUTPUT_NAMES)[number], 'plan-file-path' | 'planned' | 'changed' | 'state-digests'>;

/**
 * Each report count: its output and its row in the job summary. Typed by
 * COUNT_KEYS, so a count key added to the report (the wire contract,
 * internal/vocab/testdata/wire.golden.json) does not compile until it has both.
 */
export const COUNT_VIEW: Readonly<Record<CountKey, { output: ReportOutput; label: string }>> = {
  create: { output: 'create-count', label: 'Create' },
  update: { output: 'update-count', label: 'Update' },
  restore: { output: 'restore-count', label: 'Restore' },
  schedule_delete: { output: 'scheduled-delete-count', label: 'Scheduled delete' },
  unchanged: { output: 'unchanged-count', label: 'Unchanged' },
  conflicts: { output: 'conflict-count', label: 'Conflicts' },
};

/**
 * The job summary's label of count key k in the words of the run's target
 * (TARGET_ROWS): a Parameter Store deletion is immediate, not scheduled
 * (SPEC §16); the report's key and the step's output keep their names.
 */
export function countLabel(k: CountKey, target: string): string {
  if (k === 'schedule_delete' && !targetRow(target).deletionUndoable) return 'Delete (immediate)';
  return COUNT_VIEW[k].label;
}

/**
 * The job summary's result line and table rows (field, value) for a
 * report of a run of target, in that target's words (countLabel): what
 * publish writes under the heading, before the plan's Markdown.
 */
export function summaryTable(
  report: Report,
  target: string,
  failure: FixedMessage | undefined,
): { result: string; rows: [string, string][] } {
  const c = report.counts;
  return {
    result: failure === undefined ? `Result: ${report.status}` : `Result: ${failure}`,
    rows: [
      ['Status', report.status],
      ['Verification', report.verification],
      ...COUNT_KEYS.map((k): [string, string] => [countLabel(k, target), String(c[k])]),
      ['Git revision', report.git_revision || '(not resolved)'],
      ['CLI version', report.tool_version],
      ['Duration (ms)', String(report.duration_ms)],
    ],
  };
}

/**
 * Sets the report's outputs and writes the job summary: the heading, the
 * notes (why no plan was computed, src/unplanned.ts), the result, the table
 * of counts and, when the plan file was rendered, that Markdown (cut below
 * the step-summary limit).
 */
function publish(
  inputs: Inputs,
  report: Report,
  reportPath: string,
  failure: FixedMessage | undefined,
  planMarkdown: string | undefined,
  notes: readonly string[] = [],
): Promise<void> {
  const c = report.counts;
  const counts = COUNT_KEYS.map((k) => ({ ...COUNT_VIEW[k], value: String(c[k]) }));
  const outputs = {
    status: report.status,
    'cli-version': inputs.cliVersion,
    'git-revision': report.git_revision,
    ...Object.fromEntries(counts.map((n) => [n.output, n.value])),
    'verification-status': report.verification,
    'redacted-report-path': reportPath,
  } as Record<ReportOutput, string>;
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
  if (!process.env.GITHUB_STEP_SUMMARY) return Promise.resolve();
  const table = summaryTable(report, inputs.target, failure);
  const summary = core.summary.addHeading(`sops-aws-sync ${inputs.mode}`, 2);
  for (const note of notes) summary.addRaw(note, true).addEOL();
  summary.addRaw(table.result, true).addTable([
    [
      { data: 'Field', header: true },
      { data: 'Value', header: true },
    ],
    ...table.rows,
  ]);
  if (planMarkdown !== undefined) summary.addEOL().addRaw(capMarkdown(planMarkdown, SUMMARY_PLAN_MAX_BYTES).text, true);
  return summary.write().then(() => undefined);
}

/** Milliseconds `show` may take; shorter after a cancellation, when the runner's clock is running. */
const SHOW_TIMEOUT_MS = 30_000;
const SHOW_TIMEOUT_CANCELLED_MS = 2_000;

/**
 * The plan file rendered as Markdown by the verified CLI (`show`), or
 * undefined (with a notice or a warning in the log) when there is none. The
 * result is never changed by this.
 */
async function planMarkdown(
  binary: string,
  planPath: string,
  workspace: string,
  childEnv: Record<string, string>,
  cancelled: boolean,
): Promise<string | undefined> {
  if (!(await planFileExists(planPath))) {
    core.notice('sops-aws-sync wrote no plan file; the summary has no plan section.');
    return undefined;
  }
  const rendered = await renderMarkdown(
    binary,
    planPath,
    workspace,
    childEnv,
    cancelled ? SHOW_TIMEOUT_CANCELLED_MS : SHOW_TIMEOUT_MS,
  );
  if (rendered.ok) return rendered.markdown;
  core.warning(Message.planRenderWarning);
  core.info(`${rendered.reason}.`);
  return undefined;
}

/**
 * Posts (or edits) the run's one plan comment on the pull request (one
 * comment for all the scopes of a config file, a section per scope). Every
 * failure (not a pull-request event, no permission, an HTTP error) is the
 * fixed warning plus a reason line; it never changes the step's result.
 */
async function postPlanComment(inputs: Inputs, markdown: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const target = await pullRequestTarget(env);
    const id = scopeIdentity(inputs, env);
    const marker = planMarker(id);
    const body = `${marker}\n${capMarkdown(markdown, COMMENT_PLAN_MAX_BYTES).text}`;
    const api = new GitHubComments(apiBase(env), inputs.githubToken);
    const done = await upsertComment(api, target, marker, body, legacyPlanMarker(id));
    core.info(`${done.action === 'created' ? 'Created' : 'Edited'} the plan comment on pull request #${target.number}.`);
  } catch (e) {
    core.warning(Message.commentWarning);
    if (e instanceof CommentError) core.info(`${e.message}.`);
    else if (e instanceof ActionFailure && e.reason !== undefined) core.info(e.reason);
    else core.info('The comment request failed unexpectedly.');
  }
}

/** One log line saying what happened to the drift issue. */
function issueLine(done: IssueOutcome): string {
  switch (done.action) {
    case 'opened':
      return `Opened drift issue #${done.number}.`;
    case 'reopened':
      return `Reopened drift issue #${done.number} with the current plan.`;
    case 'edited':
      return `Edited drift issue #${done.number}: the plan changed.`;
    case 'unchanged':
      return `Drift issue #${done.number} already shows this plan: left as it was.`;
    case 'closed':
      return `Closed drift issue ${done.numbers.map((n) => `#${n}`).join(', ')}.`;
    case 'none':
      return 'No open drift issue: nothing to close.';
  }
}

/**
 * The scheduled drift check (input drift-issue): exit 2 opens, reopens or
 * edits the scope's issue with the rendered plan, exit 0 (converged) closes
 * it with the verified commit, any other result leaves it alone. Exit 5
 * with status unreachable (scopes skipped under --max-unreachable-scopes,
 * SPEC §17) opens or edits it too: the rendering names the skipped
 * scopes, and the step keeps exit 5's failure. With scopes-generate, a
 * committed scopes file that differs from AWS Organizations (scopes) adds
 * the comparison's section under the plan and is drift even when the plan
 * converged; a comparison that failed is a warning and never closes the
 * issue. Returns the
 * step's failure message: drift that could not be written to the issue (no
 * rendering, an API failure) fails the step with the drift message, so it
 * is never silent; drift written to the issue fails the step only with
 * fail-on-drift. A failure to close is the fixed warning: the next
 * converged run closes it.
 */
async function maintainDriftIssue(
  inputs: Inputs,
  label: string,
  exitCode: number,
  report: Report,
  markdown: string | undefined,
  failure: FixedMessage | undefined,
  env: NodeJS.ProcessEnv,
  scopes?: ScopesCheck,
): Promise<FixedMessage | undefined> {
  const planDrift = exitCode === 2;
  // A plan that skipped unreachable scopes (--max-unreachable-scopes, SPEC
  // §17): the reachable scopes were planned, and the issue lists the
  // skipped ones (the rendering names them unreachable); the step still
  // fails with exit 5's message.
  const unreachable = exitCode === 5 && report.status === 'unreachable';
  const converged = exitCode === 0 && report.status === 'converged';
  if (!planDrift && !unreachable && !converged) {
    core.info(`sops-aws-sync ${inputs.mode} ended with status ${report.status}: the drift issue is left as it was.`);
    return failure;
  }
  if (scopes?.kind === 'failed') {
    core.warning(Message.scopesCheckWarning);
    core.info(`${scopes.reason}.`);
  }
  const scopesDrift = scopes?.kind === 'differs';
  if ((planDrift || unreachable) && markdown === undefined) {
    core.warning(Message.driftIssueWarning);
    if (unreachable) {
      core.info('No rendered plan: the drift issue is left as it was.');
      return failure;
    }
    core.info('No rendered plan: the drift issue is left as it was, and the drift fails the step.');
    return Message.drift;
  }
  if (converged && !scopesDrift && scopes?.kind === 'failed') {
    core.info('The scopes could not be compared with AWS Organizations: the drift issue is left as it was.');
    return undefined;
  }
  const drift = planDrift || unreachable || scopesDrift;
  const sections = [markdown, scopes?.kind === 'differs' ? scopes.markdown : undefined].filter((m): m is string => m !== undefined);
  const repo = env.GITHUB_REPOSITORY ?? '';
  const id = scopeIdentity(inputs, env);
  const marker = driftMarker(id);
  const legacy = legacyDriftMarker(id);
  try {
    const api = new GitHubIssues(apiBase(env), inputs.githubToken);
    const done =
      drift
        ? await reportDrift(api, repo, label, marker, driftTitle(id, targetRow(inputs.target).service), driftBody(marker, sections.join('\n\n')), legacy)
        : await reportConvergence(
            api,
            repo,
            label,
            marker,
            closingComment(report.git_revision, runUrl(env), targetRow(inputs.target).service),
            legacy,
          );
    core.info(issueLine(done));
    if (unreachable) return failure;
    return (planDrift || scopesDrift) && inputs.failOnDrift ? Message.drift : undefined;
  } catch (e) {
    core.warning(Message.driftIssueWarning);
    if (e instanceof IssueError) core.info(`${e.message}.`);
    else if (e instanceof ActionFailure && e.reason !== undefined) core.info(e.reason);
    else core.info('The drift issue request failed unexpectedly.');
    if (unreachable) return failure;
    if (!drift) return undefined;
    core.info('The drift could not be written to the drift issue, so it fails the step.');
    return Message.drift;
  }
}

/**
 * Input scopes-generate: compares the committed scopes file with AWS
 * Organizations (src/scopes.ts) for the drift issue; the CLI's lines go to
 * the log.
 */
async function compareScopes(
  inputs: Inputs,
  binary: string,
  markdownFile: string,
  workspace: string,
  childEnv: Record<string, string>,
): Promise<ScopesCheck> {
  core.info(`Comparing ${inputs.configFile} with AWS Organizations (scopes generate --check).`);
  const done = await runScopesCheck(binary, scopesCheckArgs(inputs, markdownFile), markdownFile, workspace, childEnv, (line) => {
    core.info(line);
  });
  if (done.kind === 'same') core.info(`${inputs.configFile} is what the organization gives now.`);
  if (done.kind === 'differs') core.info(`${inputs.configFile} differs from the organization: the drift issue says how.`);
  return done;
}

/** A cancellation that arrived before the CLI started: it is never run. */
function notStarted(signal: CancelSignal): ActionFailure {
  return new ActionFailure(Message.interrupted, `Received ${signal} before the CLI started; it was not run.`);
}

/** One log line saying how the CLI ended after the Action forwarded a signal. */
function interruptionLine(cli: CliResult, graceMs: number): string {
  const sig = cli.forwarded ?? 'a signal';
  if (cli.killed) return `The Action forwarded ${sig}; sops-aws-sync did not exit within ${graceMs} ms and was stopped with SIGKILL.`;
  if (cli.signal !== null) return `The Action forwarded ${sig}; sops-aws-sync was ended by ${cli.signal}.`;
  return `The Action forwarded ${sig}; sops-aws-sync exited with code ${cli.exitCode}.`;
}

/**
 * Runs the CLI and turns its exit code and report into the step's result.
 * Outputs: cli-version once the CLI has run, redacted-report-path when it
 * left a report file, the report's values when the report is valid and
 * agrees with the exit code (or, after a forwarded cancellation, when it is
 * valid at all).
 */
async function execute(
  asked: Inputs,
  choice: RunChoice,
  binary: string,
  childEnv: Record<string, string>,
  cancellation: Cancellation,
): Promise<void> {
  const env = process.env;
  const paths = await privatePaths(env);
  const reportPath = paths.report;
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  // A run without a plan runs validate (src/unplanned.ts): its summary,
  // cross-check and arguments are validate's.
  const inputs: Inputs = choice.kind === 'no-plan' ? { ...asked, mode: 'validate' } : asked;
  const args = cliArgs(inputs, workspace, reportPath, paths.plan, paths.changes);
  if (choice.kind === 'no-plan' || (choice.kind === 'validate' && choice.noDecrypt)) args.push('--no-decrypt');
  if (choice.kind === 'no-plan') args.push(`--source-roots-file=${paths.roots}`);
  const notes = runNotes(choice);
  for (const note of notes) core.notice(note);
  const graceMs = killGraceMs(env);
  if (cancellation.signal !== undefined) throw notStarted(cancellation.signal);
  // sync: the reviewed plan of the merged pull request, or none (src/review.ts).
  const reviewed = inputs.mode === 'sync' ? await reviewedPlan(inputs, env) : undefined;
  if (reviewed !== undefined) args.push(...reviewed.args);
  core.info(`Running sops-aws-sync ${inputs.mode} (cli ${inputs.cliVersion}).`);
  const cli = await runCli(binary, args, workspace, childEnv, {
    cancellation,
    graceMs,
    log: (line) => {
      core.info(line);
    },
  });
  if (cli.stderrBytes > 0) core.warning(Message.stderrWarning);
  core.setOutput('cli-version', inputs.cliVersion);
  const { exitCode } = cli;

  const read = await readReport(reportPath);
  if (read.kind === 'valid' || (read.kind === 'broken' && read.regularFile)) {
    core.setOutput('redacted-report-path', reportPath);
  }
  if (await planFileExists(paths.plan)) core.setOutput('plan-file-path', paths.plan);
  // Whatever the verdict: a sync that failed midway still changed what it lists.
  const changesRead = await publishChanges(inputs, paths.changes);

  // The summary and the comment carry the plan only beside a report the
  // Action accepted; the comment is skipped after a cancellation (the
  // runner is about to stop the step).
  // The drift issue likewise (a cancelled run leaves it alone); drift the
  // issue could not take fails the step (maintainDriftIssue).
  const cancelled = cli.forwarded !== undefined;
  const publishAll = async (accepted: Report, failure: FixedMessage | undefined): Promise<FixedMessage | undefined> => {
    const markdown = await planMarkdown(binary, paths.plan, workspace, childEnv, cancelled);
    let result = failure;
    if (inputs.driftIssue !== undefined && choice.kind !== 'plan') {
      core.info('No plan was computed: the drift issue is left as it was.');
    } else if (inputs.driftIssue !== undefined) {
      if (cancelled) core.info('The run was interrupted: the drift issue is left as it was.');
      else {
        const scopes = inputs.scopesGenerate === undefined ? undefined : await compareScopes(inputs, binary, paths.scopesDiff, workspace, childEnv);
        result = await maintainDriftIssue(inputs, inputs.driftIssue, exitCode, accepted, markdown, failure, env, scopes);
      }
    }
    await publish(inputs, accepted, reportPath, result, markdown, notes);
    if (inputs.pullRequestComment) {
      if (choice.kind !== 'plan') core.info('No plan was computed: no pull-request comment.');
      else if (markdown === undefined) core.info('No rendered plan: no pull-request comment.');
      else if (cancelled) core.info('The run was interrupted: no pull-request comment.');
      else await postPlanComment(inputs, markdown, env);
    }
    return result;
  };
  if (cancelled) core.info(interruptionLine(cli, graceMs));
  const verdict = judgeRun(read, cli, inputs.cliVersion, { mode: inputs.mode, detailedExitCode: detailedExitCode(inputs) });
  if (verdict.kind === 'fail') {
    if (verdict.publish !== undefined) await publishAll(verdict.publish, verdict.message);
    if (reviewed !== undefined) await summaryLine(reviewed.line);
    throw new ActionFailure(verdict.message, verdict.detail);
  }
  let failure = verdict.failure;
  let detail: string | undefined;
  if (choice.kind === 'no-plan' && failure === undefined && !cancelled) {
    // validate passed: the run still passes only when there was nothing to plan.
    const pr = choice.pullRequest;
    const roots = await readSourceRoots(paths.roots);
    const files =
      pr === undefined || roots === undefined
        ? undefined
        : await readPullFiles(new GitHubPullFiles(apiBase(env), inputs.githubToken), env.GITHUB_REPOSITORY ?? '', pr.number);
    const judged = judgeNoPlan(choice.reason, pr, roots, repositoryPath(inputs.configFile, workspace), files);
    notes.push(judged.detail);
    core.info(judged.detail);
    if (judged.kind === 'fail') {
      failure = judged.message;
      detail = judged.detail;
    }
  }
  const result = await publishAll(verdict.report, failure);
  if (reviewed !== undefined) await summaryLine(reviewed.line);
  if (inputs.mode === 'plan' && !cancelled) {
    const planFile = await planFileExists(paths.plan);
    await uploadPlan(inputs, env, paths.plan, {
      event: env.GITHUB_EVENT_NAME ?? '',
      status: verdict.report.status,
      exitCode,
      planFile,
      service: Boolean(env.ACTIONS_RUNTIME_TOKEN) && Boolean(env.ACTIONS_RESULTS_URL),
    });
  }
  if (result !== undefined) throw new ActionFailure(result, result === failure ? detail : undefined);
  if (!changesRead) throw skewFailure('Input changes is true but sops-aws-sync left no valid changes file after a successful run.');
}

/** The summary's notes for a run that computes no plan (none for plan and sync). */
function runNotes(choice: RunChoice): string[] {
  switch (choice.kind) {
    case 'no-plan':
      return [noPlanSentence(choice.reason)];
    case 'validate':
      return [
        choice.noDecrypt
          ? 'mode validate, for a pull request from a fork: no plan was computed, and only the checks that need no key ran (`validate --no-decrypt`): a fork\'s run reads no secret.'
          : 'mode validate: no plan was computed; the result says whether the documents pass every check that needs no AWS.',
      ];
    default:
      return [];
  }
}

/**
 * The config-file input as a repository-relative path ("" for none or a
 * file outside the workspace), for comparing with a pull request's files.
 */
function repositoryPath(configFile: string, workspace: string): string {
  if (configFile === '') return '';
  const rel = relative(workspace, resolve(workspace, configFile)).split(sep).join('/');
  return rel.startsWith('..') || isAbsolute(rel) ? '' : rel;
}

/** Milliseconds an interrupted Action waits for abandoned work (an install download) before it exits anyway. */
const EXIT_AFTER_INTERRUPT_MS = 1000;

/**
 * Entry point: never throws; failures end in core.setFailed with a fixed
 * message, exactly once. From the start, SIGINT/SIGTERM are recorded rather
 * than ending the process: before the CLI runs they stop the Action with the
 * interrupted message, while it runs they are forwarded to it (src/cancel.ts).
 */
export async function run(source: SignalSource = process): Promise<void> {
  const cancellation = new Cancellation(source);
  try {
    const inputs = parseInputs(envInputReader(process.env), process.env);
    core.setSecret(inputs.githubToken);
    const choice = chooseRun(await readRunFacts(process.env, inputs.mode, inputs.forkPullRequests));
    core.setOutput('planned', String(choice.kind === 'plan'));
    if (choice.kind === 'refuse') throw new ActionFailure(choice.message, choice.detail);
    // A run without a plan reads no secret: no AWS credentials, no SOPS key reach the CLI.
    const readsNoSecret = choice.kind === 'no-plan' || (choice.kind === 'validate' && choice.noDecrypt);
    const childEnv = readsNoSecret ? withoutSecrets(scrubbedEnv(process.env)) : scrubbedEnv(process.env);
    const installed = await untilCancelled(
      installCli(inputs.cliVersion, inputs.githubToken, process.env, childEnv),
      cancellation,
      notStarted,
    );
    await execute(inputs, choice, installed.path, childEnv, cancellation);
  } catch (e) {
    if (e instanceof ActionFailure) {
      if (e.reason !== undefined) core.info(e.reason);
      core.setFailed(e.message);
      return;
    }
    core.debug(e instanceof Error ? `unexpected ${e.name}` : 'unexpected non-error value');
    core.setFailed(Message.internal);
  } finally {
    const signalled = cancellation.signal !== undefined;
    cancellation.close();
    // An abandoned install may hold a socket open; the step is over.
    if (signalled && source === process) setTimeout(() => process.exit(), EXIT_AFTER_INTERRUPT_MS).unref();
  }
}
