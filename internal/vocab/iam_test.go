package vocab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// TestIAMActionsAreInThePolicyDoc: every IAM action of the table, which
// failure records and log records tell the operator to grant, is one
// docs/iam-policy.md names, so the advice and the policy example agree.
func TestIAMActionsAreInThePolicyDoc(t *testing.T) {
	b, err := os.ReadFile("../../docs/iam-policy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range IAMOperations() {
		for _, a := range IAMActions(op, true) {
			if !strings.Contains(string(b), "`"+a+"`") {
				t.Errorf("%s: docs/iam-policy.md does not name %s", op, a)
			}
		}
	}
}

// TestIAMActionsOfEachCall pins the rows AWS documents beside an
// operation's own action, and that an unknown operation has none.
func TestIAMActionsOfEachCall(t *testing.T) {
	for _, tc := range []struct {
		op       string
		replicas bool
		want     []string
	}{
		{"CreateSecret", false, []string{"secretsmanager:CreateSecret", "secretsmanager:TagResource"}},
		{"CreateSecret", true, []string{"secretsmanager:CreateSecret", "secretsmanager:TagResource", "secretsmanager:ReplicateSecretToRegions"}},
		{"BatchGetSecretValue", false, []string{"secretsmanager:BatchGetSecretValue", "secretsmanager:GetSecretValue"}},
		{"PutSecretValue", true, []string{"secretsmanager:PutSecretValue"}},
		{"TagResource", false, []string{"secretsmanager:TagResource"}},
		{"NoSuchCall", false, nil},
	} {
		got := IAMActions(tc.op, tc.replicas)
		if !slices.Equal(got, tc.want) {
			t.Errorf("IAMActions(%s, %v) = %v, want %v", tc.op, tc.replicas, got, tc.want)
		}
	}
	a := IAMActions("CreateSecret", true)
	a[0] = "x"
	if IAMActions("CreateSecret", true)[0] != "secretsmanager:CreateSecret" {
		t.Error("IAMActions returns the table's own slice")
	}
}

// ssmOperations are the AWS Systems Manager operations internal/awsps
// calls, found in its source rather than listed by hand: every method call
// whose name is an API operation of *ssm.Client (a method taking a
// context and an *<Name>Input), every ssm.New<Name>Paginator, and every
// operation name the adapter reports in an engine.Error (a string literal
// passed to convert or read, or an Operation field).
func ssmOperations(t *testing.T) map[string]bool {
	t.Helper()
	api := map[string]bool{}
	ct := reflect.TypeFor[*ssm.Client]()
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		if m.Type.NumIn() >= 3 && m.Type.In(2).Kind() == reflect.Pointer && m.Type.In(2).Elem().Name() == m.Name+"Input" {
			api[m.Name] = true
		}
	}
	files, err := filepath.Glob("../awsps/*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	literal := func(e ast.Expr) {
		if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if s, err := strconv.Unquote(b.Value); err == nil && api[s] {
				found[s] = true
			} else if err == nil {
				t.Errorf("awsps reports operation %q, which is not an SSM API operation", s)
			}
		}
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "convert") && len(n.Args) > 1 {
						literal(n.Args[1])
					}
					return true
				}
				name := sel.Sel.Name
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "ssm" && strings.HasPrefix(name, "New") && strings.HasSuffix(name, "Paginator") {
					found[strings.TrimSuffix(strings.TrimPrefix(name, "New"), "Paginator")] = true
				} else if api[name] {
					found[name] = true
				}
				if name == "read" && len(n.Args) > 2 {
					literal(n.Args[2])
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Operation" {
					literal(n.Value)
				}
			}
			return true
		})
	}
	return found
}

// TestIAMTableCoversTheParameterStoreAdapter: every SSM operation the
// Parameter Store adapter calls has its IAM actions in the table (so a
// refused call's failure record names them) and in docs/iam-policy.md's
// Parameter Store section, in a role's policy: a new call in
// internal/awsps without its permission fails here.
func TestIAMTableCoversTheParameterStoreAdapter(t *testing.T) {
	ops := ssmOperations(t)
	for _, want := range []string{"DescribeParameters", "GetParameters", "PutParameter", "DeleteParameter"} {
		if !ops[want] {
			t.Fatalf("found %v in internal/awsps, not %s: the parser no longer sees the adapter's calls", ops, want)
		}
	}
	b, err := os.ReadFile("../../docs/iam-policy.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "## Parameter Store scopes")
	if start < 0 {
		t.Fatal("docs/iam-policy.md has no '## Parameter Store scopes' section")
	}
	section := doc[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	for op := range ops {
		actions := IAMActions(op, false)
		if len(actions) == 0 {
			t.Errorf("internal/awsps calls %s, which the IAM table (vocab.iamActions) does not list", op)
		}
		for _, a := range actions {
			if !strings.Contains(section, `"`+a+`"`) {
				t.Errorf("%s: the Parameter Store policy in docs/iam-policy.md does not grant %s", op, a)
			}
			if !strings.Contains(section, "`"+a+"`") {
				t.Errorf("%s: the Parameter Store table in docs/iam-policy.md does not name %s", op, a)
			}
		}
	}
}
