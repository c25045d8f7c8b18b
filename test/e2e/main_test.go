package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Paths shared by every test, set by TestMain.
var (
	cliBin      string // built sops-aws-sync
	emulatorBin string // built secretsmanager-emulator
	sopsBin     string // sops CLI
	gitBin      string // git CLI
	skipReason  string // non-empty: every test skips with this reason
)

// Version stamped into the CLI under test (checked by the version tests).
const (
	testVersion = "v0.0.0-e2e"
	testCommit  = "0123456789abcdef0123456789abcdef01234567"
	testDate    = "2026-01-02T03:04:05Z"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		skipReason = "end-to-end tests are skipped in -short mode"
		return m.Run()
	}
	ci := os.Getenv("CI") == "true"
	var err error
	if gitBin, err = exec.LookPath("git"); err != nil {
		return fail(m, ci, "git not found on PATH")
	}
	sopsBin = findSops()
	if sopsBin == "" {
		return fail(m, ci, "sops CLI not found on PATH or in $(go env GOPATH)/bin; run `make tools`")
	}
	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "sops-aws-sync-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	cliBin = filepath.Join(dir, "sops-aws-sync")
	emulatorBin = filepath.Join(dir, "secretsmanager-emulator")
	ldflags := fmt.Sprintf("-X main.version=%s -X main.commit=%s -X main.date=%s", testVersion, testCommit, testDate)
	// No -race here: the race-instrumented sops build would double CI time.
	// Default build settings, so the build cache of `go build ./...` is
	// shared.
	for _, b := range [][]string{
		{"build", "-ldflags", ldflags, "-o", cliBin, "./cmd/sops-aws-sync"},
		{"build", "-o", emulatorBin, "./cmd/secretsmanager-emulator"},
	} {
		cmd := exec.Command("go", b...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: go %s failed: %v\n%s\n", strings.Join(b, " "), err, out)
			return 1
		}
	}
	return m.Run()
}

// fail makes a missing prerequisite fatal in CI (CI=true) and a skip of
// every test elsewhere.
func fail(m *testing.M, ci bool, reason string) int {
	if ci {
		fmt.Fprintln(os.Stderr, "e2e: FAIL:", reason)
		return 1
	}
	skipReason = reason
	return m.Run()
}

func findSops() string {
	if p, err := exec.LookPath("sops"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return ""
	}
	for _, gp := range filepath.SplitList(strings.TrimSpace(string(out))) {
		p := filepath.Join(gp, "bin", "sops")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the module")
	}
	return filepath.Dir(mod), nil
}

// need skips the test when a prerequisite is missing outside CI.
func need(t *testing.T) {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
}
