/**
 * Build-provenance verification with the runner's GitHub CLI:
 * `gh attestation verify <binary>` pinned to the release repository, the
 * release workflow as signer, the tag as source ref and the tag's commit as
 * source and signer digest. Before the first use the Action checks that the
 * installed gh knows every flag it needs (older gh releases lack some), so a
 * too-old gh fails closed instead of verifying less than intended.
 */
import * as exec from '@actions/exec';
import { installFailure } from './messages.js';

/** What the attestation must prove about the binary. */
export interface AttestationPolicy {
  /** owner/name of the repository that published the release. */
  repo: string;
  /** owner/name/.github/workflows/<file> of the workflow that signed it. */
  signerWorkflow: string;
  /** refs/tags/v<version>. */
  sourceRef: string;
  /** Full SHA of the commit the tag points at. */
  commit: string;
}

export const SLSA_PROVENANCE_V1 = 'https://slsa.dev/provenance/v1';

/** Flags of `gh attestation verify` the Action relies on. */
export const REQUIRED_FLAGS = [
  '--repo',
  '--signer-workflow',
  '--source-ref',
  '--source-digest',
  '--signer-digest',
  '--predicate-type',
  '--deny-self-hosted-runners',
] as const;

/** Returns the required flags that a `gh attestation verify --help` text does not mention. */
export function missingFlags(helpText: string): string[] {
  return REQUIRED_FLAGS.filter((flag) => !new RegExp(`(^|[^A-Za-z0-9-])${flag}(?![A-Za-z0-9-])`, 'm').test(helpText));
}

/** The argument list of `gh attestation verify` for one binary. */
export function attestationArgs(binary: string, p: AttestationPolicy): string[] {
  return [
    'attestation',
    'verify',
    binary,
    '--repo',
    p.repo,
    '--signer-workflow',
    p.signerWorkflow,
    '--source-ref',
    p.sourceRef,
    '--source-digest',
    p.commit,
    '--signer-digest',
    p.commit,
    '--predicate-type',
    SLSA_PROVENANCE_V1,
    '--deny-self-hosted-runners',
  ];
}

async function gh(args: string[], env: Record<string, string>): Promise<exec.ExecOutput> {
  try {
    return await exec.getExecOutput('gh', args, { silent: true, ignoreReturnCode: true, env });
  } catch {
    throw installFailure('The GitHub CLI (gh) is not available on the runner; it is needed to verify build provenance.');
  }
}

/** Runs gh with a scrubbed environment plus the token; verifies provenance. */
export class AttestationVerifier {
  private probed = false;

  constructor(
    private readonly policy: AttestationPolicy,
    private readonly env: Record<string, string>,
  ) {}

  /** Fails with the installation message when gh lacks a required flag. */
  async probe(): Promise<void> {
    if (this.probed) return;
    const out = await gh(['attestation', 'verify', '--help'], this.env);
    const missing = missingFlags(`${out.stdout}\n${out.stderr}`);
    if (out.exitCode !== 0 || missing.length > 0) {
      const what = missing.length > 0 ? ` (missing ${missing.join(', ')})` : '';
      throw installFailure(`The runner's GitHub CLI cannot verify attestations as required${what}; update gh.`);
    }
    this.probed = true;
  }

  /** Fails with the installation message unless gh accepts the binary's provenance. */
  async verify(binary: string): Promise<void> {
    await this.probe();
    const out = await gh(attestationArgs(binary, this.policy), this.env);
    if (out.exitCode !== 0) {
      throw installFailure(`gh attestation verify rejected the CLI binary (exit ${out.exitCode}).`);
    }
  }
}
