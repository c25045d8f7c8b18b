package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// assertionStylePending are the test packages that still mix testify with
// the standard library's t.Errorf/t.Fatalf; the list only shrinks.
var assertionStylePending = []string{
	"internal/cli/command",
	"internal/engine",
	"internal/plan",
	"internal/report",
}

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
		mixed := len(stdlib[dir]) > 0
		switch pending := slices.Contains(assertionStylePending, dir); {
		case mixed && !pending:
			t.Errorf("%s mixes testify (%s) with t.Errorf/t.Fatalf (%s): use one style per package (docs/testing.md)",
				dir, strings.Join(files, ", "), strings.Join(stdlib[dir], ", "))
		case !mixed && pending:
			t.Errorf("%s uses one assertion style now: remove it from assertionStylePending", dir)
		}
	}
}
