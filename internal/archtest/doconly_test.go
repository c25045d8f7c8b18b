package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	// calledOnly is the map's claim that a function has one caller (or a
	// few): "`run.Execute`, called only by `command.reconcile`", "`Y` is
	// called only by `A` and `B`".
	calledOnly = regexp.MustCompile("`([^`]+)`,? (?:is )?called only by ((?:`[^`]+`)(?:(?:, | and )`[^`]+`)*)")
	// builtOnly is the map's claim that a type's values are made in one
	// function of its package: "`command.ending`, built only by
	// `command.conclude`".
	builtOnly = regexp.MustCompile("`([^`]+)`,? (?:is )?built only by `([^`]+)`")
)

// productFiles parses the non-test Go files of the product (internal/,
// cmd/), keyed by their slash path from the module root.
func productFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	out := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, p := range productGoFiles(t, 100, "internal", "cmd") {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.ToSlash(strings.TrimPrefix(p, "../../"))] = f
	}
	return out
}

// funcName is "pkg.Name" for a function declaration, "pkg.Recv.Name" for
// a method (pointer receivers spelled as value ones).
func funcName(pkg string, fd *ast.FuncDecl) string {
	if fd.Recv != nil && len(fd.Recv.List) == 1 {
		return pkg + "." + receiverType(fd.Recv.List[0].Type) + "." + fd.Name.Name
	}
	return pkg + "." + fd.Name.Name
}

// docFuncName is a function as the map spells it ("(*Prepared).Apply",
// "command.reconcile") in funcName's form.
func docFuncName(span string) string {
	return strings.NewReplacer("(*", "", ")", "").Replace(span)
}

// importName is the name file f uses for the module's package whose last
// path element is pkg ("" when f does not import it).
func importName(f *ast.File, pkg string) string {
	for _, im := range f.Imports {
		path := strings.Trim(im.Path.Value, `"`)
		if !strings.HasPrefix(path, module+"/") || path[strings.LastIndex(path, "/")+1:] != pkg {
			continue
		}
		if im.Name != nil {
			return im.Name.Name
		}
		return pkg
	}
	return ""
}

// usesOf returns, for every use of the package-level function pkg.name in
// files (a call or a reference, from its own package or through an
// import), the function declaration it is in ("" at package level).
func usesOf(files map[string]*ast.File, pkg, name string) []string {
	var out []string
	for _, f := range files {
		own := f.Name.Name == pkg
		imported := importName(f, pkg)
		if !own && imported == "" {
			continue
		}
		for _, decl := range f.Decls {
			in := ""
			var declared *ast.Ident
			if fd, ok := decl.(*ast.FuncDecl); ok {
				in, declared = funcName(f.Name.Name, fd), fd.Name
			}
			var visit func(n ast.Node) bool
			visit = func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					// pkg.name through an import; a field or method named
					// like the function (x.name) is no use of it.
					if x, ok := n.X.(*ast.Ident); ok {
						if imported != "" && x.Name == imported && n.Sel.Name == name {
							out = append(out, in)
						}
						return false
					}
					ast.Inspect(n.X, visit)
					return false
				case *ast.Ident:
					if own && n != declared && n.Name == name {
						out = append(out, in)
					}
				}
				return true
			}
			ast.Inspect(decl, visit)
		}
	}
	return out
}

// TestArchitectureDocCallersAreTheOnlyOnes: where the map says a function
// is "called only by" some functions ("`run.Execute`, called only by
// `command.reconcile`"), no other function of the product (internal/,
// cmd/; tests may call anything) calls or references it. So the path from
// the command into the loader and the engine that the map reads out stays
// the only one: a second caller fails here until the map names it.
func TestArchitectureDocCallersAreTheOnlyOnes(t *testing.T) {
	b, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	files := productFiles(t)
	claims := calledOnly.FindAllStringSubmatch(string(b), -1)
	for _, m := range claims {
		callee := docFuncName(m[1])
		parts := strings.Split(callee, ".")
		if len(parts) != 2 {
			t.Errorf("docs/architecture.md: %q is called only by …: name a package-level function (pkg.Func)", m[1])
			continue
		}
		var callers []string
		for _, c := range codeSpan.FindAllStringSubmatch(m[2], -1) {
			callers = append(callers, docFuncName(c[1]))
		}
		uses := usesOf(files, parts[0], parts[1])
		if len(uses) == 0 {
			t.Errorf("docs/architecture.md says %s is called only by %s, but nothing in the product calls it", m[1], strings.Join(callers, ", "))
		}
		for _, u := range uses {
			if !slices.Contains(callers, u) {
				where := u
				if where == "" {
					where = "a package-level declaration"
				}
				t.Errorf("docs/architecture.md says %s is called only by %s, but %s uses it too: name it there, or call through one of them", m[1], strings.Join(callers, ", "), where)
			}
		}
	}
	if len(claims) < 5 {
		t.Fatalf("found %d \"called only by\" claims in docs/architecture.md: the way in (command → run → loader, ports, engine) is no longer stated in a form this test reads", len(claims))
	}
}

// compositesOf returns, for every composite literal of the type name in
// the files of package pkg (T{…} or &T{…}), the function declaration it
// is in ("" at package level).
func compositesOf(files map[string]*ast.File, pkg, name string) []string {
	var out []string
	for _, f := range files {
		if f.Name.Name != pkg {
			continue
		}
		for _, decl := range f.Decls {
			in := ""
			if fd, ok := decl.(*ast.FuncDecl); ok {
				in = funcName(pkg, fd)
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if cl, ok := n.(*ast.CompositeLit); ok {
					if id, ok := cl.Type.(*ast.Ident); ok && id.Name == name {
						out = append(out, in)
					}
				}
				return true
			})
		}
	}
	return out
}

// TestArchitectureDocBuildersAreTheOnlyOnes: where the map says a type's
// values are "built only by" one function ("`command.ending`, built only
// by `command.conclude`"), no other function of the type's package writes
// a composite literal of it. (Other packages are not held: the map says
// where they build one, as internal/run does for a scope the engine never
// ran.)
func TestArchitectureDocBuildersAreTheOnlyOnes(t *testing.T) {
	b, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	files := productFiles(t)
	claims := builtOnly.FindAllStringSubmatch(string(b), -1)
	for _, m := range claims {
		parts := strings.Split(m[1], ".")
		if len(parts) != 2 {
			t.Errorf("docs/architecture.md: %q is built only by …: name a type as pkg.Type", m[1])
			continue
		}
		builder := docFuncName(m[2])
		// The builder may be spelled from its type (ledger.result): it is
		// in the type's package either way.
		if b := strings.Split(builder, "."); len(b) == 2 && b[0] != parts[0] {
			builder = parts[0] + "." + builder
		}
		lits := compositesOf(files, parts[0], parts[1])
		if len(lits) == 0 {
			t.Errorf("docs/architecture.md says %s is built only by %s, but package %s builds none", m[1], m[2], parts[0])
		}
		for _, in := range lits {
			if in != builder {
				t.Errorf("docs/architecture.md says %s is built only by %s, but %s builds one too", m[1], m[2], in)
			}
		}
	}
	if len(claims) < 2 {
		t.Fatalf("found %d \"built only by\" claims in docs/architecture.md: the form was not recognised", len(claims))
	}
}
