package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// hookEntry is the entry of the sops-aws-sync-validate hook in the
// repository's .pre-commit-hooks.yaml.
func hookEntry(t *testing.T, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	require.NoError(t, err)
	var hooks []struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		PassFilenames *bool  `yaml:"pass_filenames"`
		AlwaysRun     bool   `yaml:"always_run"`
	}
	require.NoError(t, yaml.Unmarshal(b, &hooks))
	for _, h := range hooks {
		if h.ID == "sops-aws-sync-validate" {
			require.Equal(t, "system", h.Language)
			require.NotNil(t, h.PassFilenames)
			require.False(t, *h.PassFilenames, "the hook checks the whole repository, not the files passed")
			require.True(t, h.AlwaysRun)
			return h.Entry
		}
	}
	require.Fail(t, "no hook sops-aws-sync-validate")
	return ""
}

// shellWords splits an entry as pre-commit does (shlex: words separated
// by blanks, single quotes kept literally); enough for our entry.
func shellWords(s string) []string {
	var out []string
	var cur strings.Builder
	in, quoted := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			quoted, in = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}

// TestPreCommitHook_RunsAsPreCommitRunsItAndFailsOnPlaintext: the hook of
// .pre-commit-hooks.yaml, run by the real pre-commit (try-repo against
// this checkout; in CI pre-commit must be installed) or, where it is not
// installed, by running exactly its entry as pre-commit would (split as a
// shell would, in the repository root, no file names), with no key and
// every AWS endpoint at a stand-in: it fails when a plaintext .sops.json
// is staged (before any commit holds it) and passes once the staged
// document is encrypted; no connection to AWS.
func TestPreCommitHook_RunsAsPreCommitRunsItAndFailsOnPlaintext(t *testing.T) {
	f := newFixture(t)
	a := newAWSStandIn(t)
	root, err := moduleRoot()
	require.NoError(t, err)
	entry := hookEntry(t, root)
	f.standardDocs()

	preCommit, lookErr := exec.LookPath("pre-commit")
	if lookErr != nil && os.Getenv("CI") == "true" {
		require.Fail(t, "pre-commit is not installed; .ci/run installs it (Debian package pre-commit)")
	}
	// The hook repository as pre-commit clones it: this checkout's
	// .pre-commit-hooks.yaml at a commit (language system: nothing else of
	// it is used), so the test reads the manifest as it is in the work
	// tree, committed or not.
	hookRepo := filepath.Join(t.TempDir(), "hooks")
	require.NoError(t, os.MkdirAll(hookRepo, 0o700))
	manifest, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(hookRepo, ".pre-commit-hooks.yaml"), manifest, 0o600))
	f.gitIn(hookRepo, "init", "-q", "-b", "main")
	f.gitIn(hookRepo, "add", ".pre-commit-hooks.yaml")
	f.gitIn(hookRepo, "-c", "user.email=e2e@example.invalid", "-c", "user.name=e2e", "commit", "-q", "-m", "hooks")
	hookRev := strings.TrimSpace(f.gitIn(hookRepo, "rev-parse", "HEAD"))
	// hook runs the hook as pre-commit does; args are the hook's args of
	// .pre-commit-config.yaml (docs/pre-commit.md).
	hook := func(args ...string) (int, string) {
		t.Helper()
		var cmd *exec.Cmd
		switch {
		case lookErr == nil && len(args) == 0:
			cmd = exec.Command(preCommit, "try-repo", hookRepo, "sops-aws-sync-validate", "--verbose")
		case lookErr == nil:
			cfg := filepath.Join(t.TempDir(), "pre-commit-config.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte("repos:\n  - repo: "+hookRepo+"\n    rev: "+hookRev+
				"\n    hooks:\n      - id: sops-aws-sync-validate\n        args: ["+strings.Join(args, ", ")+"]\n"), 0o600))
			cmd = exec.Command(preCommit, "run", "--config", cfg, "sops-aws-sync-validate", "--verbose")
		default:
			w := shellWords(entry)
			cmd = exec.Command(w[0], append(w[1:], args...)...)
		}
		cmd.Dir = f.Repo
		cmd.Env = append(a.env(),
			"PATH="+filepath.Dir(cliBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"HOME="+f.Home, "GIT_CONFIG_NOSYSTEM=1",
			"PRE_COMMIT_HOME="+filepath.Join(f.Home, "pre-commit-cache"),
			"GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.invalid",
			"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.invalid",
			"SOPS_AWS_SYNC_SECRET_PREFIX="+f.Prefix, "SOPS_AWS_SYNC_REPOSITORY_ID="+f.RepoID,
			"AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true")
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err, "%s", out)
		}
		return code, string(out)
	}

	code, out := hook()
	assert.Equal(t, 0, code, "a valid repository passes\n%s", out)

	plain := `{"v":"CANARY-staged-` + token(4) + `"}`
	require.NoError(t, os.WriteFile(filepath.Join(f.Repo, "secrets", "leak.sops.json"), []byte(plain), 0o600))
	f.git("add", "secrets/leak.sops.json")
	code, out = hook()
	assert.NotEqual(t, 0, code, "a staged plaintext document fails the hook\n%s", out)
	assert.Contains(t, out, "decrypt:not-encrypted")
	assert.NotContains(t, out, canaryIn(plain), "the hook never prints the plaintext")
	// Issue 44 §4: the hook names the document by ordinal unless its args
	// show names (docs/pre-commit.md), and never says AWS matches or is
	// not known to match: validate read nothing from AWS.
	assert.NotContains(t, out, "secrets/leak.sops.json")
	assert.Contains(t, out, "--show-resource-names shows names")
	for _, said := range []string{"matches the commit", "not known to match"} {
		assert.NotContains(t, out, said)
	}
	code, out = hook("--show-resource-names")
	assert.NotEqual(t, 0, code, "%s", out)
	assert.Contains(t, out, "document secrets/leak.sops.json")
	assert.NotContains(t, out, canaryIn(plain), "the hook never prints the plaintext")

	f.writeDoc("secrets/leak.sops.json", plain, "")
	f.git("add", "secrets/leak.sops.json")
	code, out = hook()
	assert.Equal(t, 0, code, "the encrypted document passes\n%s", out)
	assert.Contains(t, out, "AWS was not read: validate checks the commit only")
	assert.NotContains(t, out, "matches the commit")
	assert.Zero(t, a.conns.Load(), "the hook connected to the AWS stand-in")
}
