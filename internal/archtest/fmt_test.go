package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRegression_UnformattedGoFilePassedCI: CI (.ci/run, then make test)
// checked no formatting, so a Go file gofmt would change could land on main
// green. make test's first step is now fmt-check, which fails listing every
// Go file gofmt -l lists, outside vendor/ and testdata/ (fixtures may be
// unformatted on purpose). The test runs the Makefile's own fmt-check in a
// scratch repository: an unformatted file fails it and is named, the same
// file formatted passes, and unformatted files under testdata/ and vendor/
// never count.
func TestRegression_UnformattedGoFilePassedCI(t *testing.T) {
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^test:[ \t]+fmt-check\b`).Match(makefile) {
		t.Fatal("make test does not run fmt-check first")
	}
	for _, tool := range []string{"git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run the Makefile's fmt-check (CI has both): %v", tool, err)
		}
	}

	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("git", "init", "-q"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	write("Makefile", string(makefile))
	const unformatted = "package p\nfunc  F() {}\n"
	write("testdata/fixture.go", unformatted)
	write("internal/p/testdata/fixture.go", unformatted)
	write("vendor/v/v.go", unformatted)
	write("internal/p/ok.go", "package p\n\nfunc G() {}\n")
	write("internal/p/p.go", unformatted)

	out, err := run("make", "-s", "fmt-check")
	if err == nil {
		t.Fatalf("fmt-check passed with an unformatted file:\n%s", out)
	}
	if !strings.Contains(out, "internal/p/p.go") {
		t.Errorf("fmt-check does not name the unformatted file:\n%s", out)
	}
	for _, spared := range []string{"testdata/fixture.go", "vendor/v/v.go", "internal/p/ok.go"} {
		if strings.Contains(out, spared) {
			t.Errorf("fmt-check lists %s:\n%s", spared, out)
		}
	}

	write("internal/p/p.go", "package p\n\nfunc F() {}\n")
	if out, err := run("make", "-s", "fmt-check"); err != nil {
		t.Fatalf("fmt-check failed with every file formatted but fixtures: %v\n%s", err, out)
	}
}
