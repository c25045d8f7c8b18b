package archtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/sops-aws-sync/sops-aws-sync"

// The I/O libraries the core must not reach, as the "No I/O library in the
// core" rule names them: SOPS, go-git and the AWS SDK.
const ioLibraries = "SOPS, go-git or the AWS SDK"

var forbidden = []string{
	"github.com/getsops/sops",
	"github.com/go-git/",
	"github.com/aws/aws-sdk-go-v2",
	"github.com/aws/smithy-go",
}

// checkedRules are the titles of the rules of docs/architecture.md this
// package checks, one test each.
var checkedRules = []string{
	"Imports point down",
	"No I/O library in the core",
	"Standard library only",
	"The emulator is apart",
	"The emulator's services are apart",
	"Every package has a layer",
	"No package named like the standard library's",
	"A small planner",
	"The adapters stand side by side",
	"No stub methods",
	"The loader's halves are apart",
	"No hooks on the way in",
	"Short functions in the engine",
	"Targets are asked, not compared",
}

type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
	Deps       []string
	Standard   bool
}

var listed struct {
	sync.Mutex
	pkgs map[string]pkg
}

// listPackages runs `go list -json` over the module's non-test code (once
// per test binary).
func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	listed.Lock()
	defer listed.Unlock()
	if listed.pkgs == nil {
		listed.pkgs = goList(t)
	}
	return listed.pkgs
}

func goList(t *testing.T) map[string]pkg {
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

// TestDocStatesOnlyCheckedRules: the rules list of docs/architecture.md
// is exactly the rules this package checks.
func TestDocStatesOnlyCheckedRules(t *testing.T) {
	a := readArchitecture(t)
	for _, title := range a.order {
		if !slices.Contains(checkedRules, title) {
			t.Errorf("docs/architecture.md states the rule %q, which internal/archtest does not check: add its test, or move the sentence out of the rules list", title)
		}
	}
	for _, title := range checkedRules {
		a.rule(t, title)
	}
}

// TestPurePackagesReachNoIOLibrary: the packages the rule names never link
// SOPS, go-git or the AWS SDK.
func TestPurePackagesReachNoIOLibrary(t *testing.T) {
	text := readArchitecture(t).rule(t, "No I/O library in the core")
	if !strings.Contains(text, "never reach "+ioLibraries) {
		t.Fatalf("the rule no longer says \"never reach %s\"; change forbidden in this test with it: %s", ioLibraries, text)
	}
	pure := packagesIn(text)
	pkgs := listPackages(t)
	for _, rel := range pure {
		if _, ok := pkgs[rel]; !ok {
			t.Errorf("the rule names %s, which is not a package", rel)
		}
	}
	for rel, p := range pkgs {
		if !within(rel, pure) {
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
			t.Errorf("%s must not reach %s, but depends on %d such packages, e.g. %s",
				rel, ioLibraries, len(bad), strings.Join(bad[:min(3, len(bad))], ", "))
		}
	}
}

// TestStandardLibraryOnly: the packages the rule names depend on nothing
// but the standard library.
func TestStandardLibraryOnly(t *testing.T) {
	pkgs := listPackages(t)
	for _, rel := range packagesIn(readArchitecture(t).rule(t, "Standard library only")) {
		p, ok := pkgs[rel]
		if !ok {
			t.Errorf("the rule names %s, which is not a package", rel)
			continue
		}
		for _, d := range p.Deps {
			if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") {
				t.Errorf("%s must import the standard library only, but depends on %s", rel, d)
			}
		}
	}
}

// upwardImports returns one line per import of a package in a layer above
// the importer's.
func upwardImports(layers [][]string, pkgs map[string]pkg) []string {
	var bad []string
	for rel, p := range pkgs {
		from := layerOf(layers, rel)
		if from < 0 {
			continue
		}
		for _, imp := range p.Imports {
			to, ours := strings.CutPrefix(imp, module+"/")
			if !ours {
				continue
			}
			if l := layerOf(layers, to); l >= 0 && l < from {
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d, above it)", rel, from+1, to, l+1))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// TestImportsPointDown: no package imports one in a layer above its own in
// docs/architecture.md's layer block.
func TestImportsPointDown(t *testing.T) {
	a := readArchitecture(t)
	a.rule(t, "Imports point down")
	for _, b := range upwardImports(a.layers, listPackages(t)) {
		t.Errorf("%s: imports must point down the layer block of docs/architecture.md; move the import, or the package in the doc", b)
	}
}

// TestADocEditThatCrossesALayerFails: the import check reads the doc's
// order; swapping two layers that import one another in the block makes it
// fail. So an edit of the doc alone cannot pass (the premise of reading the
// table from the doc).
func TestADocEditThatCrossesALayerFails(t *testing.T) {
	a := readArchitecture(t)
	canonical, model := layerOf(a.layers, "internal/canonical"), layerOf(a.layers, "internal/model")
	if canonical < 0 || model < 0 {
		t.Fatal("premise: canonical and model are in the layer block")
	}
	swapped := slices.Clone(a.layers)
	swapped[canonical], swapped[model] = swapped[model], swapped[canonical]
	bad := upwardImports(swapped, listPackages(t))
	if !slices.ContainsFunc(bad, func(s string) bool { return strings.HasPrefix(s, "internal/canonical ") }) {
		t.Fatalf("canonical imports model: with model listed above canonical the check must fail, got %v", bad)
	}
}

// TestEmulatorIsApart: no product package imports the emulator; only the
// emulator's own command (and tests, chaos and bench, outside the layers).
func TestEmulatorIsApart(t *testing.T) {
	a := readArchitecture(t)
	named := packagesIn(a.rule(t, "The emulator is apart"))
	if len(named) == 0 || named[0] != "internal/emulator" {
		t.Fatalf("the rule must name `internal/emulator` first, then the commands that may import it: %v", named)
	}
	for rel, p := range listPackages(t) {
		if layerOf(a.layers, rel) < 0 || within(rel, named[1:]) {
			continue
		}
		for _, imp := range p.Imports {
			if to, ok := strings.CutPrefix(imp, module+"/"); ok && within(to, named[:1]) {
				t.Errorf("%s imports the emulator (%s); only tests, chaos, bench and %s may", rel, to, strings.Join(named[1:], ", "))
			}
		}
	}
}

// TestEmulatorServicesAreApart: the emulator's service packages import
// neither each other nor the emulator that composes them, the core they
// share imports none of them, and every package under internal/emulator/
// is the core, a service the rule names, or one of the rule's exceptions
// (so a new service package is named there, and checked).
func TestEmulatorServicesAreApart(t *testing.T) {
	named := packagesIn(readArchitecture(t).rule(t, "The emulator's services are apart"))
	const composer = "internal/emulator"
	var core string
	var services, others []string
	for _, p := range named {
		switch {
		case !strings.HasPrefix(p, composer+"/"):
		case core == "":
			core = p
		case strings.HasSuffix(p, "/emulatortest") || strings.HasSuffix(p, "/emulatorcmd"):
			others = append(others, p)
		default:
			services = append(services, p)
		}
	}
	if core == "" || len(services) == 0 || !slices.Contains(named, composer) {
		t.Fatalf("the rule must name the core first, then the service packages and `%s`: %v", composer, named)
	}
	pkgs := listPackages(t)
	for _, p := range append([]string{core}, services...) {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("the rule names %s, which is not a package of the module", p)
		}
	}
	for rel := range pkgs {
		if strings.HasPrefix(rel, composer+"/") && rel != core && !within(rel, services) && !within(rel, others) {
			t.Errorf("%s is under %s/ but neither its core nor a service the rule names: name it in docs/architecture.md", rel, composer)
		}
	}
	for _, from := range append([]string{core}, services...) {
		for _, d := range pkgs[from].Deps {
			to, ok := strings.CutPrefix(d, module+"/")
			if !ok || within(to, []string{from}) {
				continue // not ours, or the package itself and its own
			}
			if to == composer || within(to, others) || within(to, services) {
				t.Errorf("%s depends on %s; a service reaches another only through %s, and the core knows no service", from, to, core)
			}
		}
	}
}

// TestAdaptersStandSideBySide: the two AWS adapters share a layer but
// neither depends on the other; the package they share (named third)
// depends on neither.
func TestAdaptersStandSideBySide(t *testing.T) {
	named := packagesIn(readArchitecture(t).rule(t, "The adapters stand side by side"))
	if len(named) < 3 {
		t.Fatalf("the rule must name the two adapters, then what they share: %v", named)
	}
	pkgs := listPackages(t)
	for _, from := range named[:3] {
		if _, ok := pkgs[from]; !ok {
			t.Fatalf("the rule names %s, which is not a package of the module", from)
		}
		for _, d := range pkgs[from].Deps {
			for _, adapter := range named[:2] {
				if adapter != from && d == module+"/"+adapter {
					t.Errorf("%s depends on %s; the adapters stand side by side on %s", from, adapter, named[2])
				}
			}
		}
	}
}

// TestLoaderHalvesAreApart: the Git source and the decryptor share a
// layer but neither imports the other, nor the loader that composes them.
func TestLoaderHalvesAreApart(t *testing.T) {
	named := packagesIn(readArchitecture(t).rule(t, "The loader's halves are apart"))
	if len(named) < 2 {
		t.Fatalf("the rule must name the two halves of the loader first: %v", named)
	}
	named = named[:2]
	pkgs := listPackages(t)
	for i, from := range named {
		for _, d := range pkgs[from].Deps {
			if d == module+"/"+named[1-i] || d == module+"/internal/desired" {
				t.Errorf("%s depends on %s; it must know neither the other half of the loader nor the loader", from, d)
			}
		}
	}
}

// TestEveryProductPackageHasALayer keeps the map complete: every package
// of the module (product, tests' and tools') is in the layer block or
// under a path the "Outside the layers" paragraph names, so a new package
// anywhere must be placed in docs/architecture.md; every path the block
// lists is a package, and every path the paragraph names holds one.
func TestEveryProductPackageHasALayer(t *testing.T) {
	a := readArchitecture(t)
	a.rule(t, "Every package has a layer")
	pkgs := listPackages(t)
	for rel := range pkgs {
		if !within(rel, a.outside) && layerOf(a.layers, rel) < 0 {
			where := "the layer block"
			if !strings.HasPrefix(rel, "internal/") && !strings.HasPrefix(rel, "cmd/") {
				where = "the \"Outside the layers\" paragraph"
			}
			t.Errorf("%s is in no layer and outside none: add it to %s of docs/architecture.md", rel, where)
		}
	}
	for _, l := range a.layers {
		for _, p := range l {
			if _, ok := pkgs[p]; !ok && p != "internal/cli" {
				t.Errorf("the layer block lists %s, which is not a package of the module", p)
			}
		}
	}
	for _, p := range a.outside {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(pkgs)), func(rel string) bool { return within(rel, []string{p}) }) {
			t.Errorf("\"Outside the layers\" names %s, which holds no package of the module", p)
		}
	}
}

// TestNoPackageNamedLikeStandardLibrary: no package of ours is named like a
// top-level standard-library package (a package "sync" shadows the
// standard library's in every file that needs both).
func TestNoPackageNamedLikeStandardLibrary(t *testing.T) {
	readArchitecture(t).rule(t, "No package named like the standard library's")
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

var fewerThan = regexp.MustCompile(`fewer than ([0-9,]+) packages`)

// TestPlanLinksFewerThan100Packages is the measure of a pure planner: `go
// list -deps ./internal/plan` stays under the rule's bound (100 packages;
// about 1,130 when plan reached SOPS, go-git and the AWS SDK through the
// loader).
func TestPlanLinksFewerThan100Packages(t *testing.T) {
	m := fewerThan.FindStringSubmatch(readArchitecture(t).rule(t, "A small planner"))
	if m == nil {
		t.Fatal("the rule \"A small planner\" must say \"fewer than N packages\"")
	}
	bound, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-deps", "../plan").Output()
	if err != nil {
		t.Fatalf("go list -deps ../plan: %v", err)
	}
	if n := len(strings.Fields(string(out))); n >= bound {
		t.Fatalf("internal/plan links %d packages (with the standard library); keep it under %d", n, bound)
	}
}
