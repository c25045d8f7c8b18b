package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// trackerReference matches a reference to the issue tracker ("issue 15",
// "issues 13 and 14", "finding 4", "#12"-style issue numbers), which is not
// in the repository: a comment says the reason instead, and history is in
// git log.
var trackerReference = regexp.MustCompile(`\b[Ii]ssues? #?[0-9]+|\b[Ff]indings? #?[0-9]+`)

// productGoFiles returns the non-test Go files under roots (relative to
// the module root), skipping testdata and node_modules; it fails the test
// when fewer than min are found (the walk missed the source tree).
func productGoFiles(t *testing.T, min int, roots ...string) []string {
	t.Helper()
	var files []string
	for _, root := range roots {
		err := filepath.WalkDir(filepath.Join("..", "..", root), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < min {
		t.Fatalf("found only %d non-test Go files under %v: the walk missed the source tree", len(files), roots)
	}
	return files
}

// trackerRoots are the trees whose non-test Go files are checked by
// TestNoTrackerReferencesInProductCode, each with the fewest files a
// correct walk finds: the product (internal/, cmd/) and the code that
// produces the project's figures (the benchmark harness, the chaos
// campaign), whose comments a reader of docs/benchmarks.md and
// docs/reliability.md follows.
var trackerRoots = []struct {
	roots []string
	min   int
}{
	{[]string{"internal", "cmd"}, 100},
	{[]string{"bench"}, 5},
	{[]string{"test/chaos"}, 10},
}

// TestNoTrackerReferencesInProductCode: product code comments say why, not
// which issue or review finding asked for it (the tracker is not in the
// repository; history belongs in git log). Tests and docs may cite them;
// the benchmark's and the campaign's printed tables (which become docs)
// may too, so only their comments are checked.
func TestNoTrackerReferencesInProductCode(t *testing.T) {
	fset := token.NewFileSet()
	for _, tr := range trackerRoots {
		for _, p := range productGoFiles(t, tr.min, tr.roots...) {
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, cg := range f.Comments {
				text := strings.Join(strings.Fields(cg.Text()), " ") // a reference may wrap across lines
				if m := trackerReference.FindString(text); m != "" {
					t.Errorf("%s: comment cites %q; say the reason instead (history is in git log)", fset.Position(cg.Pos()), m)
				}
			}
		}
	}
}

// TestNoTrackerReferencesInActionSource: the Action's TypeScript source
// (action/src, bundled into action/dist) follows the same rule, checked on
// the whole text: its strings are log lines and messages a user reads, and
// they cite no issue either. Its tests (action/test) may.
func TestNoTrackerReferencesInActionSource(t *testing.T) {
	dir := filepath.Join("..", "..", "action", "src")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".ts") {
			continue
		}
		n++
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// Lines are joined so a reference wrapped inside a block comment
		// (" * issue\n * 13") is still seen.
		text := strings.Join(strings.Fields(strings.NewReplacer("*", " ", "//", " ").Replace(string(b))), " ")
		if m := trackerReference.FindString(text); m != "" {
			t.Errorf("action/src/%s cites %q; say the reason instead (history is in git log)", e.Name(), m)
		}
	}
	if n < 10 {
		t.Fatalf("found only %d TypeScript files in action/src: the walk missed the source tree", n)
	}
}

// assertionStylePending are the test packages that still mix testify with
// the standard library's t.Errorf/t.Fatalf; the list only shrinks (it is
// empty: every package has one style).
var assertionStylePending []string

var (
	usesTestify = regexp.MustCompile(`"github\.com/stretchr/testify/(assert|require)"`)
	usesStdlib  = regexp.MustCompile(`(^|[^\w.])(t|tb|f\.t|e\.t)\.(Errorf|Fatalf|Error|Fatal)\(`)
)

// TestOneAssertionStylePerPackage: the tests of one package use testify or
// the standard library's t.Errorf/t.Fatalf, never both (docs/testing.md).
func TestOneAssertionStylePerPackage(t *testing.T) {
	testify, stdlib := map[string][]string{}, map[string][]string{}
	for _, root := range []string{"internal", "cmd", "test", "bench", "scripts"} {
		err := filepath.WalkDir(filepath.Join("..", "..", root), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dir := filepath.ToSlash(strings.TrimPrefix(filepath.Dir(p), filepath.Join("..", "..")+string(filepath.Separator)))
			if usesTestify.Match(b) {
				testify[dir] = append(testify[dir], filepath.Base(p))
			}
			for _, line := range strings.Split(string(b), "\n") {
				if usesStdlib.MatchString(line) {
					stdlib[dir] = append(stdlib[dir], filepath.Base(p))
					break
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for dir, files := range testify {
		if len(stdlib[dir]) > 0 && !slices.Contains(assertionStylePending, dir) {
			t.Errorf("%s mixes testify (%s) with t.Errorf/t.Fatalf (%s): use one style per package (docs/testing.md)",
				dir, strings.Join(files, ", "), strings.Join(stdlib[dir], ", "))
		}
	}
	for _, dir := range assertionStylePending {
		if len(testify[dir]) == 0 || len(stdlib[dir]) == 0 {
			t.Errorf("%s uses one assertion style now: remove it from assertionStylePending", dir)
		}
	}
}
