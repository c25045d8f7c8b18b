package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// targetConstants are the names of model's constants of type Target,
// read from the table's file.
func targetConstants(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "internal", "model", "target.go"), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			v := s.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Target" {
				for _, n := range v.Names {
					out = append(out, n.Name)
				}
			}
		}
	}
	if len(out) < 2 {
		t.Fatalf("found %d constants of type Target in internal/model/target.go: the table moved", len(out))
	}
	return out
}

// targetComparisons returns "file:line" of every comparison of a target
// constant in f (==, !=, a case of a switch): model.X from another
// package, X inside package model.
func targetComparisons(fset *token.FileSet, f *ast.File, path string, consts []string) []string {
	isConst := func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			id, ok := x.X.(*ast.Ident)
			return ok && id.Name == importName(f, "model") && slices.Contains(consts, x.Sel.Name)
		case *ast.Ident:
			return f.Name.Name == "model" && slices.Contains(consts, x.Name)
		}
		return false
	}
	var out []string
	at := func(n ast.Node) { out = append(out, path+":"+strconv.Itoa(fset.Position(n.Pos()).Line)) }
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if (x.Op == token.EQL || x.Op == token.NEQ) && (isConst(x.X) || isConst(x.Y)) {
				at(x)
			}
		case *ast.CaseClause:
			if slices.ContainsFunc(x.List, isConst) {
				at(x)
			}
		}
		return true
	})
	return out
}

// TestTargetsAreAskedNotCompared: no product file compares a target with
// one of model's target constants but the table's own file and the
// adapters the rule names; everything else asks the row (SPEC §16).
func TestTargetsAreAskedNotCompared(t *testing.T) {
	allowed := packagesIn(readArchitecture(t).rule(t, "Targets are asked, not compared"))
	for _, want := range []string{"internal/model/target.go", "internal/awssm", "internal/awsps"} {
		if !slices.Contains(allowed, want) {
			t.Errorf("the rule \"Targets are asked, not compared\" does not name `%s`", want)
		}
	}
	consts := targetConstants(t)
	fset := token.NewFileSet()
	for _, p := range productGoFiles(t, 100, "internal", "cmd") {
		rel := filepath.ToSlash(strings.TrimPrefix(p, "../../"))
		if within(rel, allowed) {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range targetComparisons(fset, f, rel, consts) {
			t.Errorf("%s compares a target with a target constant: ask the row (model.Target's methods) instead", at)
		}
	}
	text := readArchitecture(t).rule(t, "Targets are asked, not compared")
	if !strings.Contains(text, "no product file calls `model.AddTestTarget`") {
		t.Errorf("the rule \"Targets are asked, not compared\" no longer says that no product file calls `model.AddTestTarget`: change this test with it")
	}
	for _, p := range productGoFiles(t, 100, "internal", "cmd") {
		rel := filepath.ToSlash(strings.TrimPrefix(p, "../../"))
		if rel == testTargetFile {
			continue
		}
		if calls := testTargetCalls(t, p); len(calls) > 0 {
			t.Errorf("%s calls model.AddTestTarget at line %v: only tests add a row to the target table", rel, calls)
		}
	}
}

// testTargetFile declares model.AddTestTarget, the hook by which a test
// adds a row to the target table.
const testTargetFile = "internal/model/testtarget.go"

// testTargetCalls returns the lines of path that name AddTestTarget (a
// call, or the function as a value).
func testTargetCalls(t *testing.T, path string) []int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "AddTestTarget" {
			out = append(out, fset.Position(id.Pos()).Line)
		}
		return true
	})
	return out
}

// TestTargetComparisonsSeenInEveryForm: the check finds ==, != and a case
// with a target constant, from another package (under any import name)
// and inside model, and passes a method call and a map key.
func TestTargetComparisonsSeenInEveryForm(t *testing.T) {
	consts := []string{"TargetSecretsManager", "TargetParameterStore"}
	for name, c := range map[string]struct {
		src  string
		want int
	}{
		"other package": {`package x
import m "github.com/sops-aws-sync/sops-aws-sync/internal/model"
func f(t m.Target) bool {
	if t == m.TargetParameterStore || m.TargetSecretsManager != t { return true }
	switch t {
	case m.TargetParameterStore:
	}
	_ = map[m.Target]int{m.TargetParameterStore: 1}
	return t.DeletionUndoable()
}`, 3},
		"inside model": {`package model
func g(t Target) bool { return t == TargetParameterStore }`, 1},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", c.src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if got := targetComparisons(fset, f, "x.go", consts); len(got) != c.want {
			t.Errorf("%s: found %v, want %d", name, got, c.want)
		}
	}
}
