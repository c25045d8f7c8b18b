package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

const snapshotVersion = "1.4.0-rc.2"

// snapshot is the output directory of `make release-snapshot`, made once.
var snapshot string

// TestMain runs the real `make release-snapshot` (scripts/release.sh: its
// platforms, asset names and checksums.txt) with a stand-in `go` first on
// PATH that writes a small file per platform instead of compiling, so the
// manifests are checked against what the script names and sums in well
// under a second instead of four cross builds.
func TestMain(m *testing.M) {
	code, err := withSnapshot(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pkgmeta test setup:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func withSnapshot(m *testing.M) (int, error) {
	tmp, err := os.MkdirTemp("", "pkgmeta-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		return 0, err
	}
	standIn := "#!/bin/sh\n# stand-in go: writes the -o file\nout=\nwhile [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n" +
		"printf 'stand-in %s/%s\\n' \"$GOOS\" \"$GOARCH\" > \"$out\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(standIn), 0o755); err != nil {
		return 0, err
	}
	snapshot = filepath.Join(tmp, "dist")
	cmd := exec.Command("make", "--no-print-directory", "-C", filepath.Join("..", ".."), "release-snapshot",
		"RELEASE_VERSION="+snapshotVersion, "RELEASE_DIST="+snapshot)
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("make release-snapshot: %v\n%s", err, out)
	}
	if err := Generate(snapshot, snapshot); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// binaries are the release binaries in the snapshot by name, with the
// sha256 of their bytes (read from the files, not from checksums.txt).
func binaries(t *testing.T) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(snapshot)
	require.NoError(t, err)
	out := map[string]string{}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "sops-aws-sync_") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(snapshot, e.Name()))
		require.NoError(t, err)
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:])
	}
	require.Len(t, out, 4, "release-snapshot builds linux and darwin, amd64 and arm64")
	return out
}

type aquaRegistry struct {
	Packages []struct {
		Type          string   `yaml:"type"`
		RepoOwner     string   `yaml:"repo_owner"`
		RepoName      string   `yaml:"repo_name"`
		Asset         string   `yaml:"asset"`
		Format        string   `yaml:"format"`
		SupportedEnvs []string `yaml:"supported_envs"`
		Files         []struct {
			Name string `yaml:"name"`
		} `yaml:"files"`
		Checksum struct {
			Type      string `yaml:"type"`
			Asset     string `yaml:"asset"`
			Algorithm string `yaml:"algorithm"`
		} `yaml:"checksum"`
		Attestations struct {
			SignerWorkflow string `yaml:"signer_workflow"`
		} `yaml:"github_artifact_attestations"`
	} `yaml:"packages"`
}

func TestAquaRegistryResolvesEverySnapshotAsset(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(snapshot, AquaFile))
	require.NoError(t, err)
	var reg aquaRegistry
	require.NoError(t, yaml.Unmarshal(b, &reg))
	require.Len(t, reg.Packages, 1)
	p := reg.Packages[0]
	assert.Equal(t, "github_release", p.Type)
	assert.Equal(t, "raw", p.Format)
	assert.Equal(t, Owner+"/"+Repo, p.RepoOwner+"/"+p.RepoName)

	// aqua renders the asset template per platform with the tag as .Version.
	tmpl := template.Must(template.New("asset").Funcs(template.FuncMap{
		"trimV": func(s string) string { return strings.TrimPrefix(s, "v") },
	}).Parse(p.Asset))
	var rendered []string
	for _, env := range p.SupportedEnvs {
		goos, goarch, ok := strings.Cut(env, "/")
		require.True(t, ok, env)
		var name bytes.Buffer
		require.NoError(t, tmpl.Execute(&name, map[string]string{"Version": "v" + snapshotVersion, "OS": goos, "Arch": goarch}))
		rendered = append(rendered, name.String())
	}
	var built []string
	for name := range binaries(t) {
		built = append(built, name)
	}
	assert.ElementsMatch(t, built, rendered, "every platform the release builds, by the name release.sh gives it")

	// Checksums from the release's own checksums.txt, attestations from its workflow.
	assert.Equal(t, "github_release", p.Checksum.Type)
	assert.Equal(t, "sha256", p.Checksum.Algorithm)
	assert.FileExists(t, filepath.Join(snapshot, p.Checksum.Asset))
	assert.Equal(t, "sops-aws-sync/sops-aws-sync/.github/workflows/release.yml", p.Attestations.SignerWorkflow)
	assert.FileExists(t, filepath.Join("..", "..", strings.TrimPrefix(p.Attestations.SignerWorkflow, Owner+"/"+Repo+"/")))
	require.Len(t, p.Files, 1)
	assert.Equal(t, "sops-aws-sync", p.Files[0].Name)
}

func TestCommittedAquaRegistryIsTheGeneratedOne(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(snapshot, AquaFile))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("..", "..", "packaging", "aqua", "registry.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got),
		"packaging/aqua/registry.yaml: regenerate with `make packages` and copy dist/aqua-registry.yaml")
}

var formulaURL = regexp.MustCompile(`(?m)^  (on_macos|on_linux) do$|^    (on_arm|on_intel) do\n      url "([^"]+)"\n      sha256 "([0-9a-f]{64})"\n    end$`)

func TestFormulaNamesEverySnapshotAssetWithItsChecksum(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(snapshot, FormulaFile))
	require.NoError(t, err)
	text := string(b)
	assert.Contains(t, text, "class SopsAwsSync < Formula\n")
	assert.Contains(t, text, `  version "`+snapshotVersion+`"`)

	got := map[string]string{}
	var platforms []string
	system := ""
	for _, m := range formulaURL.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			system = map[string]string{"on_macos": "darwin", "on_linux": "linux"}[m[1]]
			continue
		}
		arch := map[string]string{"on_arm": "arm64", "on_intel": "amd64"}[m[2]]
		platforms = append(platforms, system+"/"+arch)
		prefix := "https://github.com/sops-aws-sync/sops-aws-sync/releases/download/v" + snapshotVersion + "/"
		require.True(t, strings.HasPrefix(m[3], prefix), m[3])
		name := strings.TrimPrefix(m[3], prefix)
		assert.Equal(t, fmt.Sprintf("sops-aws-sync_%s_%s_%s", snapshotVersion, system, arch), name, "the block's platform is the asset's")
		got[name] = m[4]
	}
	assert.Equal(t, binaries(t), got, "one url per built binary, with the sha256 of its bytes")
	sort.Strings(platforms)
	assert.Equal(t, []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64"}, platforms)
	opened := strings.Count(text, " do\n") + strings.Count(text, "\nclass ") + strings.Count(text, "\n  def ")
	closed := strings.Count(text, "\n  end\n") + strings.Count(text, "\n    end\n") + strings.Count(text, "\n      end\n") + strings.Count(text, "\nend\n")
	assert.Equal(t, opened, closed, "every do, class and def has its end")
}

func TestGenerateRefusesAMalformedChecksumsFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte("nonsense\n"), 0o644))
	assert.Error(t, Generate(dir, dir))
	assert.NoFileExists(t, filepath.Join(dir, FormulaFile))
}
