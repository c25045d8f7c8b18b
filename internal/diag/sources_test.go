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

// TestEveryClassLiteralIsRegistered: every string literal in the product's
// Go code that looks like a class token of a registered family
// ("decrypt:no-key") is registered, so no package can emit a token the
// registry does not know (issue 12: one registry of class tokens).
func TestEveryClassLiteralIsRegistered(t *testing.T) {
	families := map[string]bool{}
	for f := range familyExit {
		families[string(f)] = true
	}
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	seen := 0
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
				seen++
				_, ok := Lookup(s)
				assert.True(t, ok, "%s: class token %q is not registered in internal/diag", fset.Position(lit.Pos()), s)
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, seen, 30, "found only %d class literals: the walk missed the source tree", seen)
}
