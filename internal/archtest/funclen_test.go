package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var longerThan = regexp.MustCompile(`longer than ([0-9]+) lines`)

// TestShortFunctionsInTheEngine: no function of the packages the rule
// names (their tests apart) is longer than the rule's bound, counted from
// its func line to its closing brace (its doc comment apart).
func TestShortFunctionsInTheEngine(t *testing.T) {
	text := readArchitecture(t).rule(t, "Short functions in the engine")
	m := longerThan.FindStringSubmatch(text)
	if m == nil {
		t.Fatal("the rule \"Short functions in the engine\" must say \"longer than N lines\"")
	}
	bound, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	named := packagesIn(text)
	if len(named) == 0 {
		t.Fatal("the rule \"Short functions in the engine\" must name its packages in code spans")
	}
	for _, rel := range named {
		files, err := filepath.Glob(filepath.Join("../..", rel, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", rel, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			long, err := longFunctions(f, src, bound)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range long {
				t.Errorf("%s: %s; split it (docs/architecture.md, \"Short functions in the engine\")", filepath.Join(rel, filepath.Base(f)), l)
			}
		}
	}
}

// longFunctions lists the functions and methods of the Go source src
// whose declaration, from its func line to its closing brace, is longer
// than bound lines: "name is N lines".
func longFunctions(name string, src []byte, bound int) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var long []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		n := fset.Position(fd.End()).Line - fset.Position(fd.Type.Func).Line + 1
		if n > bound {
			long = append(long, fmt.Sprintf("%s is %d lines", fd.Name.Name, n))
		}
	}
	return long, nil
}

// TestLongFunctionsCountsFromFuncToBrace: the measure counts a
// declaration's lines, its doc comment apart, and finds methods too.
func TestLongFunctionsCountsFromFuncToBrace(t *testing.T) {
	src := "package p\n\n// f is documented\n// on two lines.\nfunc f() {\n\t_ = 1\n}\n\ntype T int\n\nfunc (T) m() {\n\t_ = 1\n\t_ = 2\n}\n"
	for _, c := range []struct {
		bound int
		want  string
	}{{4, ""}, {3, "m is 4 lines"}, {2, "f is 3 lines, m is 4 lines"}} {
		long, err := longFunctions("p.go", []byte(src), c.bound)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(long, ", "); got != c.want {
			t.Errorf("bound %d: %q, want %q", c.bound, got, c.want)
		}
	}
}
