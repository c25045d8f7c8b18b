package command

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func scopeGot(name string, s vocab.Status, v vocab.Verification, c vocab.Counts, ds ...diag.Diagnostic) scopeReached {
	return scopeReached{name: name, region: "eu-west-1", Result: engine.Result{Status: s, Verification: v, Counts: c, Diagnostics: ds}}
}

// TestConclude_SeveralScopesMostSevereAndSummed: a run of several scopes
// ends with one section per scope (each its own status, verification,
// counts and diagnostics) and, for report v1, the most severe status and
// verification and the summed counts (SPEC §10).
func TestConclude_SeveralScopesMostSevereAndSummed(t *testing.T) {
	halted := diag.New(diag.ApplyHalted, diag.Subject{})
	got := reached{scopes: []scopeReached{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2, Unchanged: 1}),
		scopeGot("staging", vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Update: 1}),
		scopeGot("dev", vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Unchanged: 4}, halted),
	}}
	e := conclude(got, testRev, how{mode: engine.ModeSync})
	assert.Equal(t, vocab.StatusApplyFailed, e.status)
	assert.Equal(t, vocab.VerificationNotRun, e.verification)
	assert.Equal(t, vocab.Counts{Create: 2, Update: 1, Unchanged: 5}, e.counts)
	assert.Equal(t, vocab.ExitApply, e.exitCode())
	require.Len(t, e.scopes, 3)
	assert.Equal(t, []string{"prod", "staging", "dev"}, []string{e.scopes[0].name, e.scopes[1].name, e.scopes[2].name})
	assert.Equal(t, vocab.VerificationConverged, e.scopes[0].verification)
	assert.Equal(t, diag.Diagnostics{halted}, e.scopes[2].diags)
	assert.Empty(t, e.diags, "a scope's diagnostics stay in its section")

	all := reached{scopes: []scopeReached{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{}),
		scopeGot("staging", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{}),
	}}
	e = conclude(all, testRev, how{mode: engine.ModeSync})
	assert.Equal(t, vocab.StatusConverged, e.status)
	assert.Equal(t, vocab.VerificationConverged, e.verification, "verified converged only when every scope was")
}

// TestConclude_DriftInOneScopeIsExit2: plan --detailed-exit-code exits 2
// when any one scope drifts.
func TestConclude_DriftInOneScopeIsExit2(t *testing.T) {
	got := reached{scopes: []scopeReached{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 3}),
		scopeGot("staging", vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Update: 1}),
	}}
	e := conclude(got, testRev, how{mode: engine.ModePlan, detailed: true})
	assert.Equal(t, vocab.StatusDrift, e.status)
	assert.Equal(t, vocab.ExitDrift, e.exitCode())
	assert.Equal(t, vocab.StatusConverged, e.scopes[0].status)
}

// TestConclude_InterruptionSettlesEveryScope: when the run was cancelled,
// a scope that failed is interrupted (the cancellation is the cause), one
// that had reached converged, drift, conflict or invalid keeps it, and the
// run is interrupted with the cause's class.
func TestConclude_InterruptionSettlesEveryScope(t *testing.T) {
	got := reached{scopes: []scopeReached{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1}),
		scopeGot("staging", vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{}),
	}}
	e := conclude(got, testRev, how{mode: engine.ModeSync, cause: errRunTimeout})
	assert.Equal(t, vocab.StatusConverged, e.scopes[0].status)
	assert.Equal(t, vocab.StatusInterrupted, e.scopes[1].status)
	assert.Equal(t, vocab.StatusInterrupted, e.status)
	assert.Equal(t, vocab.ExitInterrupted, e.exitCode())
	require.NotEmpty(t, e.diags)
	assert.Equal(t, diag.InterruptedTimeout, e.diags[len(e.diags)-1].Class)

	e = conclude(got, testRev, how{mode: engine.ModeSync, cause: context.Canceled})
	assert.Equal(t, diag.InterruptedSignal, e.diags[len(e.diags)-1].Class)
}

// TestConclude_RunStoppedBeforeItsScopes: a run stopped as a whole (the
// configuration, the AWS set-up) has no sections; its status is the stop's.
func TestConclude_RunStoppedBeforeItsScopes(t *testing.T) {
	e := conclude(stopped(diag.Diagnostics{diag.New(diag.AWSConfig, diag.Subject{})}), "", how{mode: engine.ModeSync})
	assert.Nil(t, e.scopes)
	assert.Equal(t, vocab.StatusInvalid, e.status)
	assert.Equal(t, vocab.VerificationNotRun, e.verification)
	assert.Equal(t, vocab.ExitInvalid, e.exitCode())
}

// TestScopeOf: a diagnostic whose setting is scopes.<name>.<key> is that
// scope's; with one scope, anything but the run's own is that scope's;
// otherwise it is the run's.
func TestScopeOf(t *testing.T) {
	names := []string{"prod", "staging"}
	role := diag.New(diag.CredentialsAssumeRole, diag.Subject{Setting: "scopes.staging.role-arn", Origin: diag.OriginFile})
	assert.Equal(t, "staging", scopeOf(role, names))
	assert.Equal(t, "", scopeOf(diag.New(diag.CredentialsAssumeRole, diag.Subject{Setting: "scopes.gone.role-arn"}), names))
	assert.Equal(t, "", scopeOf(diag.New(diag.AWSConfig, diag.Subject{}), names), "several scopes: a run-wide problem is the run's")
	assert.Equal(t, "default", scopeOf(diag.New(diag.AWSConfig, diag.Subject{}), []string{"default"}))
	assert.Equal(t, "", scopeOf(diag.New(diag.InterruptedSignal, diag.Subject{}), []string{"default"}), "an interruption is the run's")
}
