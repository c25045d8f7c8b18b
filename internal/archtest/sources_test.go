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

// productGoFiles returns the non-test Go files under internal/ and cmd/,
// relative to the module root.
func productGoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, root := range []string{"internal", "cmd"} {
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
	if len(files) < 100 {
		t.Fatalf("found only %d product Go files: the walk missed the source tree", len(files))
	}
	return files
}

// TestNoTrackerReferencesInProductCode: product code comments say why, not
// which issue or review finding asked for it (the tracker is not in the
// repository; history belongs in git log). Tests and docs may cite them.
func TestNoTrackerReferencesInProductCode(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range productGoFiles(t) {
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
