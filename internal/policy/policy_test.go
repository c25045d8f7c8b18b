package policy_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/policy"
)

// planFile reads one of planview's golden plan files (written by
// planview.Marshal, the writer of every run's plan file): the policies'
// input as a run gives it.
func planFile(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "planview", "testdata", name))
	require.NoError(t, err)
	_, err = planview.Parse(b)
	require.NoError(t, err, "a valid plan file")
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// dirOf is a directory holding the example policy (policy/examples/NAME)
// and the given data files.
func dirOf(t *testing.T, example string, data map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "policy", "examples", example))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, example), src, 0o600))
	for name, text := range data {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600))
	}
	return dir
}

func check(t *testing.T, dir string, c policy.Context, input map[string]any) []policy.Denial {
	t.Helper()
	set, err := policy.Load(context.Background(), dir, c)
	require.NoError(t, err)
	ds, more, err := set.Check(context.Background(), input)
	require.NoError(t, err)
	assert.Zero(t, more)
	return ds
}

func messages(ds []policy.Denial) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Rule+": "+d.Message)
	}
	return out
}

func customer(names ...string) policy.Context {
	c := policy.Context{Scopes: map[string]policy.ScopeContext{}}
	for _, n := range names {
		c.Scopes[n] = policy.ScopeContext{Target: model.TargetSecretsManager, KMSKey: policy.KMSKeyCustomerManaged}
	}
	return c
}

// TestExample_NoProdDeletions: a plan deleting in scope prod-eu is denied
// (scopes-names: one schedule-delete there) unless the change carries
// the label; a plan without deletion passes.
func TestExample_NoProdDeletions(t *testing.T) {
	dir := dirOf(t, "no_prod_deletions.rego", nil)
	c := customer("prod-eu", "staging", "prod-us")
	for _, f := range []string{"scopes-names.json.golden", "scopes-hidden.json.golden"} {
		got := messages(check(t, dir, c, planFile(t, f)))
		require.Len(t, got, 1, f)
		assert.Contains(t, got[0], "deny: scope prod-eu: ")
		assert.Contains(t, got[0], "needs the label allow-prod-deletion")
	}
	labelled := c
	labelled.Labels = []string{"reviewed", "allow-prod-deletion"}
	assert.Empty(t, check(t, dir, labelled, planFile(t, "scopes-names.json.golden")), "labelled")
	assert.Empty(t, check(t, dir, customer("default"), planFile(t, "full-names.json.golden")), "a deletion outside production")
	assert.Empty(t, check(t, dir, c, planFile(t, "nochange-names.json.golden")), "no deletion")
}

// TestExample_MaxChanges: full-names plans 11 changes (a restore, a
// create, 8 updates, a deletion): under the default 20 it passes, under
// a data file's limit of 10 it is denied; unchanged and conflicts are no
// change (conflict-names: 2 conflicts, 1 unchanged, limit 0 passes).
func TestExample_MaxChanges(t *testing.T) {
	plan := planFile(t, "full-names.json.golden")
	assert.Empty(t, check(t, dirOf(t, "max_changes.rego", nil), customer("default"), plan))
	got := messages(check(t, dirOf(t, "max_changes.rego", map[string]string{"data.json": `{"limits": {"max_changes": 10}}`}), customer("default"), plan))
	assert.Equal(t, []string{"deny: the plan holds 11 changes, more than 10: split the change"}, got)
	assert.Empty(t, check(t, dirOf(t, "max_changes.rego", map[string]string{"data.json": `{"limits": {"max_changes": 11}}`}), customer("default"), plan), "at the limit")
	assert.Empty(t, check(t, dirOf(t, "max_changes.rego", map[string]string{"data.json": `{"limits": {"max_changes": 0}}`}), customer("default"),
		planFile(t, "conflict-names.json.golden")))
}

// TestExample_CustomerManagedKMS: a scope whose kms-key-id is not given
// or names an AWS managed key is denied; a customer managed key passes.
func TestExample_CustomerManagedKMS(t *testing.T) {
	dir := dirOf(t, "customer_managed_kms.rego", nil)
	plan := planFile(t, "full-hidden.json.golden")
	assert.Empty(t, check(t, dir, customer("default"), plan))
	for id, kind := range map[string]string{"": "not-managed", "alias/aws/secretsmanager": "aws-managed",
		"arn:aws:kms:eu-west-1:111122223333:alias/aws/ssm": "aws-managed"} {
		c := policy.Context{Scopes: map[string]policy.ScopeContext{"default": {Target: model.TargetSecretsManager, KMSKey: policy.KMSKindOf(id)}}}
		assert.Equal(t, []string{"deny: scope default: the KMS key is " + kind + "; set kms-key-id to a customer managed key"},
			messages(check(t, dir, c, plan)), id)
	}
	for _, id := range []string{"alias/prod-secrets", "1234abcd-12ab-34cd-56ef-1234567890ab", "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"} {
		assert.Equal(t, policy.KMSKeyCustomerManaged, policy.KMSKindOf(id), id)
	}
}

// TestExample_ParameterStorePlaintextTier: a Parameter Store scope at its
// pinned tier writing SecureString passes; another tier, or a type other
// than SecureString, is denied; a Secrets Manager scope is not concerned.
func TestExample_ParameterStorePlaintextTier(t *testing.T) {
	dir := dirOf(t, "parameter_store_plaintext_tier.rego", nil)
	plan := planFile(t, "full-hidden.json.golden")
	ps := func(tier, typ string) policy.Context {
		return policy.Context{Scopes: map[string]policy.ScopeContext{"default": {Target: model.TargetParameterStore,
			ParameterTier: tier, ParameterType: typ, KMSKey: policy.KMSKeyCustomerManaged}}}
	}
	assert.Empty(t, check(t, dir, ps("standard", "SecureString"), plan))
	assert.Equal(t, []string{"deny: scope default: parameter-tier is advanced, pinned to standard; change the pin in the policy with the review of the tier change"},
		messages(check(t, dir, ps("advanced", "SecureString"), plan)))
	assert.Equal(t, []string{"deny: scope default: parameters would be written as String; only SecureString keeps the value encrypted"},
		messages(check(t, dir, ps("standard", "String"), plan)))
	pinned := policy.Context{Scopes: map[string]policy.ScopeContext{"prod-large": {Target: model.TargetParameterStore,
		ParameterTier: "advanced", ParameterType: "SecureString"}}}
	assert.Empty(t, check(t, dir, pinned, plan), "a scope pinned to advanced")
	assert.Empty(t, check(t, dir, customer("default"), plan), "Secrets Manager")
}

// TestExamples_TogetherCompile: the examples directory loads as one set
// (no two files define a rule differently).
func TestExamples_TogetherCompile(t *testing.T) {
	set, err := policy.Load(context.Background(), filepath.Join("..", "..", "policy", "examples"), customer("default"))
	require.NoError(t, err)
	assert.Equal(t, 4, set.Files())
	ds, _, err := set.Check(context.Background(), planFile(t, "nochange-names.json.golden"))
	require.NoError(t, err)
	assert.Empty(t, ds)
}

func writePolicy(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.rego"), []byte(text), 0o600))
	return dir
}

// TestNonDeterministicBuiltinsAreRefused: a policy calling the network,
// the clock, randomness or the runtime's environment does not compile.
func TestNonDeterministicBuiltinsAreRefused(t *testing.T) {
	for _, call := range []string{
		`http.send({"method": "GET", "url": "http://127.0.0.1:1/"})`,
		`time.now_ns()`, `rand.intn("x", 10)`, `opa.runtime()`, `uuid.rfc4122("x")`, `net.lookup_ip_addr("localhost")`,
	} {
		dir := writePolicy(t, "package main\n\ndeny contains msg if {\n\tx := "+call+"\n\tmsg := sprintf(\"%v\", [x])\n}\n")
		_, err := policy.Load(context.Background(), dir, policy.Context{})
		var pe *policy.Error
		require.ErrorAs(t, err, &pe, call)
		assert.Contains(t, pe.Reason, "do not compile", call)
	}
}

// TestUnusablePolicies: a path that does not exist, a directory without
// .rego, a syntax error, an evaluation error (conflicting values of a
// complete rule) are *policy.Error.
func TestUnusablePolicies(t *testing.T) {
	ctx := context.Background()
	var pe *policy.Error
	_, err := policy.Load(ctx, filepath.Join(t.TempDir(), "none"), policy.Context{})
	require.ErrorAs(t, err, &pe)
	_, err = policy.Load(ctx, t.TempDir(), policy.Context{})
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Reason, "no .rego file")
	_, err = policy.Load(ctx, writePolicy(t, "package main\n\ndeny contains msg if {\n"), policy.Context{})
	require.ErrorAs(t, err, &pe)
	set, err := policy.Load(ctx, writePolicy(t, "package main\n\nx := 1 if input.a\nx := 2 if input.a\ndeny contains \"y\" if x == 3\n"), policy.Context{})
	require.NoError(t, err)
	_, _, err = set.Check(ctx, map[string]any{"a": true})
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Reason, "failed while evaluating")
}

// TestConftestRuleForms: deny, violation, deny_* and violation_* rules
// deny, with a string or an object's msg; warn and other rules do not;
// messages become one printable line of at most MaxMessageBytes; the
// denials are sorted and distinct.
func TestConftestRuleForms(t *testing.T) {
	long := strings.Repeat("é", policy.MaxMessageBytes)
	dir := writePolicy(t, `package main

deny contains "b: plain"
deny contains "a: two\nlines\tand\u0007bell"
violation contains {"msg": "an object", "details": {"x": 1}}
deny_named contains "named"
violation_other contains {"nomsg": true}
warn contains "only a warning"
allow := true
deny_long contains "`+long+`"
`)
	set, err := policy.Load(context.Background(), dir, policy.Context{})
	require.NoError(t, err)
	ds, _, err := set.Check(context.Background(), map[string]any{})
	require.NoError(t, err)
	got := messages(ds)
	require.Len(t, got, 6)
	assert.Equal(t, []string{"deny: a: two lines and bell", "deny: b: plain", "deny_long: ", "deny_named: named",
		"violation: an object", "violation_other: (a denial without a msg)"}, []string{got[0], got[1], got[2][:len("deny_long: ")], got[3], got[4], got[5]})
	m := ds[2].Message
	assert.LessOrEqual(t, len(m), policy.MaxMessageBytes)
	assert.True(t, strings.HasSuffix(m, "…"))
}

// TestDataKeyIsTheRunsContext: data.sops_aws_sync is the Context (a data
// file's sops_aws_sync key is replaced), other data files stay.
func TestDataKeyIsTheRunsContext(t *testing.T) {
	dir := writePolicy(t, `package main

deny contains sprintf("%v %v %v %v", [data.sops_aws_sync.labels, data.sops_aws_sync.scopes.one.kms_key, data.sops_aws_sync.scopes.one.target, data.extra.n])
`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), []byte(`{"sops_aws_sync": {"labels": ["forged"]}, "extra": {"n": 7}}`), 0o600))
	c := policy.Context{Labels: []string{"l1"}, Scopes: map[string]policy.ScopeContext{"one": {Target: model.TargetParameterStore, KMSKey: policy.KMSKeyAWSManaged}}}
	assert.Equal(t, []string{`deny: ["l1"] aws-managed parameter-store 7`}, messages(check(t, dir, c, map[string]any{})))
}
