package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestDriverIsTheOneDirectObservation: after planning, the engine observes
// a name directly in one place, the write driver's loop (drive in
// write.go), which applies SPEC §6's protocol to every write — the
// precondition, the re-observation after an unclear outcome, the wait for
// a restore to show. A second call of observeOne in the engine's non-test
// code (a follow-up, a new kind of write with its own loop) fails here:
// it belongs in the driver, as a row of steps.go.
func TestDriverIsTheOneDirectObservation(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var sites []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "observeOne" {
						sites = append(sites, name+": "+fn.Name.Name)
					}
				}
				return true
			})
		}
	}
	if len(sites) != 1 || sites[0] != "write.go: drive" {
		t.Fatalf("observeOne is called from %v; want exactly one call, in the driver (write.go: drive)", sites)
	}
}
