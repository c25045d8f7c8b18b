#!/usr/bin/env bash
# Builds the release artifacts of SPEC §8 into a directory (default dist/):
#   sops-aws-sync_<version>_<os>_<arch>   raw binaries, linux/darwin × amd64/arm64
#   checksums.txt                         "<sha256>  <asset>" per binary
#
# Reproducible: CGO_ENABLED=0, -trimpath, -buildvcs=false, an empty build id,
# fixed GOAMD64/GOARM64 levels, and version/commit/date injected with
# -ldflags -X, the date being the commit's committer date (never "now"). The
# same commit built twice, or on two machines with the same Go toolchain,
# gives byte-identical binaries and the same checksums.txt.
#
# It downloads nothing itself; Go modules come from the module cache (or the
# module proxy the Go toolchain is configured with).
#
# Environment:
#   RELEASE_VERSION  exact semantic version without "v" (e.g. 1.2.3). Default:
#                    the tag at HEAD without "v" if HEAD carries a v-tag,
#                    otherwise 0.0.0-snapshot.<short commit>.
#   RELEASE_DIST     output directory (default dist). Emptied first.
#   RELEASE_COMMIT   commit to stamp (default: git rev-parse HEAD).
#   RELEASE_DATE     RFC 3339 date to stamp (default: committer date of HEAD).
#   RELEASE_PLATFORMS  space-separated os/arch list (default: all four).
set -euo pipefail
cd "$(dirname "$0")/.."

semver='^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'

commit=${RELEASE_COMMIT:-$(git rev-parse HEAD)}
date=${RELEASE_DATE:-$(git log -1 --format=%cI "$commit")}
version=${RELEASE_VERSION:-}
if [ -z "$version" ]; then
  tag=$(git tag --points-at "$commit" --list 'v*' | sort -V | tail -n 1)
  if [ -n "$tag" ]; then version=${tag#v}; else version="0.0.0-snapshot.$(git rev-parse --short=12 "$commit")"; fi
fi
if ! [[ $version =~ $semver ]]; then
  echo "release.sh: RELEASE_VERSION must be an exact semantic version without 'v' (e.g. 1.2.3)" >&2
  exit 2
fi
out=${RELEASE_DIST:-dist}
platforms=${RELEASE_PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}

rm -rf "$out"
mkdir -p "$out"

ldflags="-s -w -buildid= -X main.version=$version -X main.commit=$commit -X main.date=$date"
assets=()
for p in $platforms; do
  os=${p%/*} arch=${p#*/}
  asset="sops-aws-sync_${version}_${os}_${arch}"
  echo "building $asset"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch GOAMD64=v1 GOARM64=v8.0 GOFLAGS=-mod=readonly \
    go build -trimpath -buildvcs=false -ldflags "$ldflags" -o "$out/$asset" ./cmd/sops-aws-sync
  assets+=("$asset")
done

if command -v sha256sum >/dev/null; then sum=(sha256sum); else sum=(shasum -a 256); fi
(cd "$out" && "${sum[@]}" "${assets[@]}" > checksums.txt)
echo "wrote $out/checksums.txt (version $version, commit $commit, date $date)"
