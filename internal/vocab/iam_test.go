package vocab

import (
	"os"
	"slices"
	"strings"
	"testing"
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
