package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// declarations are the names the module's Go code declares (product and
// test files), for checking what docs/architecture.md names.
type declarations struct {
	// packages maps a package name to the declarations of every package
	// of that name: its top-level names and its types' fields and methods.
	packages map[string]map[string]bool
	// members maps a type name (of any package) to its fields and methods.
	members map[string]map[string]bool
	// all is every declared name, members included.
	all map[string]bool
	// imports are the names files import other packages under.
	imports map[string]bool
	// tests are the top-level functions of test files (Test*, Fuzz*,
	// Benchmark*, helpers): only a test name may resolve to one, so a doc
	// that names a product declaration a test file happens to declare
	// too (a helper named like a removed function) still fails.
	tests map[string]bool
}

func declare(set map[string]map[string]bool, key, name string) {
	if set[key] == nil {
		set[key] = map[string]bool{}
	}
	set[key][name] = true
}

// moduleDeclarations parses every Go file of the module.
func moduleDeclarations(t *testing.T) declarations {
	t.Helper()
	d := declarations{packages: map[string]map[string]bool{}, members: map[string]map[string]bool{}, all: map[string]bool{}, imports: map[string]bool{}, tests: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		if strings.HasSuffix(path, "_test.go") {
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
					d.tests[fn.Name.Name] = true
				}
			}
			return nil
		}
		add := func(name string) {
			declare(d.packages, pkg, name)
			d.all[name] = true
		}
		member := func(typ, name string) {
			declare(d.members, typ, name)
			add(name)
		}
		for _, im := range f.Imports {
			name := strings.Trim(im.Path.Value, `"`)
			name = name[strings.LastIndex(name, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			d.imports[name] = true
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				add(decl.Name.Name)
				if decl.Recv != nil && len(decl.Recv.List) == 1 {
					member(receiverType(decl.Recv.List[0].Type), decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						add(spec.Name.Name)
						switch typ := spec.Type.(type) {
						case *ast.StructType:
							for _, fl := range typ.Fields.List {
								for _, n := range fl.Names {
									member(spec.Name.Name, n.Name)
								}
								if len(fl.Names) == 0 {
									member(spec.Name.Name, receiverType(fl.Type))
								}
							}
						case *ast.InterfaceType:
							for _, m := range typ.Methods.List {
								for _, n := range m.Names {
									member(spec.Name.Name, n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							add(n.Name)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// receiverType is the name of the type of a receiver or embedded field.
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

var (
	qualified = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$`)
	testName  = regexp.MustCompile(`^(Test|Fuzz|Benchmark)[A-Za-z0-9_]*$`)
	// goName is an unqualified identifier that only Go code spells so: it
	// starts with a capital (Outline, RunScopes) or has one after a lower-case
	// start (awaitValues). The doc's settings and wire words are lower
	// case with dashes or underscores.
	goName = regexp.MustCompile(`^([A-Z][A-Za-z0-9]*|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)$`)
	// constName is a TypeScript constant of the Action (COUNT_KEYS,
	// DEFAULT_DRIFT_LABEL).
	constName = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
	repoPath  = regexp.MustCompile(`^(internal|cmd|test|bench|docs|scripts|action|packaging|templates|\.github|\.ci)/[A-Za-z0-9_./-]+$`)
	// makeTargets is a make command the doc names (`make image`, `make
	// test-action-ci`).
	makeTargets = regexp.MustCompile(`^make( [a-z][a-z0-9-]*)+$`)
	// flagSpan is a command-line flag as the doc names it (--scope NAME,
	// -rotations): its name.
	flagSpan = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)(?: [A-Z_]+)?$`)
	// classToken is a diagnostic class as the docs spell it
	// (plan:stale); classIn finds one in prose.
	classToken = regexp.MustCompile(`^([a-z]+):([a-z0-9]+(?:-[a-z0-9]+)*)$`)
	classIn    = regexp.MustCompile(`\b([a-z]+):([a-z0-9]+(?:-[a-z0-9]+)*)\b`)
	// makeRule is a rule line of the Makefile: its targets before ":".
	makeRule = regexp.MustCompile(`(?m)^([a-z][a-z0-9 -]*):`)
	fileName = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.(go|ts|yml|yaml|md|json|golden)$`)
)

// resolves reports whether the qualified name q (a.B, a.B.C) names what
// the code declares: a the name of one of the module's packages and B
// declared there, or a a type and B its field or method; further parts
// are fields or methods of something of a's package. A name qualified by
// another module's package (time.After, slog.String) is not checked.
func (d declarations) resolves(q string) bool {
	parts := strings.Split(q, ".")
	head, rest := parts[0], parts[1:]
	if decls, ok := d.packages[head]; ok && decls[rest[0]] {
		for _, p := range rest[1:] {
			if !decls[p] {
				return false
			}
		}
		return true
	}
	if ms, ok := d.members[head]; ok && ms[rest[0]] {
		return len(rest) == 1 || d.all[rest[1]]
	}
	if _, ours := d.packages[head]; !ours && d.imports[head] {
		return true
	}
	return false
}

// families are the diag registry's class families: a span "family:what"
// names a class token.
var families = func() map[string]bool {
	out := map[string]bool{}
	for _, f := range diag.Families {
		out[string(f)] = true
	}
	return out
}()

// external are the names of AWS's API (operations, parameters,
// replication statuses) and of the Go runtime's environment the doc spells
// like Go names: not declarations of ours.
var external = map[string]bool{
	"AssumeRole": true, "AssumeRoleWithWebIdentity": true, "GetCallerIdentity": true,
	"DescribeSecret": true, "InProgress": true, "InSync": true, "KmsKeyId": true,
	"GOGC": true, "GOMEMLIMIT": true,
}

// actionDeclares reports whether the Action's TypeScript (action/src)
// declares name: a function, const, let, type or interface of that name.
func actionDeclares(t *testing.T, name string) bool {
	t.Helper()
	decl := regexp.MustCompile(`\b(function|const|let|type|interface|class)\s+` + regexp.QuoteMeta(name) + `\b`)
	found := false
	err := filepath.WalkDir("../../action/src", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".ts") || found {
			return err
		}
		b, err := os.ReadFile(path)
		found = found || decl.Match(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestArchitectureDocNamesWhatExists: every code span of
// docs/architecture.md that names a file of the repository (a path under
// internal/, cmd/, test/, bench/, docs/, scripts/, action/) names one that
// exists, every file named by its base name (outputs.go) is somewhere in
// the repository, and every qualified Go name (model.Scope,
// runner.prepare, (*Prepared).Apply) and test name names a declaration of
// the module's product code (a test name: of its test files), and every
// unqualified name only Go spells so (Outline, awaitValues) is declared
// by the product, is a name of AWS's API (external) or is declared by the
// Action's TypeScript, so a rename or a removal that leaves the map stale
// fails here. A `make TARGET` span names a target of the Makefile, and a
// qualified name in the layer block resolves too. (Unqualified
// all-lower-case words are not checked: the doc also names settings and
// wire words that way.)
func TestArchitectureDocNamesWhatExists(t *testing.T) {
	b, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	d := moduleDeclarations(t)
	// The fenced blocks (the layer block) are not code spans; their
	// qualified names (run.Execute, model.Arrival) are checked as the
	// package comments' are.
	fenced := regexp.MustCompile("(?s)```.*?```")
	for _, block := range fenced.FindAllString(string(b), -1) {
		for _, m := range docQualified.FindAllStringSubmatch(block, -1) {
			name := strings.TrimRight(m[1], ".")
			head := name[:strings.Index(name, ".")]
			if _, ours := d.packages[head]; ours && !fileName.MatchString(name) && !d.resolves(name) {
				t.Errorf("the layer block of docs/architecture.md names %s, which the code does not declare", name)
			}
		}
	}
	text := fenced.ReplaceAllString(string(b), "")
	flagNames := stringLiterals(t)
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeRule.FindAllStringSubmatch(string(mk), -1) {
		for _, tg := range strings.Fields(m[1]) {
			targets[tg] = true
		}
	}
	files := map[string]bool{}
	err = filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && e.Name() == "node_modules" {
			return filepath.SkipDir
		}
		files[e.Name()] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		span := m[1]
		if m := classToken.FindStringSubmatch(span); m != nil && families[m[1]] {
			if _, ok := diag.Lookup(span); !ok {
				t.Errorf("docs/architecture.md names the class %s, which the diag registry does not hold", span)
			}
			continue
		}
		if m := flagSpan.FindStringSubmatch(span); m != nil {
			if !flagNames[m[1]] {
				t.Errorf("docs/architecture.md names the flag %s, which no Go code of the module declares (no string literal %q)", span, m[1])
			}
			continue
		}
		switch {
		case makeTargets.MatchString(span):
			for _, tg := range strings.Fields(span)[1:] {
				if !targets[tg] {
					t.Errorf("docs/architecture.md names `%s`, but the Makefile has no target %s", span, tg)
				}
			}
			continue
		case repoPath.MatchString(span):
			if _, err := os.Stat(filepath.Join("../..", span)); err != nil {
				t.Errorf("docs/architecture.md names %s, which does not exist", span)
			}
			continue
		case fileName.MatchString(span):
			if !files[span] {
				t.Errorf("docs/architecture.md names the file %s, which no directory holds", span)
			}
			continue
		}
		if strings.HasSuffix(span, "*") {
			continue // a pattern (Allows*), not a name
		}
		name := strings.NewReplacer("(*", "", ").", ".", "[]", "", "*", "", "&", "").Replace(span)
		if i := strings.IndexAny(name, "{[("); i >= 0 {
			name = name[:i]
		}
		switch {
		case qualified.MatchString(name):
			if !d.resolves(name) {
				t.Errorf("docs/architecture.md names %s, which the code does not declare", span)
			}
		case testName.MatchString(name):
			if !d.tests[name] {
				t.Errorf("docs/architecture.md names the test %s, which the code does not declare", span)
			}
		case constName.MatchString(name):
			if !actionDeclares(t, name) {
				t.Errorf("docs/architecture.md names %s, which the Action's source does not declare", span)
			}
		case goName.MatchString(name):
			if !d.all[name] && !external[name] && !actionDeclares(t, name) {
				t.Errorf("docs/architecture.md names %s, which the code does not declare", span)
			}
		}
	}
}

var (
	// docQualified is a qualified Go name in prose (model.Arrival,
	// run.Sources.Open, vocab.Phases), followed by anything but a letter.
	docQualified = regexp.MustCompile(`\b([a-z][a-z0-9]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)
	// docPath is a repository path in prose (internal/desired/gitsource).
	docPath = regexp.MustCompile(`\b((?:internal|cmd|bench)/[a-z0-9_/]*[a-z0-9_])`)
)

// TestPackageDocsNameWhatExists: every package of the module but the test
// trees' has a package comment, and each comment names only what exists:
// a qualified name whose head is one of the module's packages
// (run.Execute, model.Arrival) resolves to a declaration of it, and a
// path under internal/, cmd/ or bench/ exists. So a package comment that
// still describes a function or a file that moved fails here, as the map
// does (TestArchitectureDocNamesWhatExists).
func TestPackageDocsNameWhatExists(t *testing.T) {
	d := moduleDeclarations(t)
	fset := token.NewFileSet()
	docs := map[string]string{} // package directory → its comment
	dirs := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "node_modules" || e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "../../"))
		if strings.HasPrefix(dir, "test/") {
			return nil // the e2e and chaos trees: tests, not packages of the product or its tools
		}
		dirs[dir] = true
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if f.Doc != nil {
			docs[dir] += f.Doc.Text()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir := range dirs {
		text, ok := docs[dir]
		if !ok {
			t.Errorf("package %s has no package comment (doc.go: what it holds and its invariants)", dir)
			continue
		}
		for _, m := range docQualified.FindAllStringSubmatch(text, -1) {
			name := strings.TrimRight(m[1], ".")
			head := name[:strings.Index(name, ".")]
			if _, ours := d.packages[head]; !ours || fileName.MatchString(name) {
				continue // another module's name (slog.String), or a file (emulator.md)
			}
			if !d.resolves(name) {
				t.Errorf("the package comment of %s names %s, which the code does not declare", dir, name)
			}
		}
		for _, m := range classIn.FindAllStringSubmatch(text, -1) {
			if _, ok := diag.Lookup(m[0]); families[m[1]] && !ok {
				t.Errorf("the package comment of %s names the class %s, which the diag registry does not hold", dir, m[0])
			}
		}
		for _, m := range docPath.FindAllStringSubmatch(text, -1) {
			if _, err := os.Stat(filepath.Join("../..", m[1])); err != nil {
				t.Errorf("the package comment of %s names %s, which does not exist", dir, m[1])
			}
		}
	}
}

// TestArchitectureDocNamesEveryActionModule: every module of the Action's
// source (action/src/*.ts) is named in docs/architecture.md, so the row
// of the Action's modules (one concern each) keeps up with a new module.
func TestArchitectureDocNamesEveryActionModule(t *testing.T) {
	b, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(b), "")
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		named[filepath.Base(m[1])] = true
	}
	modules, err := filepath.Glob("../../action/src/*.ts")
	if err != nil {
		t.Fatal(err)
	}
	if len(modules) < 10 {
		t.Fatalf("found only %d modules in action/src: the glob missed the source tree", len(modules))
	}
	for _, m := range modules {
		if !named[filepath.Base(m)] {
			t.Errorf("docs/architecture.md does not name action/src/%s: give it its place in the row of the Action's modules", filepath.Base(m))
		}
	}
}

// stringLiterals returns the contents of the string literals of the
// module's Go files (tests included: go test's own flags, such as
// -update, are declared there): a flag is declared by its name's literal.
func stringLiterals(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (e.Name() == "node_modules" || e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".")) && path != "../.." {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil {
					out[v] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
