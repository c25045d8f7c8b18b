package archtest

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/sops-aws-sync/sops-aws-sync"

// layers is docs/architecture.md's layer table, top to bottom: a package
// may import packages of its own layer or of a layer below it, never above.
// Packages are matched by the longest listed path prefix.
var layers = [][]string{
	{"cmd/"},
	{"internal/cli", "internal/cli/root"},
	{"internal/cli/command", "internal/cli/show", "internal/cli/version"},
	{"internal/cli/exitcode"},
	{"internal/cli/factory"},
	{"internal/awssm", "internal/desired"},
	{"internal/engine"},
	{"internal/plan"},
	{"internal/pace"},
	{"internal/report", "internal/logging", "internal/planview"},
	{"internal/config"},
	{"internal/diag"},
	{"internal/canonical", "internal/keydiff"},
	{"internal/model"},
	{"internal/vocab", "internal/atomicfile"},
}

// pure packages never reach these modules, directly or transitively.
var (
	pure = []string{
		"internal/model", "internal/plan", "internal/config", "internal/report",
		"internal/vocab", "internal/diag", "internal/canonical", "internal/logging", "internal/pace",
		"internal/keydiff", "internal/planview", "internal/atomicfile",
	}
	forbidden = []string{
		"github.com/getsops/sops",
		"github.com/go-git/",
		"github.com/aws/aws-sdk-go-v2",
		"github.com/aws/smithy-go",
	}
)

type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
	Deps       []string
	Standard   bool
}

// listPackages runs `go list -deps -json` over the module's non-test code.
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module+"/")] = p
	}
	return pkgs
}

// layerOf returns the index of rel's layer, or -1 when it is in none
// (tests, bench, chaos, scripts, the emulator: outside the product layers).
func layerOf(rel string) int {
	best, bestLen := -1, 0
	for i, l := range layers {
		for _, prefix := range l {
			p := strings.TrimSuffix(prefix, "/")
			if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

func isPure(rel string) bool {
	for _, p := range pure {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// TestPurePackagesReachNoIOLibrary: plan, model, config, report, vocab,
// diag, canonical, logging, keydiff, planview and atomicfile never link SOPS, go-git or the AWS SDK
// (issue 12; docs/architecture.md).
func TestPurePackagesReachNoIOLibrary(t *testing.T) {
	pkgs := listPackages(t)
	for rel, p := range pkgs {
		if !isPure(rel) {
			continue
		}
		var bad []string
		for _, d := range p.Deps {
			for _, f := range forbidden {
				if strings.HasPrefix(d, f) {
					bad = append(bad, d)
				}
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			t.Errorf("%s must not reach SOPS, go-git or the AWS SDK, but depends on %d such packages, e.g. %s",
				rel, len(bad), strings.Join(bad[:min(3, len(bad))], ", "))
		}
	}
}

// TestImportsPointDown: no product package imports one in a layer above
// its own, and none imports the emulator.
func TestImportsPointDown(t *testing.T) {
	pkgs := listPackages(t)
	for rel, p := range pkgs {
		from := layerOf(rel)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := strings.TrimPrefix(imp, module+"/")
			if strings.HasPrefix(to, "internal/emulator") && from >= 0 && !strings.HasPrefix(rel, "cmd/secretsmanager-emulator") {
				t.Errorf("%s imports the emulator (%s); only tests, chaos, bench and the emulator's command may", rel, to)
				continue
			}
			if from < 0 {
				continue
			}
			if l := layerOf(to); l >= 0 && l < from {
				t.Errorf("%s (layer %d) imports %s (layer %d, above it): imports must point down (docs/architecture.md)", rel, from, to, l)
			}
		}
	}
}

// TestEveryProductPackageHasALayer keeps the table complete: a new
// package under internal/ must be placed in docs/architecture.md and here.
func TestEveryProductPackageHasALayer(t *testing.T) {
	for rel := range listPackages(t) {
		if !strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "internal/emulator") || rel == "internal/archtest" {
			continue
		}
		if layerOf(rel) < 0 {
			t.Errorf("%s is in no layer: add it to docs/architecture.md and to layers in this test", rel)
		}
	}
}

// TestNoPackageNamedLikeStandardLibrary: no package of ours is named like a
// top-level standard-library package (a package "sync" shadows the
// standard library's in every file that needs both; issue 12 item 5).
func TestNoPackageNamedLikeStandardLibrary(t *testing.T) {
	out, err := exec.Command("go", "list", "std").Output()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	std := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		if !strings.Contains(p, "/") {
			std[p] = true
		}
	}
	if !std["sync"] || !std["errors"] {
		t.Fatal("premise: go list std lists sync and errors")
	}
	for rel, p := range listPackages(t) {
		if p.Name != "main" && std[p.Name] {
			t.Errorf("%s is package %s, the name of a standard-library package: rename it", rel, p.Name)
		}
	}
}

// TestPlanLinksFewerThan100Packages is issue 12's measure of a pure planner:
// `go list -deps ./internal/plan` stays under 100 packages (about 1,130
// when plan reached SOPS, go-git and the AWS SDK through internal/desired).
func TestPlanLinksFewerThan100Packages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../plan").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	if n := len(strings.Fields(string(out))); n >= 100 {
		t.Fatalf("internal/plan links %d packages (with the standard library); keep it under 100", n)
	}
}
