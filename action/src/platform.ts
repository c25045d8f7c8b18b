/**
 * Release asset naming (SPEC §8): raw binaries sops-aws-sync_<version>_<os>_<arch>
 * for linux/darwin × amd64/arm64.
 */

export interface Platform {
  /** Go's GOOS: linux or darwin. */
  os: 'linux' | 'darwin';
  /** Go's GOARCH: amd64 or arm64. */
  arch: 'amd64' | 'arm64';
  /** The tool-cache architecture key (Node's naming): x64 or arm64. */
  cacheArch: 'x64' | 'arm64';
}

/**
 * Maps the runner's RUNNER_OS (Linux, macOS) and RUNNER_ARCH (X64, ARM64) to
 * the release platform. Returns undefined for runners without a release
 * binary (Windows, 32-bit, ARM).
 */
export function runnerPlatform(runnerOs: string | undefined, runnerArch: string | undefined): Platform | undefined {
  const os = runnerOs === 'Linux' ? 'linux' : runnerOs === 'macOS' ? 'darwin' : undefined;
  const arch = runnerArch === 'X64' ? 'amd64' : runnerArch === 'ARM64' ? 'arm64' : undefined;
  if (os === undefined || arch === undefined) return undefined;
  return { os, arch, cacheArch: arch === 'amd64' ? 'x64' : 'arm64' };
}

/** The release asset name of the CLI binary for one version and platform. */
export function assetName(version: string, p: Platform): string {
  return `sops-aws-sync_${version}_${p.os}_${p.arch}`;
}
