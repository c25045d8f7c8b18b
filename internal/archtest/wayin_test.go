package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wayIn are the packages the path from the command into the loader and
// the engine runs through (the rule "No hooks on the way in"): the
// factory that provides a run's dependencies, the command that resolves
// and concludes, internal/run that composes the run, and the entry types
// of the loader and of the engine. exportedOnly marks a package whose
// exported structs alone are its way in (the engine's internals, such as
// the driver's table of write steps, are past its entry point).
var wayIn = []struct {
	dir          string
	exportedOnly bool
}{
	{"internal/cli/factory", false},
	{"internal/cli/command", false},
	{"internal/run", false},
	{"internal/desired", false},
	{"internal/engine", true},
}

// apartFromWayIn are the structs of those packages that may keep
// function-valued fields, each with its reason, as the rule says.
var apartFromWayIn = map[string]string{
	// The files a run writes after it ended (conclude → write): each
	// file's content and failure class; never on the way in.
	"command.fileOutput": "written after the run",
}

// funcFields returns "pkg.Struct.field" for every field of function type
// (a func literal type, a named func type of the package or of another
// package named in funcTypes as "pkg.Name", or a slice, map, array,
// pointer or channel of one) in the struct types of files. exportedOnly
// skips unexported struct types.
func funcFields(files []*ast.File, funcTypes map[string]bool, exportedOnly bool) []string {
	var out []string
	for _, f := range files {
		pkg := f.Name.Name
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok || (exportedOnly && !ts.Name.IsExported()) {
					continue
				}
				for _, field := range st.Fields.List {
					if !isFuncType(field.Type, pkg, funcTypes) {
						continue
					}
					names := []string{"(embedded)"}
					if len(field.Names) > 0 {
						names = names[:0]
						for _, n := range field.Names {
							names = append(names, n.Name)
						}
					}
					for _, n := range names {
						out = append(out, pkg+"."+ts.Name.Name+"."+n)
					}
				}
			}
		}
	}
	return out
}

// isFuncType reports whether e, a field type in package pkg, holds a
// function value.
func isFuncType(e ast.Expr, pkg string, funcTypes map[string]bool) bool {
	switch t := e.(type) {
	case *ast.FuncType:
		return true
	case *ast.Ident:
		return funcTypes[pkg+"."+t.Name]
	case *ast.SelectorExpr:
		if x, ok := t.X.(*ast.Ident); ok {
			return funcTypes[x.Name+"."+t.Sel.Name]
		}
	case *ast.StarExpr:
		return isFuncType(t.X, pkg, funcTypes)
	case *ast.ArrayType:
		return isFuncType(t.Elt, pkg, funcTypes)
	case *ast.MapType:
		return isFuncType(t.Key, pkg, funcTypes) || isFuncType(t.Value, pkg, funcTypes)
	case *ast.ChanType:
		return isFuncType(t.Value, pkg, funcTypes)
	case *ast.ParenExpr:
		return isFuncType(t.X, pkg, funcTypes)
	}
	return false
}

// namedFuncTypes returns "pkg.Name" for every type declared as a function
// type ("type AfterFunc func(...)") in files.
func namedFuncTypes(files []*ast.File) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.TYPE {
				for _, spec := range gd.Specs {
					if ts := spec.(*ast.TypeSpec); isFuncType(ts.Type, "", nil) {
						out[f.Name.Name+"."+ts.Name.Name] = true
					}
				}
			}
		}
	}
	return out
}

// parseGoFiles parses the non-test Go files of paths.
func parseGoFiles(t *testing.T, paths []string) []*ast.File {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// packageGoFiles returns the non-test Go files of the one package in dir
// (relative to the module root), not of the packages below it.
func packageGoFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("..", "..", dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			out = append(out, filepath.Join("..", "..", dir, n))
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s has no Go file: the rule's package list is stale", dir)
	}
	return out
}

// TestNoHooksOnTheWayIn: no struct on the path from the command into the
// loader and the engine has a function-valued field, so that path is
// followed by reading (a method of a named type, an interface whose
// implementations are found by name), never through a field set
// somewhere else. The rule of docs/architecture.md names the packages
// this test covers.
func TestNoHooksOnTheWayIn(t *testing.T) {
	text := readArchitecture(t).rule(t, "No hooks on the way in")
	named := packagesIn(text)
	funcTypes := namedFuncTypes(parseGoFiles(t, productGoFiles(t, 100, "internal")))
	for _, p := range wayIn {
		if !slices.Contains(named, p.dir) {
			t.Errorf("the rule \"No hooks on the way in\" does not name `%s`, which this test covers", p.dir)
		}
		for _, field := range funcFields(parseGoFiles(t, packageGoFiles(t, p.dir)), funcTypes, p.exportedOnly) {
			typ := field[:strings.LastIndex(field, ".")]
			if _, ok := apartFromWayIn[typ]; ok {
				continue
			}
			t.Errorf("%s is a function-valued field on the way into the loader and the engine: make it an interface (a named implementation) or a concrete type", field)
		}
	}
	for typ := range apartFromWayIn {
		if !strings.Contains(text, "`"+typ+"`") {
			t.Errorf("the rule \"No hooks on the way in\" does not name `%s`, which this test lets keep a function-valued field", typ)
		}
	}
}

// TestNoHooksOnTheWayInSeesEveryForm: the check finds a func field
// whatever its spelling (literal, named here or elsewhere, behind a
// pointer or in a slice or map) and passes an interface field.
func TestNoHooksOnTheWayInSeesEveryForm(t *testing.T) {
	const src = `package engine
import "decryptor"
type hook func()
type ScopeRun struct {
	Review   func(int) int
	Named    hook
	Other    decryptor.AfterFunc
	Ptr      *hook
	Many     []func()
	ByName   map[string]func()
	Fine     interface{ Review(int) int }
	Plain    int
}
type inner struct{ f func() }
`
	f, err := parser.ParseFile(token.NewFileSet(), "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	funcTypes := namedFuncTypes([]*ast.File{f})
	funcTypes["decryptor.AfterFunc"] = true
	want := []string{"engine.ScopeRun.Review", "engine.ScopeRun.Named", "engine.ScopeRun.Other",
		"engine.ScopeRun.Ptr", "engine.ScopeRun.Many", "engine.ScopeRun.ByName"}
	if got := funcFields([]*ast.File{f}, funcTypes, true); !slices.Equal(got, want) {
		t.Errorf("exported structs: got %v, want %v", got, want)
	}
	if got := funcFields([]*ast.File{f}, funcTypes, false); !slices.Contains(got, "engine.inner.f") {
		t.Errorf("every struct: %v misses engine.inner.f", got)
	}
}
