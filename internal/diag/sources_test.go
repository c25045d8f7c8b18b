package diag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var tokenLiteral = regexp.MustCompile(`^([a-z]+):[a-z0-9-]+$`)

// productFiles parses every non-test Go file of the product (internal/,
// cmd/sops-aws-sync/; not the emulator, a stand-in for AWS) and calls fn
// with its slash path relative to the module root.
func productFiles(t *testing.T, fset *token.FileSet, fn func(rel string, file *ast.File)) {
	t.Helper()
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == ".":
				return nil
			case rel == "internal/emulator", rel == "action", rel == "bin", strings.HasPrefix(d.Name(), "."), d.Name() == "testdata", d.Name() == "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
			!(strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "cmd/sops-aws-sync/")) {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		fn(rel, file)
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, files, 100, "parsed only %d files: the walk missed the source tree", files)
}

// classLiterals calls fn with every string literal of file that looks like
// a class token of a registered family ("decrypt:no-key").
func classLiterals(file *ast.File, fn func(lit *ast.BasicLit, class string)) {
	families := map[string]bool{}
	for f := range familyExit {
		families[string(f)] = true
	}
	ast.Inspect(file, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		if m := tokenLiteral.FindStringSubmatch(s); m != nil && families[m[1]] {
			fn(lit, s)
		}
		return true
	})
}

// TestEveryClassLiteralIsRegistered: every string literal in the product's
// Go code that looks like a class token of a registered family
// ("decrypt:no-key") is registered, so no package can emit a token the
// registry does not know (issue 12: one registry of class tokens).
func TestEveryClassLiteralIsRegistered(t *testing.T) {
	fset := token.NewFileSet()
	seen := 0
	productFiles(t, fset, func(_ string, file *ast.File) {
		classLiterals(file, func(lit *ast.BasicLit, s string) {
			seen++
			_, ok := Lookup(s)
			assert.True(t, ok, "%s: class token %q is not registered in internal/diag", fset.Position(lit.Pos()), s)
		})
	})
	require.GreaterOrEqual(t, seen, 30, "found only %d class literals: the walk missed the source tree", seen)
}

// TestOneDiagnosticVocabulary: a class token is written once, in this
// package (canonical's plaintext:* tokens excepted: canonical sits below
// diag and cannot import it, package doc); and no package but this one
// declares a diagnostic of its own: a struct type with both a Class and a
// Summary field (issue 31 §4: planview's Diagnostic was a second one, and
// its planfile:* names a second spelling). A package reports a problem as
// a diag.Diagnostic, and a file writes it as a diag.Record.
func TestOneDiagnosticVocabulary(t *testing.T) {
	fset := token.NewFileSet()
	structs := 0
	productFiles(t, fset, func(rel string, file *ast.File) {
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == "internal/diag" {
			return
		}
		if dir != "internal/canonical" {
			classLiterals(file, func(lit *ast.BasicLit, s string) {
				assert.Fail(t, "class token spelled outside internal/diag",
					"%s: %q: use the registry's constant", fset.Position(lit.Pos()), s)
			})
		}
		ast.Inspect(file, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := spec.Type.(*ast.StructType)
			if !ok {
				return true
			}
			structs++
			fields := map[string]bool{}
			for _, f := range st.Fields.List {
				for _, name := range f.Names {
					fields[name.Name] = true
				}
			}
			assert.False(t, fields["Class"] && fields["Summary"],
				"%s: type %s is a second diagnostic type (Class and Summary): use diag.Diagnostic, or diag.Record for a file's form",
				fset.Position(spec.Pos()), spec.Name.Name)
			return true
		})
	})
	require.Greater(t, structs, 50, "found only %d struct types: the walk missed the source tree", structs)
}
