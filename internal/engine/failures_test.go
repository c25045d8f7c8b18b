package engine_test

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Issue 30 item 4: a failure says what failed (real SDK, emulator).

// TestRegression_HaltedScopeNamesTheScopeThatFailed: the first scope's
// create is denied: its Result holds one failure record (apply:failed,
// the create, AccessDeniedException, the IAM actions a create needs); the
// halted scope's apply:halted says which scope failed. Before, the failed
// scope had no record at all and the halted one named no scope.
func TestRegression_HaltedScopeNamesTheScopeThatFailed(t *testing.T) {
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{Denied: []string{"secretsmanager:CreateSecret"}})
	defs := []scopeDef{
		{"staging", "a", []doc{{"x", `{"a":1}`}}},
		{"prod", "a", []doc{{"x", `{"c":3}`}}},
	}
	got := e.runScopes(t, engine.ModeSync, 1, defs...)
	wantResult(t, got[0], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{})
	want := []planview.Failure{{Ordinal: 1, Name: defs[0].secretName("x"), Class: diag.ApplyFailed, Action: vocab.ActionCreate,
		Reason: vocab.ReasonAbsent, ErrorCode: "AccessDeniedException", IAMActions: []string{"secretsmanager:CreateSecret", "secretsmanager:TagResource"}}}
	if !equalFailures(got[0].Failures, want) {
		t.Errorf("failed scope's records = %+v, want %+v", got[0].Failures, want)
	}
	ds := got[1].Diagnostics
	if len(ds) != 1 || ds[0].Class != diag.ApplyHalted || !strings.HasPrefix(ds[0].Summary, "halted: scope staging failed") {
		t.Errorf("halted scope's diagnostics = %+v, want apply:halted naming scope staging", ds)
	}
	if len(got[1].Failures) != 0 {
		t.Errorf("the halted scope failed nothing itself: %+v", got[1].Failures)
	}
	if !strings.Contains(e.logs.String(), `"iam_actions":"secretsmanager:CreateSecret,secretsmanager:TagResource"`) {
		t.Errorf("the failed call's record names no IAM action:\n%s", e.logs)
	}
}

func equalFailures(a, b []planview.Failure) bool {
	return slices.EqualFunc(a, b, func(x, y planview.Failure) bool {
		return x.Ordinal == y.Ordinal && x.Name == y.Name && x.Class == y.Class && x.Action == y.Action && x.Reason == y.Reason &&
			slices.Equal(x.Metadata, y.Metadata) && x.ErrorCode == y.ErrorCode && slices.Equal(x.IAMActions, y.IAMActions)
	})
}

// TestRegression_VerificationTimeoutNamesEachResourceStillDiffering:
// another writer keeps changing the value this run wrote, so verification
// ends failed at its timeout: one record per resource still differing
// (verify:not-converged) with what differs (an update, value differs). On
// propagation lag it ends inconclusive with the same record. Before, the
// run named no resource.
func TestRegression_VerificationTimeoutNamesEachResourceStillDiffering(t *testing.T) {
	wantDiffers := func(t *testing.T, res engine.Result) {
		t.Helper()
		want := []planview.Failure{{Ordinal: 1, Name: nameOf("a"), Class: diag.VerifyNotConverged, Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers}}
		// Each verification round that times out records what its last
		// observation showed, once.
		if !equalFailures(res.Failures, want) {
			t.Errorf("failure records = %+v, want %+v", res.Failures, want)
		}
	}
	t.Run("another writer", func(t *testing.T) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		e.seedOwned(t, "b", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`}, doc{"b", `{"v":0}`})
		var afterPut atomic.Bool
		var writes atomic.Int64
		h := &hookPort{Port: &putSpy{Port: e.port, after: func() { afterPut.Store(true) }}, beforeDesc: func(n int, id string) {
			if afterPut.Load() && strings.Contains(id, nameOf("a")) {
				e.put(t, id, fmt.Sprintf(`{"v":"writer-%d"}`, writes.Add(1)))
			}
		}}
		cfg := e.cfg(engine.ModeSync, 1)
		cfg.VerificationTimeout = 200 * time.Millisecond
		res := e.runPort(t, cfg, st, h)
		wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Update: 1, Unchanged: 1})
		wantDiffers(t, res)
		if !strings.Contains(e.logs.String(), `"error_class":"verify:not-converged"`) {
			t.Errorf("no record names the resource:\n%s", e.logs)
		}
	})
	t.Run("lag", func(t *testing.T) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`})
		p := &stalePort{Port: e.port, desc: map[string]plan.ObservedSecret{}, values: map[string]plan.CurrentValue{}, frozen: map[string]bool{}}
		cfg := e.cfg(engine.ModeSync, 1)
		cfg.VerificationTimeout = 150 * time.Millisecond
		res := e.runPort(t, cfg, st, p)
		wantResult(t, res, vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, vocab.Counts{Update: 1})
		wantDiffers(t, res)
		if hasDiag(res, diag.VerifyReplicaInProgress) {
			t.Errorf("a lagging value with no replica reads as a replica in progress: %+v", res.Diagnostics)
		}
	})
}

// TestRegression_UnappliedScopeSaysWhichScopeBlockedIt: scope two holds a
// conflict, so nothing is applied anywhere; scopes one and three, whose
// creates waited, stay drift and say why with warning:not-applied naming
// scope two (before, they listed their plan with no reason). The blocked
// scope itself gets no such warning; plan mode, which applies nothing
// anyway, none either.
func TestRegression_UnappliedScopeSaysWhichScopeBlockedIt(t *testing.T) {
	e := newEnv(t)
	defs := []scopeDef{
		{"one", "a", []doc{{"x", `{"a":1}`}}},
		{"two", "b", []doc{{"x", `{"c":3}`}}},
		{"three", "b", []doc{{"z", `{"d":4}`}}},
	}
	e.seed(t, defs[1].secretName("x"), aws.String(`{"foreign":true}`), nil, nil)
	got := e.runScopes(t, engine.ModeSync, 2, defs...)
	for _, i := range []int{0, 2} {
		wantResult(t, got[i], vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{})
		ds := got[i].Diagnostics
		if len(ds) != 1 || ds[0].Class != diag.WarningNotApplied || !strings.HasPrefix(ds[0].Summary, "not applied: scope two was blocked at planning") {
			t.Errorf("scope %s's diagnostics = %+v, want warning:not-applied naming scope two", defs[i].name, ds)
		}
	}
	if slices.ContainsFunc(got[1].Diagnostics, func(d diag.Diagnostic) bool { return d.Class == diag.WarningNotApplied }) {
		t.Errorf("the blocked scope warns about itself: %+v", got[1].Diagnostics)
	}
	for _, r := range e.runScopes(t, engine.ModePlan, 2, defs...) {
		if slices.ContainsFunc(r.Diagnostics, func(d diag.Diagnostic) bool { return d.Class == diag.WarningNotApplied }) {
			t.Errorf("plan mode warns: %+v", r.Diagnostics)
		}
	}
}
