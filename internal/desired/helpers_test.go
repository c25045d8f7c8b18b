package desired

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Test environment: SOPS quietly reads ~/.ssh and ~/.config/sops, so HOME is
// a temporary directory, and the only age key is the committed test key.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "desired-home-")
	if err != nil {
		panic(err)
	}
	key, err := filepath.Abs(filepath.Join("testdata", "keys", "age-test.txt"))
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.Setenv("SOPS_AGE_KEY_FILE", key)
	for _, v := range []string{"SOPS_AGE_KEY", "SOPS_AGE_KEY_CMD", "SOPS_AGE_SSH_PRIVATE_KEY_FILE", "SOPS_PGP_FP",
		"AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_KMS"} {
		os.Unsetenv(v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// fixture returns the bytes of a committed fixture file under testdata.
func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with: go test ./internal/desired -run TestGenerateFixtures -regen-fixtures)", rel, err)
	}
	return b
}

// gitCmd runs the real git CLI in dir with an isolated configuration.
func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=fixture", "GIT_AUTHOR_EMAIL=fixture@example.invalid",
		"GIT_COMMITTER_NAME=fixture", "GIT_COMMITTER_EMAIL=fixture@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
		// No background gc --auto after a large commit: it would race the
		// next git command (BenchmarkCheck10000's gc).
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo creates a real Git repository holding files (repo path → bytes)
// in one commit on branch main and returns its directory and commit SHA.
func newRepo(t testing.TB, files map[string][]byte) (string, string) {
	t.Helper()
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	return dir, commitFiles(t, dir, files, "fixtures")
}

// commitFiles writes files into the work tree of dir and commits them.
func commitFiles(t testing.TB, dir string, files map[string][]byte, msg string) string {
	t.Helper()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitCmd(t, dir, "rev-parse", "HEAD")
}

// baseOptions are valid options for a repository at dir.
func baseOptions(dir string) config.Desired {
	return config.Desired{
		RepoPath:          dir,
		Revision:          "HEAD",
		SourceRoot:        "secrets",
		SecretPrefix:      "prod/app",
		RepositoryID:      "acme/infra",
		MaxEncryptedBytes: 8 << 20,
		Concurrency:       2,
		KeyServices:       defaultKeyServices,
	}
}

// defaultKeyServices is what --key-services resolves to by default.
var defaultKeyServices = func() model.KeyServices {
	k, err := model.ParseKeyServices(model.DefaultKeyServices)
	if err != nil {
		panic(err)
	}
	return k
}()
