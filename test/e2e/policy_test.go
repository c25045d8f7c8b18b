package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/schemas"
	"github.com/sops-aws-sync/sops-aws-sync/test/outputs"
)

// policyDir is a directory holding the repository's example policy
// max_changes.rego with a limit of limit changes, and a policy that
// echoes its whole input and data into a denial (what a careless policy
// could show: the plan file and the context, never a value).
func policyDir(t *testing.T, limit string, echo bool) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "policy", "examples", "max_changes.rego"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "max_changes.rego"), src, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), []byte(`{"limits": {"max_changes": `+limit+`}}`), 0o600))
	if echo {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "echo.rego"), []byte("package main\n\nimport rego.v1\n\n"+
			"deny_echo contains sprintf(\"%v\", [input]) if count(data.sops_aws_sync.labels) > 0\n"+
			"deny_echo contains sprintf(\"%v\", [data.sops_aws_sync]) if count(data.sops_aws_sync.labels) > 0\n"), 0o600))
	}
	return dir
}

// TestPolicy_DenialFailsThePlanWithItsMessages: plan --policy with the
// example max_changes policy (limit 2) over a plan of 3 creates, for each
// target: exit 3, report status invalid, gate:policy-denied in the plan
// file (valid against its schema) with the policy's message, which show's
// text and Markdown (the pull-request comment and job summary) carry; a
// policy that echoes its whole input and data shows no value, name or
// token (the canary scan); nothing was written to AWS.
func TestPolicy_DenialFailsThePlanWithItsMessages(t *testing.T) {
	need(t)
	for _, tg := range outTargets {
		t.Run(string(tg.target), func(t *testing.T) {
			e := startEmulator(t)
			f := newFixture(t)
			f.standardDocs()
			o := runOpts{Env: tg.env(e)}
			r, v, raw := f.runPlan(e, o, f.args("plan", "--policy", policyDir(t, "2", true), "--policy-labels", "reviewed,team-a")...)
			f.scan(e, o, r)
			require.Equal(t, 3, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
			require.NotNil(t, r.Report)
			assert.Equal(t, vocab.StatusInvalid, r.Report.Status)
			assert.Equal(t, vocab.Counts{Create: 3}, r.Report.Counts, "the plan is kept")
			require.NoError(t, schemas.Validate(raw))
			assert.Contains(t, outputs.ClassesOf(v), diag.GatePolicyDenied)
			var summaries []string
			for _, d := range v.Diagnostics {
				if d.Class == diag.GatePolicyDenied {
					summaries = append(summaries, d.Summary)
				}
			}
			assert.Contains(t, summaries, "policy deny: the plan holds 3 changes, more than 2: split the change")
			assert.Len(t, summaries, 3, "the limit's denial and the two echoes")
			text, md := f.showBoth(e, raw)
			for _, view := range []string{text, md, r.Stdout} {
				assert.Contains(t, view, "the plan holds 3 changes, more than 2: split the change")
				assert.Contains(t, view, diag.GatePolicyDenied)
			}
			assert.Zero(t, e.mutatingCalls())
		})
	}
}

// TestPolicy_PassingPlanIsUnchanged: the same plan under a limit of 10
// passes: exit 2 with --detailed-exit-code (drift), no policy class, the
// "policies passed" record.
func TestPolicy_PassingPlanIsUnchanged(t *testing.T) {
	need(t)
	e := startEmulator(t)
	f := newFixture(t)
	f.standardDocs()
	r, v, _ := f.runPlan(e, runOpts{}, f.args("plan", "--detailed-exit-code", "--policy", policyDir(t, "10", false))...)
	require.Equal(t, 2, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	assert.Equal(t, vocab.StatusDrift, r.Report.Status)
	assert.NotContains(t, strings.Join(outputs.ClassesOf(v), " "), "gate:policy")
	assert.Contains(t, r.Stdout, "policies passed")
}

// TestPolicy_UnusablePolicyStopsBeforeAWS: a policy calling http.send
// (the network) does not compile: exit 3, gate:policy-unusable, and
// nothing was read from AWS.
func TestPolicy_UnusablePolicyStopsBeforeAWS(t *testing.T) {
	need(t)
	e := startEmulator(t)
	f := newFixture(t)
	f.standardDocs()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "net.rego"), []byte("package main\n\nimport rego.v1\n\n"+
		"deny contains \"x\" if http.send({\"method\": \"GET\", \"url\": \""+e.URL+"\"}).status_code == 200\n"), 0o600))
	r, v, _ := f.runPlan(e, runOpts{}, f.args("plan", "--policy", dir)...)
	require.Equal(t, 3, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	assert.Contains(t, outputs.ClassesOf(v), diag.GatePolicyUnusable)
	var calls int64
	for _, n := range e.stats().Calls {
		calls += n
	}
	assert.Zero(t, calls, "no AWS call")
}
