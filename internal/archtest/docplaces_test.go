package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fileDeclarations maps each non-test Go file of the module (its slash
// path from the module root) to the names it declares: top-level names,
// and the fields and methods of its types.
func fileDeclarations(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		names := map[string]bool{}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				names[decl.Name.Name] = true
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						names[spec.Name.Name] = true
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									names[n.Name] = true
								}
							}
						}
						if it, ok := spec.Type.(*ast.InterfaceType); ok {
							for _, m := range it.Methods.List {
								for _, n := range m.Names {
									names[n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
		out[filepath.ToSlash(strings.TrimPrefix(path, "../../"))] = names
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	// spanAt is a code span with what follows it on the line.
	spanAt = regexp.MustCompile("`([^`]+)`")
	// goFileSpan is a Go file as the doc names it: a repository path or a
	// base name.
	goFileSpan = regexp.MustCompile("`((?:[a-z0-9_]+/)*[a-z0-9_]+\\.go)`")
	// placedName is a name the doc may place in a file: a qualified Go
	// name (run.Validate, (*Prepared).Apply) or one identifier
	// (scopeReview, capped).
	// listTail is the rest of a list of code spans after its first.
	listTail   = regexp.MustCompile("^(?:(?:, | and | / |/)`[^`]+`)*")
	placedName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
)

// placements returns, for each code span of text that names a Go
// declaration and is placed in a file — followed by " (" and a Go file
// as the parenthesis's first code span, or by " in " and a Go file — the
// span and the file named there.
func placements(text string) map[string][][]string {
	out := map[string][][]string{}
	for _, loc := range spanAt.FindAllStringSubmatchIndex(text, -1) {
		span := text[loc[2]:loc[3]]
		name := strings.NewReplacer("(*", "", ").", ".", "*", "", "[]", "").Replace(span)
		if i := strings.IndexAny(name, "{[("); i >= 0 {
			name = name[:i]
		}
		if !placedName.MatchString(name) || strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".md") {
			continue
		}
		rest := text[loc[1]:]
		// A list of names placed together ("`capped` and `decryptAll` in
		// `load.go`", "`Compare` / `CompareScope` (…)"): each is placed
		// where the list is.
		rest = rest[len(listTail.FindString(rest)):]
		var where string
		switch {
		case strings.HasPrefix(rest, " ("):
			depth := 0
			for i, r := range rest[1:] {
				if r == '(' {
					depth++
				} else if r == ')' {
					depth--
					if depth == 0 {
						where = rest[1 : i+2]
						break
					}
				}
			}
			// Only the parenthesis's own text: a nested one names the
			// places of other names.
			where = regexp.MustCompile(`\([^()]*\)`).ReplaceAllString(strings.TrimSuffix(strings.TrimPrefix(where, "("), ")"), "")
			// The file must open the parenthesis ("(`validate.go`: …)"):
			// a file named later places the names listed before it.
			if first := spanAt.FindStringIndex(where); first == nil || !goFileSpan.MatchString(where[first[0]:first[1]]) {
				continue
			}
			where, _, _ = strings.Cut(where, ";") // "(`scopes.go`, `run.go`; …)"
		case strings.HasPrefix(rest, " in `"):
			where = rest[len(" in ") : strings.Index(rest[len(" in `"):], "`")+len(" in `")+1]
		default:
			continue
		}
		var files []string
		for _, m := range goFileSpan.FindAllStringSubmatch(where, -1) {
			files = append(files, m[1])
		}
		if len(files) > 0 {
			out[name] = append(out[name], files)
		}
	}
	return out
}

// TestArchitectureDocPlacesNamesInTheirFiles: a name the map places in a
// file — "`run.Validate` (`internal/run/validate.go`)", "`scopeReview` in
// `internal/run/review.go`", "`factory.Trail` (…; `trail.go`)" — is
// declared in one of the files named there (a base name: any file of
// that name). TestArchitectureDocNamesWhatExists holds that the name and
// the file exist; this holds that the row still says where the name is,
// so moving a function to another file, or renaming one the map spells
// in lower case (which that test cannot tell from a setting's name),
// fails until the row follows.
func TestArchitectureDocPlacesNamesInTheirFiles(t *testing.T) {
	b, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
	decls := fileDeclarations(t)
	packages := moduleDeclarations(t).packages
	checked := 0
	for name, places := range placements(text) {
		if _, ok := packages[name]; ok {
			continue // a package placed in its files ("`planview` (`digest.go`)")
		}
		last := name[strings.LastIndex(name, ".")+1:]
		for _, files := range places {
			found, known := false, false
			for path, names := range decls {
				if !namedFile(files, path) {
					continue
				}
				known = true
				found = found || names[last]
			}
			if !known {
				continue // the file itself is checked by TestArchitectureDocNamesWhatExists
			}
			checked++
			if !found {
				t.Errorf("docs/architecture.md places %s in %s, which does not declare %s", name, strings.Join(files, ", "), last)
			}
		}
	}
	t.Logf("%d placements checked", checked)
	if checked < 20 {
		t.Fatalf("checked only %d placements: the doc's form was not recognised", checked)
	}
}

// namedFile reports whether path is one of files (a repository path) or
// has the base name of one of them.
func namedFile(files []string, path string) bool {
	for _, f := range files {
		if path == f || (!strings.Contains(f, "/") && filepath.Base(path) == f) {
			return true
		}
	}
	return false
}
