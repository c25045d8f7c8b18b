package engine_test

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// outcome is one way a sync ends with a non-zero exit after it met AWS
// (exit 4, 5 or 6), and the failure record the plan file must hold so
// that its readers (show, the job summary, the pull-request comment) can
// say which secret to look at.
type outcome struct {
	name   string
	status vocab.Status
	// class is the failure record's class; resource: the record names a
	// secret (else the scope as a whole).
	class    string
	resource bool
	// run reaches the outcome: real SDK client, emulator faults and
	// conditions, the engine's clock for every timeout.
	run func(t *testing.T, e *env) engine.Result
}

// stepped sets cfg's verification to pass on the engine's step clock (one
// poll interval a round), never on the wall clock: a loaded machine
// cannot change the outcome.
func stepped(cfg engine.Config) engine.Config {
	cfg.Clock = &stepClock{now: time.Unix(1_700_000_000, 0)}
	cfg.PollInterval, cfg.VerificationTimeout = 250*time.Millisecond, 2*time.Second
	return cfg
}

// afterWrite runs f once, before the first Describe that follows the
// run's first PutSecretValue: a change another actor makes after the
// write, seen by verification.
func afterWrite(e *env, f func(id string)) engine.Port {
	var put atomic.Bool
	var once sync.Once
	return &hookPort{Port: &putSpy{Port: e.port, after: func() { put.Store(true) }}, beforeDesc: func(_ int, id string) {
		if put.Load() {
			once.Do(func() { f(id) })
		}
	}}
}

// outcomes is the table of the property: every status whose exit is 4, 5
// or 6 appears (TestEveryOutcomeHasAFailureRecord checks it), each cause
// of verification-failed and -inconclusive the engine knows once.
var outcomes = []outcome{
	{"create denied", vocab.StatusApplyFailed, diag.ApplyFailed, true, func(t *testing.T, e *env) engine.Result {
		e.srv.SetFaults(t, emulator.Faults{Denied: []string{"secretsmanager:CreateSecret"}})
		return e.sync(t, 1, state(doc{"a", `{"v":1}`}))
	}},
	{"listing denied", vocab.StatusObservationFailed, diag.ObserveFailed, false, func(t *testing.T, e *env) engine.Result {
		e.srv.SetFaults(t, emulator.Faults{Denied: []string{"secretsmanager:ListSecrets"}})
		return e.sync(t, 1, state(doc{"a", `{"v":1}`}))
	}},
	{"rotation turned on before the write", vocab.StatusConflict, diag.ConflictLate, true, func(t *testing.T, e *env) engine.Result {
		e.seedOwned(t, "a", `{"v":0}`)
		on := true
		var once sync.Once
		h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
			if n == 2 { // the precondition
				once.Do(func() { e.srv.SetConditions(t, emulator.Conditions{Name: id, RotationEnabled: &on}) })
			}
		}}
		return e.runPort(t, e.cfg(engine.ModeSync, 1), state(doc{"a", `{"v":1}`}), h)
	}},
	{"replica added by someone after the write", vocab.StatusVerificationFailed, diag.VerifyConflict, true, func(t *testing.T, e *env) engine.Result {
		e.seedOwned(t, "a", `{"v":0}`)
		p := afterWrite(e, func(id string) {
			e.srv.SetConditions(t, emulator.Conditions{Name: id, ReplicaRegions: []string{"eu-west-1"}})
		})
		return e.runPort(t, e.cfg(engine.ModeSync, 1), state(doc{"a", `{"v":1}`}), p)
	}},
	{"another writer keeps the value", vocab.StatusVerificationFailed, diag.VerifyNotConverged, true, func(t *testing.T, e *env) engine.Result {
		e.seedOwned(t, "a", `{"v":0}`)
		p := afterWrite(e, func(id string) { e.put(t, id, `{"v":"writer"}`) })
		return e.runPort(t, stepped(e.cfg(engine.ModeSync, 1)), state(doc{"a", `{"v":1}`}), p)
	}},
	{"replica Failed", vocab.StatusVerificationFailed, diag.VerifyReplicaFailed, true, func(t *testing.T, e *env) engine.Result {
		e.srv.SetFaults(t, emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "us-west-2"}}})
		return e.run(t, e.replicaCfg(engine.ModeSync, 1, twoReplicas), state(doc{"a", `{"v":1}`}))
	}},
	{"replica InProgress at the timeout", vocab.StatusVerificationInconclusive, diag.VerifyReplicaInProgress, true, func(t *testing.T, e *env) engine.Result {
		e.srv.SetFaults(t, emulator.Faults{ReplicationLagMS: 3_600_000})
		return e.run(t, stepped(e.replicaCfg(engine.ModeSync, 1, twoReplicas)), state(doc{"a", `{"v":1}`}))
	}},
	{"verification cannot read", vocab.StatusVerificationInconclusive, diag.VerifyUnobserved, false, func(t *testing.T, e *env) engine.Result {
		e.seedOwned(t, "a", `{"v":0}`)
		p := afterWrite(e, func(string) {
			e.srv.SetFaults(t, emulator.Faults{Denied: []string{"secretsmanager:ListSecrets", "secretsmanager:DescribeSecret"}})
		})
		return e.runPort(t, stepped(e.cfg(engine.ModeSync, 1)), state(doc{"a", `{"v":1}`}), p)
	}},
}

// TestEveryOutcomeHasAFailureRecord: the property behind
// TestRegression_VerificationConflictLeftNoFailureRecord. For every row of
// outcomes the sync ends with its status, its Result (the plan file's
// scope) holds a failure record of the row's class (naming the secret when
// the row says so), and the plan file built from it passes the file's own
// check. The table covers every status whose exit is 4, 5 or 6.
func TestEveryOutcomeHasAFailureRecord(t *testing.T) {
	covered := map[vocab.Status]bool{}
	for _, o := range outcomes {
		covered[o.status] = true
		t.Run(o.name, func(t *testing.T) {
			e := newEnv(t)
			res := o.run(t, e)
			if res.Status != o.status {
				t.Fatalf("status %s, want %s (failures %+v, diagnostics %+v)", res.Status, o.status, res.Failures, res.Diagnostics)
			}
			if !slices.ContainsFunc(res.Failures, func(f planview.Failure) bool {
				return f.Class == o.class && (f.Name != "") == o.resource
			}) {
				t.Errorf("failure records %+v, want one of class %s (naming a secret: %v)", res.Failures, o.class, o.resource)
			}
			v := planview.Build(planview.Input{Command: planview.CommandSync, Scopes: []planview.ScopeInput{{
				Name: "default", Region: "us-east-1", Status: res.Status, Verification: res.Verification,
				Operations: res.Plan, Diagnostics: res.Diagnostics, Failures: res.Failures,
			}}}, model.Redaction{})
			if err := v.Validate(); err != nil {
				t.Fatalf("the plan file of the outcome is refused by its own check: %v", err)
			}
			if out := planview.Text(v); !strings.Contains(out, "Failed (") || !strings.Contains(out, o.class) {
				t.Errorf("the rendering does not list the failure record:\n%s", out)
			}
		})
	}
	for _, s := range vocab.Statuses {
		if s == vocab.StatusUnreachable {
			// Never the engine's: the run gives it to a scope it skipped
			// before the engine (run.skippable; SPEC §17), with its
			// credentials:scope-unreachable diagnostic
			// (test/e2e/unreachable_test.go).
			continue
		}
		if c := vocab.ExitCode(s, false); (c == vocab.ExitConflict || c == vocab.ExitApply || c == vocab.ExitVerify) && !covered[s] {
			t.Errorf("status %s (exit %d) has no row in outcomes", s, c)
		}
	}
}

// TestRegression_VerificationConflictLeftNoFailureRecord: a conflict met
// during verification (a replica added by someone after the write) ended
// the run verification-failed (exit 6) with the plan file's failures
// empty, so the Action's summary could not say which secret to look at.
// The record names the secret, class verify:conflict, and carries the
// conflict class as its reason.
func TestRegression_VerificationConflictLeftNoFailureRecord(t *testing.T) {
	e := newEnv(t)
	e.seedOwned(t, "a", `{"v":0}`)
	p := afterWrite(e, func(id string) {
		e.srv.SetConditions(t, emulator.Conditions{Name: id, ReplicaRegions: []string{"eu-west-1"}})
	})
	res := e.runPort(t, e.cfg(engine.ModeSync, 1), state(doc{"a", `{"v":1}`}), p)
	wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Update: 1, Conflicts: 1})
	want := []planview.Failure{{Ordinal: 1, Name: nameOf("a"), Class: diag.VerifyConflict, Action: vocab.ActionConflict,
		Reason: vocab.ConflictReplication.Reason()}}
	if !equalFailures(res.Failures, want) {
		t.Errorf("failure records = %+v, want %+v", res.Failures, want)
	}
}
