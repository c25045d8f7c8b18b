package gitsource

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// gitRun runs the real git CLI in dir with a fixed identity and date and no
// user or system configuration, and returns its trimmed output.
func gitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitOutput(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=fixture", "GIT_AUTHOR_EMAIL=fixture@example.invalid",
		"GIT_COMMITTER_NAME=fixture", "GIT_COMMITTER_EMAIL=fixture@example.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// newRepo makes a real repository holding files (repo path → bytes) in one
// commit on branch main; it returns the directory and the commit SHA.
func newRepo(t testing.TB, files map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "-b", "main")
	return dir, commit(t, dir, files, "fixtures")
}

// commit writes files into dir's work tree and commits them.
func commit(t testing.TB, dir string, files map[string]string, msg string) string {
	t.Helper()
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "--allow-empty", "-m", msg)
	return gitRun(t, dir, "rev-parse", "HEAD")
}

// open opens dir and closes it at the end of the test.
func open(t testing.TB, dir string) *Repository {
	t.Helper()
	repo, e := Open(dir)
	if e != nil {
		t.Fatalf("Open(%s): %v", dir, e)
	}
	t.Cleanup(repo.Close)
	return repo
}

// wantClass fails unless e is a diagnostic of class.
func wantClass(t testing.TB, what string, e *diag.Diagnostic, class string) {
	t.Helper()
	if e == nil || e.Class != class {
		t.Fatalf("%s: %v, want %s", what, e, class)
	}
}
