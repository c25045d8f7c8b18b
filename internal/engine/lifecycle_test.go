package engine_test

import (
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestTutorialLifecycle walks the tutorial: create 2 → re-run no-op → a
// value edited out of band is repaired → a file removed is scheduled for
// deletion → the file re-added (edited) is restored and updated, with the
// exact counts and AWS calls at each step.
func TestTutorialLifecycle(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		both := state(doc{"api", `{"key":"a1"}`}, doc{"db", `{"password":"p1"}`})

		before := e.calls(t)
		wantResult(t, e.sync(t, conc, both), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
		wantCalls(t, e, before, map[string]int64{"CreateSecret": 2})

		before = e.calls(t)
		wantResult(t, e.sync(t, conc, both), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
		wantCalls(t, e, before, map[string]int64{})

		e.put(t, nameOf("db"), `{"password":"edited-in-console"}`)
		wantResult(t, e.plan(t, conc, both), vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Update: 1, Unchanged: 1})
		before = e.calls(t)
		wantResult(t, e.sync(t, conc, both), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1, Unchanged: 1})
		wantCalls(t, e, before, map[string]int64{"PutSecretValue": 1})
		if got := current(e.secret(t, nameOf("db"))); got != `{"password":"p1"}` {
			t.Fatalf("db not repaired: %q", got)
		}

		apiOnly := state(doc{"api", `{"key":"a1"}`})
		before = e.calls(t)
		wantResult(t, e.sync(t, conc, apiOnly), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{ScheduleDelete: 1, Unchanged: 1})
		wantCalls(t, e, before, map[string]int64{"DeleteSecret": 1})
		if e.secret(t, nameOf("db")).DeletedDate == nil {
			t.Fatal("db must be scheduled for deletion")
		}
		wantResult(t, e.sync(t, conc, apiOnly), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})

		readded := state(doc{"api", `{"key":"a1"}`}, doc{"db", `{"password":"p2"}`})
		wantResult(t, e.plan(t, conc, readded), vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Restore: 1, Unchanged: 1})
		before = e.calls(t)
		wantResult(t, e.sync(t, conc, readded), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Restore: 1, Update: 1, Unchanged: 1})
		wantCalls(t, e, before, map[string]int64{"RestoreSecret": 1, "PutSecretValue": 1})
		db := e.secret(t, nameOf("db"))
		if db.DeletedDate != nil || current(db) != `{"password":"p2"}` {
			t.Fatalf("db after re-add: deleted %v current %q", db.DeletedDate, current(db))
		}
		wantResult(t, e.sync(t, conc, readded), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
	})
}

// wantCalls checks the mutating calls made since before, exactly.
func wantCalls(t *testing.T, e *env, before map[string]int64, want map[string]int64) {
	t.Helper()
	after := e.calls(t)
	for _, op := range mutatingOps {
		if got := after[op] - before[op]; got != want[op] {
			t.Errorf("%s calls = %d, want %d", op, got, want[op])
		}
	}
}
