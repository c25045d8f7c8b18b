// Package releaseinfo reads the release metadata scripts/release.sh writes
// (checksums.txt and the asset names in it), so the container image builder
// (scripts/containerimage) and the package-manager generator
// (scripts/pkgmeta) start from the same bytes the release publishes.
//
// It is tooling: no product package imports it.
package releaseinfo

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Project is the release's binary name and the prefix of every asset name.
const Project = "sops-aws-sync"

// Asset is one raw binary of a release.
type Asset struct {
	Name   string // sops-aws-sync_<version>_<os>_<arch>
	OS     string // GOOS: linux, darwin
	Arch   string // GOARCH: amd64, arm64
	SHA256 string // lowercase hex, 64 characters
}

// Release is the content of one checksums.txt: one version, its assets
// sorted by OS then architecture.
type Release struct {
	Version string // semantic version without "v" (release.sh's RELEASE_VERSION)
	Assets  []Asset
}

// AssetName is the name release.sh gives the binary of version for os/arch:
// sops-aws-sync_<version>_<os>_<arch> (SPEC §8).
func AssetName(version, goos, goarch string) string {
	return Project + "_" + version + "_" + goos + "_" + goarch
}

// Find returns the asset for os/arch, or false.
func (r Release) Find(goos, goarch string) (Asset, bool) {
	for _, a := range r.Assets {
		if a.OS == goos && a.Arch == goarch {
			return a, true
		}
	}
	return Asset{}, false
}

var (
	// The semantic-version rule of release.sh (semver.org §2, §9, §10).
	semver    = `(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)\.(?:0|[1-9][0-9]*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?`
	assetName = regexp.MustCompile(`^` + Project + `_(` + semver + `)_(linux|darwin)_(amd64|arm64)$`)
	hexDigest = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// Parse reads checksums.txt as sha256sum writes it: "<64 hex>  <asset>" per
// line (two spaces; a '*' binary marker is refused, release.sh never writes
// it). Every asset must be named by AssetName with one version, an OS/arch
// may appear once, and there is at least one asset. Errors name the line.
func Parse(checksums []byte) (Release, error) {
	var r Release
	sc := bufio.NewScanner(bytes.NewReader(checksums))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || !hexDigest.MatchString(sum) {
			return Release{}, fmt.Errorf("checksums.txt line %d: not \"<sha256 hex>  <asset>\"", n)
		}
		m := assetName.FindStringSubmatch(name)
		if m == nil {
			return Release{}, fmt.Errorf("checksums.txt line %d: %q is not %s_<version>_<linux|darwin>_<amd64|arm64>", n, name, Project)
		}
		if r.Version != "" && m[1] != r.Version {
			return Release{}, fmt.Errorf("checksums.txt line %d: version %q differs from %q", n, m[1], r.Version)
		}
		r.Version = m[1]
		if _, dup := r.Find(m[2], m[3]); dup {
			return Release{}, fmt.Errorf("checksums.txt line %d: %s/%s listed twice", n, m[2], m[3])
		}
		r.Assets = append(r.Assets, Asset{Name: name, OS: m[2], Arch: m[3], SHA256: sum})
	}
	if err := sc.Err(); err != nil {
		return Release{}, fmt.Errorf("checksums.txt: %w", err)
	}
	if len(r.Assets) == 0 {
		return Release{}, fmt.Errorf("checksums.txt: no asset")
	}
	slices.SortFunc(r.Assets, func(a, b Asset) int { return strings.Compare(a.OS+"/"+a.Arch, b.OS+"/"+b.Arch) })
	return r, nil
}

// DecodeSHA256 returns the 32 bytes of a's digest.
func (a Asset) DecodeSHA256() []byte {
	b, _ := hex.DecodeString(a.SHA256) // Parse admitted only 64 hex digits
	return b
}
