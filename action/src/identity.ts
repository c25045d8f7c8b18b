/**
 * The identity of what one run of the Action plans or syncs: the key of its
 * pull-request comment and of its drift issue. Two jobs that write to two
 * different buckets of AWS Secrets Manager (another Region, another
 * account, another prefix, another source root, another config file or
 * subset of its scopes) must never share a comment or an issue: the second
 * would replace the first's plan, which may hold deletions, and a converged
 * Region would close the issue a drifting one opened.
 *
 * The Action cannot ask AWS which account its credentials act in without
 * signing a request of its own, so the account is what the job says: the
 * `aws-account-id` input (configure-aws-credentials' `aws-account-id`
 * output) and the SDK chain's own account selectors, AWS_ROLE_ARN (the role
 * a web-identity token is exchanged for) and AWS_PROFILE. The Region is
 * the one the CLI is given: the `aws-region` input, else AWS_REGION, else
 * AWS_DEFAULT_REGION (what configure-aws-credentials sets).
 */
import { createHash } from 'node:crypto';

/** The CLI's default source root (--source-root), used when the input is empty and no config file can name another. */
const DEFAULT_SOURCE_ROOT = 'secrets';

/** One run's identity; every field is compared, '' meaning "not given". */
export interface ScopeIdentity {
  repositoryId: string;
  /** The source-root input; without a config file, '' is the CLI default (secrets). */
  sourceRoot: string;
  secretPrefix: string;
  /** aws-region, else AWS_REGION, else AWS_DEFAULT_REGION. */
  region: string;
  /** The aws-account-id input. */
  account: string;
  /** AWS_ROLE_ARN of the job's environment. */
  role: string;
  /** AWS_PROFILE of the job's environment. */
  profile: string;
  /** The config-file input ('' for none). */
  configFile: string;
  /** The scopes input, sorted ([] for every scope of the file). */
  scopes: readonly string[];
}

/**
 * The inputs a run's identity is made of, as inputs.ts parses them (an Inputs
 * is one): declared here so that this pure module imports no other.
 */
export interface IdentityInputs {
  repositoryId: string;
  sourceRoot: string;
  secretPrefix: string;
  awsRegion: string;
  awsAccountId: string;
  configFile: string;
  scopes: readonly string[];
}

/** The identity of the run the inputs describe, in the job's environment env. */
export function scopeIdentity(
  inputs: IdentityInputs,
  env: NodeJS.ProcessEnv,
): ScopeIdentity {
  return {
    repositoryId: inputs.repositoryId,
    sourceRoot: inputs.sourceRoot !== '' || inputs.configFile !== '' ? inputs.sourceRoot : DEFAULT_SOURCE_ROOT,
    secretPrefix: inputs.secretPrefix,
    region: inputs.awsRegion || env.AWS_REGION || env.AWS_DEFAULT_REGION || '',
    account: inputs.awsAccountId,
    role: env.AWS_ROLE_ARN ?? '',
    profile: env.AWS_PROFILE ?? '',
    configFile: inputs.configFile,
    scopes: [...inputs.scopes].sort(),
  };
}

const digestOf = (key: unknown): string => createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 16);

/**
 * The run's digest in markers and titles: the first 16 hex digits of the
 * SHA-256 of the JSON array ["sops-aws-sync/scope/v2", repositoryId,
 * sourceRoot, secretPrefix, region, account, role, profile, configFile,
 * [scopes, sorted]]. Values are hashed, never shown: the prefix, the
 * account and the role never appear where GitHub shows them.
 */
export function scopeDigest(id: ScopeIdentity): string {
  return digestOf([
    'sops-aws-sync/scope/v2',
    id.repositoryId,
    id.sourceRoot,
    id.secretPrefix,
    id.region,
    id.account,
    id.role,
    id.profile,
    id.configFile,
    [...id.scopes].sort(),
  ]);
}

/**
 * The digest releases before the whole identity used, which told runs apart
 * by repository id and prefix only (without a config file: the JSON array
 * [repositoryId, secretPrefix]; with one: ["config", configFile, [scopes,
 * sorted], repositoryId, secretPrefix]). A comment or issue made under it
 * is taken over by the first run of the same repository and prefix that
 * finds none of its own (src/comment.ts upsertComment, src/issue.ts).
 */
export function legacyDigest(id: ScopeIdentity): string {
  return digestOf(
    id.configFile === ''
      ? [id.repositoryId, id.secretPrefix]
      : ['config', id.configFile, [...id.scopes].sort(), id.repositoryId, id.secretPrefix],
  );
}
