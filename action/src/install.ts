/**
 * Installs the exact CLI release for the runner (SPEC §8): release lookup by
 * tag v<version>, checksums.txt, one raw binary, SHA-256 check, build
 * provenance through gh, tool cache. The checksum and the attestation are
 * checked on every run, also when the binary comes from the tool cache, and
 * always against release metadata fetched in this run.
 */
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import * as core from '@actions/core';
import * as tc from '@actions/tool-cache';
import { AttestationVerifier } from './attest.js';
import { ChecksumsError, MAX_CHECKSUMS_BYTES, parseChecksums, sha256File } from './checksums.js';
import { apiBase, GitHubApi } from './github.js';
import { ActionFailure, checksumFailure, installFailure } from './messages.js';
import { assetName, runnerPlatform } from './platform.js';

/** The repository that publishes CLI releases and signs their provenance. */
export const RELEASE_REPOSITORY = 'sops-aws-sync/sops-aws-sync';
/** The workflow that builds releases and attests them (.github/workflows/release.yml). */
export const SIGNER_WORKFLOW = `${RELEASE_REPOSITORY}/.github/workflows/release.yml`;
export const TOOL_NAME = 'sops-aws-sync';
const CHECKSUMS_ASSET = 'checksums.txt';

export interface Installed {
  /** Absolute path of the verified binary. */
  path: string;
  version: string;
  fromCache: boolean;
}

async function checkDigest(path: string, expected: string, asset: string): Promise<void> {
  const actual = await sha256File(path);
  if (actual !== expected) throw checksumFailure(`SHA-256 of ${asset} does not match checksums.txt.`);
}

/**
 * Installs and verifies CLI `version` for the runner described by env
 * (RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, RUNNER_TOOL_CACHE, GITHUB_API_URL).
 * childEnv is the scrubbed environment for gh. Every failure is an
 * ActionFailure: the checksum message for a digest mismatch, the
 * installation message otherwise.
 */
export async function installCli(
  version: string,
  token: string,
  env: NodeJS.ProcessEnv,
  childEnv: Record<string, string>,
): Promise<Installed> {
  try {
    return await install(version, token, env, childEnv);
  } catch (e) {
    if (e instanceof ActionFailure) throw e;
    throw installFailure('Installing the CLI failed unexpectedly.');
  }
}

async function install(
  version: string,
  token: string,
  env: NodeJS.ProcessEnv,
  childEnv: Record<string, string>,
): Promise<Installed> {
  const platform = runnerPlatform(env.RUNNER_OS, env.RUNNER_ARCH);
  if (platform === undefined) {
    throw installFailure('No CLI release binary exists for this runner; use a Linux or macOS runner on X64 or ARM64.');
  }
  const tag = `v${version}`;
  const name = assetName(version, platform);
  const api = new GitHubApi(apiBase(env), token);

  const release = await api.release(RELEASE_REPOSITORY, tag);
  const binaryAsset = release.assets.find((a) => a.name === name);
  const sumsAsset = release.assets.find((a) => a.name === CHECKSUMS_ASSET);
  if (binaryAsset === undefined) throw installFailure(`Release ${tag} has no asset ${name}.`);
  if (sumsAsset === undefined) throw installFailure(`Release ${tag} has no ${CHECKSUMS_ASSET}.`);

  let sums: Map<string, string>;
  try {
    sums = parseChecksums(await api.downloadText(sumsAsset, MAX_CHECKSUMS_BYTES));
  } catch (e) {
    if (e instanceof ChecksumsError) throw installFailure(`Release ${tag}: ${e.message}.`);
    throw e;
  }
  const expected = sums.get(name);
  if (expected === undefined) throw installFailure(`Release ${tag}: ${CHECKSUMS_ASSET} has no entry for ${name}.`);
  if (binaryAsset.digest !== undefined && binaryAsset.digest !== `sha256:${expected}`) {
    throw checksumFailure(`GitHub's recorded digest of ${name} does not match ${CHECKSUMS_ASSET}.`);
  }

  const commit = await api.tagCommit(RELEASE_REPOSITORY, tag);
  const verifier = new AttestationVerifier(
    { repo: RELEASE_REPOSITORY, signerWorkflow: SIGNER_WORKFLOW, sourceRef: `refs/tags/${tag}`, commit },
    { ...childEnv, GH_TOKEN: token, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1' },
  );
  await verifier.probe();

  const cachedDir = tc.find(TOOL_NAME, version, platform.cacheArch);
  let path: string;
  if (cachedDir !== '') {
    path = join(cachedDir, TOOL_NAME);
    core.info(`Found sops-aws-sync ${version} in the tool cache; verifying it again.`);
  } else {
    const downloaded = await api.downloadFile(binaryAsset);
    await checkDigest(downloaded, expected, name);
    const dir = await tc.cacheFile(downloaded, TOOL_NAME, TOOL_NAME, version, platform.cacheArch);
    path = join(dir, TOOL_NAME);
  }
  await chmod(path, 0o755).catch(() => {
    throw installFailure('The cached CLI binary is missing or not writable.');
  });
  await checkDigest(path, expected, name);
  await verifier.verify(path);
  core.info(`Verified sops-aws-sync ${version} (${name}): SHA-256 and build provenance.`);
  return { path, version, fromCache: cachedDir !== '' };
}
