import { describe, expect, it } from 'vitest';
import { assetName, runnerPlatform } from '../../src/platform.js';
import { scrubbedEnv } from '../../src/env.js';
import { attestationArgs, missingFlags, REQUIRED_FLAGS } from '../../src/attest.js';

describe('runnerPlatform', () => {
  it.each([
    ['Linux', 'X64', 'sops-aws-sync_1.2.3_linux_amd64', 'x64'],
    ['Linux', 'ARM64', 'sops-aws-sync_1.2.3_linux_arm64', 'arm64'],
    ['macOS', 'X64', 'sops-aws-sync_1.2.3_darwin_amd64', 'x64'],
    ['macOS', 'ARM64', 'sops-aws-sync_1.2.3_darwin_arm64', 'arm64'],
  ])('%s/%s → %s', (os, arch, name, cacheArch) => {
    const p = runnerPlatform(os, arch);
    expect(p).toBeDefined();
    if (p === undefined) return;
    expect(assetName('1.2.3', p)).toBe(name);
    expect(p.cacheArch).toBe(cacheArch);
  });

  it.each([
    ['Windows', 'X64'],
    ['Linux', 'X86'],
    ['Linux', 'ARM'],
    [undefined, undefined],
  ])('has no binary for %s/%s', (os, arch) => {
    expect(runnerPlatform(os, arch)).toBeUndefined();
  });
});

describe('scrubbedEnv', () => {
  it('drops inputs and runner tokens, keeps AWS and SOPS settings', () => {
    const out = scrubbedEnv({
      'INPUT_GITHUB-TOKEN': 't',
      INPUT_MODE: 'plan',
      GITHUB_TOKEN: 't',
      GH_TOKEN: 't',
      ACTIONS_RUNTIME_TOKEN: 't',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 't',
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:1',
      SOPS_AGE_KEY_FILE: '/k',
      PATH: '/bin',
    });
    expect(out).toEqual({
      AWS_REGION: 'eu-west-1',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:1',
      SOPS_AGE_KEY_FILE: '/k',
      PATH: '/bin',
    });
  });
});

describe('gh attestation verify', () => {
  const help = `Usage: gh attestation verify [<file-path> | oci://<image-uri>] [--owner | --repo] [flags]
FLAGS
      --deny-self-hosted-runners     Fail verification for attestations generated on self-hosted runners
  -R, --repo string                  Repository name in the format <owner>/<repo>
      --predicate-type string        Filter attestations by provided predicate type
      --signer-digest string         Digest associated with the signer workflow
      --signer-workflow string       Workflow that signed attestation
      --source-digest string         Digest associated with the source repository ref
      --source-ref string            Ref associated with the source repository`;

  it('finds every required flag in a current help text', () => {
    expect(missingFlags(help)).toEqual([]);
  });

  it('reports flags an older gh lacks, without matching longer flag names', () => {
    const old = help
      .split('\n')
      .filter((l) => !l.includes('--source-digest') && !l.includes('--signer-digest'))
      .join('\n')
      .replaceAll('--repo ', '--repository ')
      .replaceAll('--repo]', '--repository]');
    expect(missingFlags(old)).toEqual(['--repo', '--source-digest', '--signer-digest']);
  });

  it('pins repository, signer workflow, tag ref and commit digests', () => {
    const commit = 'c'.repeat(40);
    const args = attestationArgs('/tc/sops-aws-sync', {
      repo: 'o/r',
      signerWorkflow: 'o/r/.github/workflows/release.yml',
      sourceRef: 'refs/tags/v1.2.3',
      commit,
    });
    expect(args.slice(0, 3)).toEqual(['attestation', 'verify', '/tc/sops-aws-sync']);
    const value = (flag: string) => args[args.indexOf(flag) + 1];
    expect(value('--repo')).toBe('o/r');
    expect(value('--signer-workflow')).toBe('o/r/.github/workflows/release.yml');
    expect(value('--source-ref')).toBe('refs/tags/v1.2.3');
    expect(value('--source-digest')).toBe(commit);
    expect(value('--signer-digest')).toBe(commit);
    expect(value('--predicate-type')).toBe('https://slsa.dev/provenance/v1');
    for (const f of REQUIRED_FLAGS) expect(args).toContain(f);
  });
});
