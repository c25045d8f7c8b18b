/**
 * The Action's fixed failure and warning messages (SPEC §7.1, §8; the
 * recovery guide keys its remedies on these exact strings, so they never
 * change and never carry a value).
 */
export const Message = {
  drift: 'sops-aws-sync plan detected drift',
  invalid: 'sops-aws-sync rejected the Action configuration or desired state',
  conflict: 'sops-aws-sync found an ownership or observed-state conflict',
  apply: 'sops-aws-sync apply did not complete safely',
  verification: 'sops-aws-sync verification did not converge',
  interrupted: 'sops-aws-sync was interrupted',
  skew: 'CLI exit status and redacted report disagree',
  install: 'Exact CLI installation or verification failed',
  checksum: 'CLI binary checksum verification failed',
  internal: 'sops-aws-sync Action execution failed',
  forkRefused: 'sops-aws-sync does not plan pull requests from forks',
  unplannedChange: 'sops-aws-sync computed no plan for a pull request that changes secrets; a maintainer must plan it from a branch',
  noCredentials: 'sops-aws-sync computed no plan: the job has no AWS credentials',
  stderrWarning: 'sops-aws-sync wrote a diagnostic to stderr',
  planRenderWarning: 'sops-aws-sync could not render its plan file; the summary has no plan section',
  commentWarning: 'sops-aws-sync could not post the plan comment on the pull request',
  driftIssueWarning: 'sops-aws-sync could not update the drift issue',
  scopesCheckWarning: 'sops-aws-sync could not compare the scopes with AWS Organizations',
  noReviewedPlan: 'sops-aws-sync found no reviewed plan to apply',
  planUploadWarning: 'sops-aws-sync could not upload the plan file as an artifact',
  reviewLookupWarning: 'sops-aws-sync could not look up the reviewed plan',
  changesWarning: 'sops-aws-sync left no valid changes file; the outputs changed and state-digests are not set',
} as const;

export type FixedMessage = (typeof Message)[keyof typeof Message];

/**
 * A failure the Action anticipated. `message` is always one of the fixed
 * messages above; `reason` is an optional line in our own words that names a
 * setting, a file or an HTTP status but never a value, a token or a
 * provider's raw text. The reason goes to the log, the message to the step
 * failure.
 */
export class ActionFailure extends Error {
  readonly reason: string | undefined;

  constructor(message: FixedMessage, reason?: string) {
    super(message);
    this.name = 'ActionFailure';
    this.reason = reason;
  }
}

/** An input failed validation: the CLI was never installed or run. */
export function configFailure(reason: string): ActionFailure {
  return new ActionFailure(Message.invalid, reason);
}

/** Installing or verifying the exact CLI release failed. */
export function installFailure(reason: string): ActionFailure {
  return new ActionFailure(Message.install, reason);
}

/** The binary's SHA-256 differs from the release's checksums. */
export function checksumFailure(reason: string): ActionFailure {
  return new ActionFailure(Message.checksum, reason);
}

/** Exit code and report disagree, or the exit code is undocumented. */
export function skewFailure(reason: string): ActionFailure {
  return new ActionFailure(Message.skew, reason);
}
