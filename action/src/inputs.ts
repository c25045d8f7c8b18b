import { configFailure } from './messages.js';
import type { ForkPolicy } from './unplanned.js';

/** The label the Action looks for and sets when drift-issue is `true`. */
export const DEFAULT_DRIFT_LABEL = 'sops-aws-sync-drift';

/** The Action's inputs after validation (SPEC §8). */
export interface Inputs {
  /** The CLI command: plan, sync or validate (SPEC §15: checks without AWS, never a plan). */
  mode: 'plan' | 'sync' | 'validate';
  failOnDrift: boolean;
  /**
   * The CLI's --config file (workspace-relative or absolute), or empty for
   * none. With a file, the Action passes only the inputs that are set: the
   * file's keys are not overridden by Action defaults (docs/github-action.md).
   */
  configFile: string;
  /** The scope names of --scope (a subset of the file's scopes:), or empty for every scope. */
  scopes: string[];
  /** Empty means "let the CLI apply its default" (secrets). */
  sourceRoot: string;
  /** Empty only with a config file (which then names the prefix, or its scopes do). */
  secretPrefix: string;
  /** A commit-ish; defaults to the workflow SHA (GITHUB_SHA). */
  revision: string;
  /**
   * e.g. owner/repo; defaults to the workflow repository (GITHUB_REPOSITORY)
   * without a config file; with one, empty leaves it to the file.
   */
  repositoryId: string;
  awsRegion: string;
  /**
   * The 12-digit AWS account the job's credentials act in, or empty. Part of
   * the identity of the comment and the drift issue only (src/identity.ts);
   * never passed to the CLI.
   */
  awsAccountId: string;
  /** Undefined means the CLI default (30). */
  recoveryWindowDays: number | undefined;
  runTimeout: string;
  operationTimeout: string;
  verificationTimeout: string;
  allowEmpty: boolean;
  /** Undefined means no deletion limit (the CLI default). */
  maxDeletions: number | undefined;
  /**
   * The scope's AWS service (TARGETS): '' means the CLI default
   * (secrets-manager) or the config file's key.
   */
  target: string;
  /**
   * Parameter tier of a parameter-store scope (PARAMETER_TIERS): '' means
   * the CLI default (standard) or the config file's key.
   */
  parameterTier: string;
  /** Empty means "not managed" (the CLI leaves the secret's key alone). */
  kmsKeyId: string;
  /** Empty means "not managed". */
  description: string;
  /** KEY=VALUE pairs, one per line of the multi-line input; empty = not managed. */
  tags: string[];
  /** The CLI's --key-services list, one line; empty = the CLI default (age,pgp,aws-kms). */
  keyServices: string;
  showResourceNames: boolean;
  /** Post the rendered plan as one sticky comment on the pull request (pull_request events). */
  pullRequestComment: boolean;
  /**
   * The label of the scheduled drift check's one issue (plan only; input
   * drift-issue `true` gives DEFAULT_DRIFT_LABEL), or undefined when off.
   */
  driftIssue: string | undefined;
  /**
   * The drift check's comparison of the committed scopes with AWS
   * Organizations (SPEC §17, src/scopes.ts): the flags of `scopes generate`
   * as --name=value arguments (input scopes-generate), or undefined when off.
   */
  scopesGenerate: string[] | undefined;
  /** The read role `scopes generate --check` assumes (--organizations-role-arn); '' for the chain's credentials. */
  organizationsRoleArn: string;
  /**
   * What a plan run does for a pull request from a fork (src/unplanned.ts):
   * validate --no-decrypt instead, failing when the pull request changes
   * secrets (validate, the default), or fail at once (fail).
   */
  forkPullRequests: ForkPolicy;
  /**
   * sync only: fail before the CLI runs when no reviewed plan is found
   * (src/review.ts judgeReview); false runs the sync without one and says
   * so in the job summary.
   */
  requireReviewedPlan: boolean;
  /**
   * sync only: ask the CLI for its changes file and set the outputs changed
   * and state-digests from it (they name secrets; never printed).
   */
  changes: boolean;
  /** Exact semantic version without a leading "v", e.g. 1.2.3. */
  cliVersion: string;
  githubToken: string;
}

/** Every input name declared in action.yml, in declaration order. */
export const INPUT_NAMES = [
  'mode',
  'fail-on-drift',
  'config-file',
  'scopes',
  'source-root',
  'secret-prefix',
  'target',
  'parameter-tier',
  'revision',
  'repository-id',
  'aws-region',
  'aws-account-id',
  'recovery-window-days',
  'run-timeout',
  'operation-timeout',
  'verification-timeout',
  'allow-empty',
  'max-deletions',
  'kms-key-id',
  'description',
  'tags',
  'key-services',
  'show-resource-names',
  'pull-request-comment',
  'drift-issue',
  'scopes-generate',
  'organizations-role-arn',
  'fork-pull-requests',
  'require-reviewed-plan',
  'changes',
  'cli-version',
  'github-token',
] as const;

export type InputName = (typeof INPUT_NAMES)[number];

/**
 * The values of the CLI's target setting (SPEC §16; the wire contract's
 * choices, internal/vocab/testdata/wire.golden.json, holds the CLI's list).
 */
export const TARGETS = ['secrets-manager', 'parameter-store'] as const;

/** One of TARGETS. */
export type Target = (typeof TARGETS)[number];

/** What the Action reads of a target's row of the CLI's target table (model.Target). */
export interface TargetRow {
  /** The AWS service of its ARNs ("secretsmanager", "ssm"). */
  arnService: string;
  /** Its ARNs' resource type with its separator ("secret:", "parameter/"). */
  arnResource: string;
  /** The service's name in a sentence ("AWS Secrets Manager", "Parameter Store"). */
  service: string;
  /** Its resources ("secrets", "parameters"). */
  resources: string;
  /** Whether a deletion can be undone (a recovery window) or is immediate. */
  deletionUndoable: boolean;
}

/**
 * The CLI's target table as the Action reads it (SPEC §16; the wire
 * contract's targets, internal/vocab/testdata/wire.golden.json, holds the
 * CLI's rows).
 */
export const TARGET_ROWS: Readonly<Record<Target, TargetRow>> = {
  'secrets-manager': {
    arnService: 'secretsmanager',
    arnResource: 'secret:',
    service: 'AWS Secrets Manager',
    resources: 'secrets',
    deletionUndoable: true,
  },
  'parameter-store': {
    arnService: 'ssm',
    arnResource: 'parameter/',
    service: 'Parameter Store',
    resources: 'parameters',
    deletionUndoable: false,
  },
};

/** The row of a target input's value ('' or an unknown value: the default, secrets-manager). */
export function targetRow(target: string): TargetRow {
  return (TARGET_ROWS as Record<string, TargetRow>)[target] ?? TARGET_ROWS['secrets-manager'];
}

/** The values of the CLI's parameter-tier setting (SPEC §16; wire contract choices). */
export const PARAMETER_TIERS = ['standard', 'advanced'] as const;

/** Reads one input's raw value ('' when unset). */
export type InputReader = (name: InputName) => string;

/**
 * Reads inputs the way the runner passes them: INPUT_<NAME> with the name
 * upper-cased, spaces replaced by "_" and dashes kept (INPUT_SECRET-PREFIX).
 * Surrounding whitespace is trimmed, as @actions/core's getInput does.
 */
export function envInputReader(env: NodeJS.ProcessEnv): InputReader {
  return (name) => (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

// Semantic Versioning 2.0.0 (semver.org), exact versions only: no "v", no range.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

// Go's time.ParseDuration grammar: an optional "+", then one or more
// <number><unit>. A "-" sign is not matched: such a value is never greater
// than zero.
const GO_DURATION = /^\+?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const GO_DURATION_PART = /(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/g;

/** Nanoseconds per unit of a Go duration. */
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's largest time.Duration, 2^63 - 1 nanoseconds (about 2,562,047 hours); larger values fail to parse. */
const MAX_DURATION_NS = 2n ** 63n - 1n;

const TRUE = new Set(['true', 'True', 'TRUE']);
const FALSE = new Set(['false', 'False', 'FALSE']);

/** True when v is an exact SemVer 2.0.0 version such as 1.2.3 or 1.2.3-rc.1. */
export function isExactSemver(v: string): boolean {
  return v.length <= 128 && SEMVER.test(v);
}

/**
 * True when v is a Go duration (time.ParseDuration) greater than zero and
 * within Go's range, e.g. 30s, +1m30s, 1.5h: the CLI's rule for its duration
 * settings (sample verdicts in internal/vocab/testdata/wire.golden.json).
 * A "-" sign is rejected; a fraction below one nanosecond counts as zero.
 */
export function isPositiveGoDuration(v: string): boolean {
  if (v.length > 64 || !GO_DURATION.test(v)) return false;
  let ns = 0n;
  for (const [, whole = '', fraction = '', unit = ''] of v.matchAll(GO_DURATION_PART)) {
    const per = UNIT_NS[unit] ?? 0n;
    // Like Go: the whole part times the unit, plus the fraction's share of it rounded down.
    ns += BigInt(whole || '0') * per + (fraction === '' ? 0n : (BigInt(fraction) * per) / 10n ** BigInt(fraction.length));
  }
  return ns > 0n && ns <= MAX_DURATION_NS;
}

function parseBoolean(read: InputReader, name: InputName): boolean {
  const raw = read(name);
  if (raw === '' || FALSE.has(raw)) return false;
  if (TRUE.has(raw)) return true;
  throw configFailure(`Input ${name} must be true or false.`);
}

function parseDuration(read: InputReader, name: InputName): string {
  const raw = read(name);
  if (raw === '') return '';
  if (!isPositiveGoDuration(raw)) {
    throw configFailure(`Input ${name} must be a Go duration greater than zero, such as 30s or 10m.`);
  }
  return raw;
}

/** An input that is empty (the CLI's default) or one of the values given. */
function oneOf(read: InputReader, name: InputName, values: readonly string[]): string {
  const raw = read(name);
  if (raw !== '' && !values.includes(raw)) throw configFailure(`Input ${name} must be ${values.join(' or ')}.`);
  return raw;
}

function singleLine(read: InputReader, name: InputName): string {
  const raw = read(name);
  if (/[\r\n\0]/.test(raw)) throw configFailure(`Input ${name} must be a single line.`);
  return raw;
}

/**
 * The multi-line tags input: one KEY=VALUE pair per line (the key ends at
 * the first "="); blank lines and surrounding whitespace are ignored, CRLF
 * is tolerated. Only the shape is checked here; the CLI owns the tag rules
 * (reserved prefixes, lengths, characters, count) and rejects them with
 * exit 3, naming --tag and never the value.
 */
function parseTags(read: InputReader): string[] {
  const pairs: string[] = [];
  for (const raw of read('tags').split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (/\0/.test(line) || line.indexOf('=') <= 0) {
      throw configFailure('Input tags must hold one KEY=VALUE pair per line.');
    }
    pairs.push(line);
  }
  return pairs;
}

/** The scope name rule of the CLI (SPEC §10): 1 to 32 of a-z, 0-9 and "-". */
const SCOPE_NAME = /^[a-z0-9-]{1,32}$/;

/**
 * The scopes input: scope names separated by commas or new lines (blank
 * entries and surrounding white space ignored), each of the CLI's scope
 * name rule, none twice; only with config-file (the scopes are the file's).
 */
function parseScopes(read: InputReader, configFile: string): string[] {
  const names = read('scopes')
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (names.length === 0) return [];
  if (configFile === '') throw configFailure('Input scopes needs config-file: the scopes are those of the config file.');
  for (const n of names) {
    if (!SCOPE_NAME.test(n)) {
      throw configFailure('Input scopes must list scope names of 1 to 32 lower-case letters, digits or dashes, separated by commas.');
    }
  }
  if (new Set(names).size !== names.length) throw configFailure('Input scopes names a scope twice.');
  return names;
}

/** Events whose plan is of an unmerged commit (GITHUB_EVENT_NAME). */
const PR_EVENTS = new Set(['pull_request', 'pull_request_target']);

/**
 * The drift-issue input: `false` or empty (off), `true` (on, label
 * DEFAULT_DRIFT_LABEL) or the label's name. A name is 1 to 50 characters
 * (GitHub's limit on a label name), without a comma (the Issues list API
 * takes a comma-separated list of labels), a control character or white
 * space at either end. Only for plan runs, outside pull-request events (a
 * pull request's plan is of a commit not yet merged, so it says nothing
 * about drift of the branch), with GITHUB_REPOSITORY naming the repository
 * the issue lives in.
 */
/** Input changes: a boolean, true only with mode sync (plan changes nothing). */
function parseChangesInput(read: InputReader, mode: Inputs['mode']): boolean {
  const on = parseBoolean(read, 'changes');
  if (on && mode !== 'sync') throw configFailure('Input changes is only for mode sync: a plan changes nothing.');
  return on;
}

function parseDriftIssue(read: InputReader, mode: Inputs['mode'], env: NodeJS.ProcessEnv): string | undefined {
  const raw = read('drift-issue');
  if (raw === '' || FALSE.has(raw)) return undefined;
  const label = TRUE.has(raw) ? DEFAULT_DRIFT_LABEL : raw;
  if (label.length > 50 || label.includes(',') || /\p{Cc}/u.test(label) || label.trim() !== label) {
    throw configFailure('Input drift-issue must be true, false or a label name of at most 50 characters without commas.');
  }
  if (mode !== 'plan') throw configFailure('Input drift-issue is only for mode plan (the scheduled drift check).');
  if (PR_EVENTS.has(env.GITHUB_EVENT_NAME ?? '')) {
    throw configFailure('Input drift-issue is not for pull_request events: run the drift check on a schedule or by workflow_dispatch.');
  }
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(env.GITHUB_REPOSITORY ?? '')) {
    throw configFailure('Input drift-issue needs GITHUB_REPOSITORY (owner/repo), the repository the issue is opened in.');
  }
  return label;
}

/** The flags of `scopes generate` input scopes-generate may give (each line one). */
export const SCOPES_GENERATE_FLAGS = ['ou', 'account-tag', 'regions', 'role-name', 'plan-role-name', 'template'] as const;

/**
 * Input scopes-generate: one flag of `scopes generate` a line, `--name
 * value` or `--name=value`, of SCOPES_GENERATE_FLAGS (--role-name
 * required); as --name=value arguments. Only with drift-issue and
 * config-file (the committed scopes file compared).
 */
function parseScopesGenerate(read: InputReader, driftIssue: string | undefined, configFile: string): string[] | undefined {
  const lines = read('scopes-generate')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return undefined;
  if (driftIssue === undefined) throw configFailure('Input scopes-generate needs drift-issue: the comparison is reported in the drift issue.');
  if (configFile === '') throw configFailure('Input scopes-generate needs config-file: the committed scopes file it compares.');
  const args: string[] = [];
  for (const line of lines) {
    const m = /^--([a-z-]+)(?:=|\s+)(\S.*)$/.exec(line);
    const name = m?.[1] ?? '';
    const value = (m?.[2] ?? '').trim();
    if (!(SCOPES_GENERATE_FLAGS as readonly string[]).includes(name) || value === '' || /\p{Cc}/u.test(value)) {
      throw configFailure(`Input scopes-generate takes one flag a line, --name value, of --${SCOPES_GENERATE_FLAGS.join(', --')}.`);
    }
    args.push(`--${name}=${value}`);
  }
  if (!args.some((a) => a.startsWith('--role-name='))) throw configFailure('Input scopes-generate needs a --role-name line.');
  return args;
}

/** Input organizations-role-arn: an IAM role ARN or ''; only with scopes-generate. */
function parseOrganizationsRole(read: InputReader, scopesGenerate: string[] | undefined): string {
  const raw = read('organizations-role-arn').trim();
  if (raw === '') return '';
  if (scopesGenerate === undefined) throw configFailure('Input organizations-role-arn needs scopes-generate.');
  if (!/^arn:aws[a-z-]*:iam::\d{12}:role\/[A-Za-z0-9+=,.@_/-]+$/.test(raw)) {
    throw configFailure('Input organizations-role-arn must be an IAM role ARN, arn:<partition>:iam::<account>:role/<name>.');
  }
  return raw;
}

/**
 * Validates every input (SPEC §8) and applies the workflow defaults for
 * revision (GITHUB_SHA) and repository-id (GITHUB_REPOSITORY). Rules the CLI
 * owns (secret-name characters, source-root shape) are left to the CLI,
 * which rejects them with exit 3. Throws an ActionFailure carrying the fixed
 * "rejected the Action configuration" message; its reason names the input
 * and the rule, never the rejected value.
 */
export function parseInputs(read: InputReader, env: NodeJS.ProcessEnv): Inputs {
  const mode = read('mode') || 'plan';
  if (mode !== 'plan' && mode !== 'sync' && mode !== 'validate') throw configFailure('Input mode must be plan, sync or validate.');

  const forkPullRequests = read('fork-pull-requests') || 'validate';
  if (forkPullRequests !== 'validate' && forkPullRequests !== 'fail') {
    throw configFailure('Input fork-pull-requests must be validate or fail.');
  }

  const configFile = singleLine(read, 'config-file');
  const secretPrefix = singleLine(read, 'secret-prefix');
  if (secretPrefix === '' && configFile === '') {
    throw configFailure('Input secret-prefix is required (or config-file, whose keys or scopes name the prefix).');
  }

  const revision = singleLine(read, 'revision') || (env.GITHUB_SHA ?? '');
  if (revision === '') throw configFailure('Input revision is empty and GITHUB_SHA is not set.');

  // With a config file the file names the repository id unless the input
  // does: a default here would override the file's key (flags win).
  const repositoryId = singleLine(read, 'repository-id') || (configFile === '' ? (env.GITHUB_REPOSITORY ?? '') : '');
  if (repositoryId === '' && configFile === '') {
    throw configFailure('Input repository-id is empty and GITHUB_REPOSITORY is not set.');
  }

  // An AWS account id is 12 digits (AWS Account Management reference).
  const awsAccountId = read('aws-account-id');
  if (awsAccountId !== '' && !/^\d{12}$/.test(awsAccountId)) {
    throw configFailure('Input aws-account-id must be a 12-digit AWS account id.');
  }

  let recoveryWindowDays: number | undefined;
  const rawWindow = read('recovery-window-days');
  if (rawWindow !== '') {
    const n = /^\d{1,3}$/.test(rawWindow) ? Number(rawWindow) : NaN;
    if (!(n >= 7 && n <= 30)) {
      throw configFailure('Input recovery-window-days must be a whole number from 7 to 30.');
    }
    recoveryWindowDays = n;
  }

  let maxDeletions: number | undefined;
  const rawMax = read('max-deletions');
  if (rawMax !== '') {
    if (!/^\d{1,9}$/.test(rawMax)) throw configFailure('Input max-deletions must be a whole number, 0 or more.');
    maxDeletions = Number(rawMax);
  }

  const requireReviewedPlan = parseBoolean(read, 'require-reviewed-plan');
  if (requireReviewedPlan && mode !== 'sync') {
    throw configFailure('Input require-reviewed-plan applies to mode sync only (a plan is what gets reviewed).');
  }

  const cliVersion = read('cli-version');
  if (!isExactSemver(cliVersion)) {
    throw configFailure(
      'Input cli-version must be an exact semantic version such as 1.2.3 (no leading v, no range).',
    );
  }

  const githubToken = read('github-token');
  if (githubToken === '') {
    throw configFailure('Input github-token is required to look up and verify the CLI release.');
  }

  const driftIssue = parseDriftIssue(read, mode, env);
  const scopesGenerate = parseScopesGenerate(read, driftIssue, configFile);
  return {
    mode,
    failOnDrift: parseBoolean(read, 'fail-on-drift'),
    configFile,
    scopes: parseScopes(read, configFile),
    sourceRoot: singleLine(read, 'source-root'),
    secretPrefix,
    target: oneOf(read, 'target', TARGETS),
    parameterTier: oneOf(read, 'parameter-tier', PARAMETER_TIERS),
    revision,
    repositoryId,
    awsRegion: singleLine(read, 'aws-region'),
    awsAccountId,
    recoveryWindowDays,
    runTimeout: parseDuration(read, 'run-timeout'),
    operationTimeout: parseDuration(read, 'operation-timeout'),
    verificationTimeout: parseDuration(read, 'verification-timeout'),
    allowEmpty: parseBoolean(read, 'allow-empty'),
    maxDeletions,
    kmsKeyId: singleLine(read, 'kms-key-id'),
    description: singleLine(read, 'description'),
    tags: parseTags(read),
    keyServices: singleLine(read, 'key-services'),
    showResourceNames: parseBoolean(read, 'show-resource-names'),
    pullRequestComment: parseBoolean(read, 'pull-request-comment'),
    driftIssue,
    scopesGenerate,
    organizationsRoleArn: parseOrganizationsRole(read, scopesGenerate),
    forkPullRequests,
    requireReviewedPlan,
    changes: parseChangesInput(read, mode),
    cliVersion,
    githubToken,
  };
}
