package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// stubMethods returns "file:line Recv.Name" of every stub method of f: a
// method whose body is one return statement that returns an error and
// reads neither the receiver nor a parameter (an answer such as
// "unsupported" given whatever the method is asked).
func stubMethods(fset *token.FileSet, f *ast.File, path string) []string {
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Body == nil || len(fd.Body.List) != 1 || !returnsError(fd.Type) {
			continue
		}
		ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) == 0 {
			continue
		}
		inputs := map[string]bool{}
		for _, fl := range append(fieldsOf(fd.Recv), fieldsOf(fd.Type.Params)...) {
			for _, n := range fl.Names {
				if n.Name != "_" {
					inputs[n.Name] = true
				}
			}
		}
		reads := false
		for _, e := range ret.Results {
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && inputs[id.Name] {
					reads = true
				}
				return !reads
			})
		}
		if !reads {
			out = append(out, path+":"+strconv.Itoa(fset.Position(fd.Pos()).Line)+" "+receiverType(fd.Recv.List[0].Type)+"."+fd.Name.Name)
		}
	}
	return out
}

// fieldsOf is fl's fields (none for nil).
func fieldsOf(fl *ast.FieldList) []*ast.Field {
	if fl == nil {
		return nil
	}
	return fl.List
}

// returnsError reports whether a function type's last result is error.
func returnsError(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return false
	}
	id, ok := ft.Results.List[len(ft.Results.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

// TestNoStubMethods: no method of the adapters the rule names is a stub
// (stubMethods): a capability a store lacks is an optional interface its
// adapter does not implement, never a method that answers "unsupported".
func TestNoStubMethods(t *testing.T) {
	var adapters []string
	for _, rel := range packagesIn(readArchitecture(t).rule(t, "No stub methods")) {
		if fi, err := os.Stat(filepath.Join("..", "..", rel)); err == nil && fi.IsDir() {
			adapters = append(adapters, rel)
		}
	}
	for _, want := range []string{"internal/awssm", "internal/awsps"} {
		if !within(want, adapters) {
			t.Errorf("the rule \"No stub methods\" does not name `%s`", want)
		}
	}
	fset := token.NewFileSet()
	for _, rel := range adapters {
		files, err := filepath.Glob(filepath.Join("..", "..", rel, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", rel, err)
		}
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range stubMethods(fset, f, filepath.ToSlash(filepath.Join(rel, filepath.Base(p)))) {
				t.Errorf("%s is a stub: leave the method out and let the engine ask for the capability (docs/architecture.md, \"No stub methods\")", s)
			}
		}
	}
}

// TestStubMethodsSeenInEveryForm: the check finds a method that returns a
// constant error, a call that reads nothing of its inputs and nil, with
// unnamed, blank or unread parameters; it passes a method that reads its
// receiver or a parameter, one of several statements, one that returns no
// error and a function.
func TestStubMethodsSeenInEveryForm(t *testing.T) {
	src := `package p
import "errors"
type A struct{ c int }
var errNo = errors.New("unsupported")
func unsupported(op string) error { return errNo }
func (a *A) Restore(string) error { return unsupported("Restore") }
func (*A) Replicate(_ string, regions []string) error { return errNo }
func (a A) Describe(id string) (int, error) { return 0, unsupported("Describe") }
func (a *A) Close() error { return nil }
func (a *A) Region() string { return "x" }
func (a *A) Tag(id string) error { return unsupported(id) }
func (a *A) Put(id string) error { return a.put(id) }
func (a *A) Pace() (int, error) { return a.c, nil }
func (a *A) Two(string) error { _ = 1; return errNo }
func Free() error { return errNo }
func (a *A) put(string) error { return nil }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(stubMethods(fset, f, "p.go"), ", ")
	const want = "p.go:6 A.Restore, p.go:7 A.Replicate, p.go:8 A.Describe, p.go:9 A.Close, p.go:16 A.put"
	if got != want {
		t.Errorf("found %q,\nwant  %q", got, want)
	}
}
