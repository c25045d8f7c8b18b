package command

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func scopeGot(name string, s vocab.Status, v vocab.Verification, c vocab.Counts, ds ...diag.Diagnostic) run.ScopeOutcome {
	return run.ScopeOutcome{Name: name, Region: "eu-west-1", Result: engine.Result{Status: s, Verification: v, Counts: c, Diagnostics: ds}}
}

// TestConclude_SeveralScopesMostSevereAndSummed: a run of several scopes
// ends with one section per scope (each its own status, verification,
// counts and diagnostics) and, for report v1, the most severe status and
// verification and the summed counts (SPEC §10).
func TestConclude_SeveralScopesMostSevereAndSummed(t *testing.T) {
	halted := diag.New(diag.ApplyHalted, diag.Subject{})
	got := run.Outcome{Revision: testRev, Scopes: []run.ScopeOutcome{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2, Unchanged: 1}),
		scopeGot("staging", vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Update: 1}),
		scopeGot("dev", vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Unchanged: 4}, halted),
	}}
	e := conclude(got, how{})
	assert.Equal(t, vocab.StatusApplyFailed, e.status)
	assert.Equal(t, vocab.VerificationNotRun, e.verification)
	assert.Equal(t, vocab.Counts{Create: 2, Update: 1, Unchanged: 5}, e.counts)
	assert.Equal(t, vocab.ExitApply, e.exitCode())
	require.Len(t, e.scopes, 3)
	assert.Equal(t, []string{"prod", "staging", "dev"}, []string{e.scopes[0].Name, e.scopes[1].Name, e.scopes[2].Name})
	assert.Equal(t, vocab.VerificationConverged, e.scopes[0].Verification)
	assert.Equal(t, diag.Diagnostics{halted}, e.scopes[2].Diagnostics)
	assert.Empty(t, e.diags, "a scope's diagnostics stay in its section")

	all := run.Outcome{Revision: testRev, Scopes: []run.ScopeOutcome{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{}),
		scopeGot("staging", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{}),
	}}
	e = conclude(all, how{})
	assert.Equal(t, vocab.StatusConverged, e.status)
	assert.Equal(t, vocab.VerificationConverged, e.verification, "verified converged only when every scope was")
}

// TestConclude_DriftInOneScopeIsExit2: plan --detailed-exit-code exits 2
// when any one scope drifts.
func TestConclude_DriftInOneScopeIsExit2(t *testing.T) {
	got := run.Outcome{Revision: testRev, Scopes: []run.ScopeOutcome{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 3}),
		scopeGot("staging", vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Update: 1}),
	}}
	e := conclude(got, how{detailed: true})
	assert.Equal(t, vocab.StatusDrift, e.status)
	assert.Equal(t, vocab.ExitDrift, e.exitCode())
	assert.Equal(t, vocab.StatusConverged, e.scopes[0].Status)
}

// TestConclude_InterruptionSettlesEveryScope: when the run was cancelled,
// a scope that failed is interrupted (the cancellation is the cause), one
// that had reached converged, drift, conflict or invalid keeps it, and the
// run is interrupted with the cause's class.
func TestConclude_InterruptionSettlesEveryScope(t *testing.T) {
	got := run.Outcome{Revision: testRev, Scopes: []run.ScopeOutcome{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1}),
		scopeGot("staging", vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{}),
	}}
	e := conclude(got, how{cause: errRunTimeout})
	assert.Equal(t, vocab.StatusConverged, e.scopes[0].Status)
	assert.Equal(t, vocab.StatusInterrupted, e.scopes[1].Status)
	assert.Equal(t, vocab.StatusInterrupted, e.status)
	assert.Equal(t, vocab.ExitInterrupted, e.exitCode())
	require.NotEmpty(t, e.diags)
	assert.Equal(t, diag.InterruptedTimeout, e.diags[len(e.diags)-1].Class)

	e = conclude(got, how{cause: context.Canceled})
	assert.Equal(t, diag.InterruptedSignal, e.diags[len(e.diags)-1].Class)
}

// TestConclude_RunStoppedBeforeItsScopes: a run stopped as a whole (the
// configuration, the AWS set-up) has no sections; its status is the stop's.
func TestConclude_RunStoppedBeforeItsScopes(t *testing.T) {
	e := conclude(run.Stopped(diag.Diagnostics{diag.New(diag.AWSConfig, diag.Subject{})}), how{})
	assert.Nil(t, e.scopes)
	assert.Equal(t, vocab.StatusInvalid, e.status)
	assert.Equal(t, vocab.VerificationNotRun, e.verification)
	assert.Equal(t, vocab.ExitInvalid, e.exitCode())
}

// TestStatusesMapToExitCodes: each status a scope of a sync ends with is
// the run's exit code and the report's status; a run's outcome is never a
// stderr line (the log records carry it).
func TestStatusesMapToExitCodes(t *testing.T) {
	for status, code := range map[vocab.Status]int{
		vocab.StatusConflict: 4, vocab.StatusApplyFailed: 5, vocab.StatusObservationFailed: 5,
		vocab.StatusVerificationFailed: 6, vocab.StatusVerificationInconclusive: 6, vocab.StatusInvalid: 3,
	} {
		p := filepath.Join(t.TempDir(), "r.json")
		outs := newOutputs("v9.9.9", p, "", false, slog.New(slog.DiscardHandler), nil)
		require.Empty(t, outs.probe())
		got := run.Outcome{Revision: testRev, Scopes: []run.ScopeOutcome{{Name: "default", Result: engine.Result{Status: status, Verification: vocab.VerificationNotRun}}}}
		err := outs.write(conclude(got, how{}))
		assert.Equal(t, code, exitcode.For(err), status)
		rep, perr := report.Parse(mustRead(t, p))
		require.NoError(t, perr)
		assert.Equal(t, status, rep.Status)
		assert.Empty(t, exitcode.Lines(err), "run outcomes are not stderr diagnostics")
	}
}

// TestReportScopes_OneLinePerScope: the report written for a run of
// several scopes lists each scope's name, Region, own status,
// verification and counts (adoptions as update) in configuration order,
// beside the run's most severe status and summed counts; a run
// stopped before its scopes ran lists the configured scopes with the run's
// outcome; a run whose configuration was never resolved has no scopes key.
func TestReportScopes_OneLinePerScope(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.json")
	outs := newOutputs("v9.9.9", p, "", false, slog.New(slog.DiscardHandler), nil)
	require.Empty(t, outs.probe())
	got := run.Outcome{Revision: testRev, Scopes: []run.ScopeOutcome{
		scopeGot("prod", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2, Adopt: 1}),
		scopeGot("staging", vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Unchanged: 4}),
	}}
	_ = outs.write(conclude(got, how{}))
	rep, err := report.Parse(mustRead(t, p))
	require.NoError(t, err)
	assert.Equal(t, vocab.StatusApplyFailed, rep.Status)
	assert.Equal(t, vocab.Counts{Create: 2, Update: 1, Unchanged: 4}, rep.Counts)
	assert.Equal(t, []report.Scope{
		{Name: "prod", Region: "eu-west-1", Status: vocab.StatusConverged, Verification: vocab.VerificationConverged, Counts: vocab.Counts{Create: 2, Update: 1}},
		{Name: "staging", Region: "eu-west-1", Status: vocab.StatusApplyFailed, Verification: vocab.VerificationNotRun, Counts: vocab.Counts{Unchanged: 4}},
	}, rep.Scopes)

	outs = newOutputs("v9.9.9", p, "", false, slog.New(slog.DiscardHandler), nil)
	outs.scopes = []config.Scope{{Name: "prod", AWS: config.AWS{Region: "us-east-1"}}, {Name: "dev"}}
	require.Empty(t, outs.probe())
	_ = outs.write(conclude(run.Stopped(diag.Diagnostics{diag.New(diag.AWSConfig, diag.Subject{})}), how{}))
	rep, err = report.Parse(mustRead(t, p))
	require.NoError(t, err)
	assert.Equal(t, []report.Scope{
		{Name: "prod", Region: "us-east-1", Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun},
		{Name: "dev", Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun},
	}, rep.Scopes)

	outs = newOutputs("v9.9.9", p, "", false, nil, nil)
	require.Empty(t, outs.probe())
	_ = outs.write(conclude(run.Stopped(diag.Diagnostics{diag.New(diag.ConfigUnknownKey, diag.Subject{})}), how{}))
	assert.NotContains(t, string(mustRead(t, p)), "scopes")
}
