package engine_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestDecisionRows covers every row of SPEC §5 in one scope: plan reports
// them without a single mutating call; sync applies them in phase order and
// verifies; the next plan is empty.
func TestDecisionRows(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "equal", `{"v":1}`)                                                    // unchanged
		e.seedOwned(t, "differs", `{"v":"old"}`)                                              // update: value differs
		e.seed(t, nameOf("binary"), nil, []byte(`{"v":1}`), testScope.Tags(pathOf("binary"))) // update: stored binary
		e.seed(t, nameOf("nocurrent"), nil, nil, testScope.Tags(pathOf("nocurrent")))         // update: no current
		e.del(t, e.seedOwned(t, "restored", `{"v":"before"}`))                                // restore + follow-up update
		e.del(t, e.seedOwned(t, "restored-same", `{"v":1}`))                                  // restore only
		e.seedOwned(t, "gone", `{"v":1}`)                                                     // schedule-delete
		e.del(t, e.seedOwned(t, "already-gone", `{"v":1}`))                                   // not desired, scheduled: unchanged
		e.seed(t, "other/foreign", aws.String(`{"x":1}`), nil, nil)                           // foreign, not desired: untouched
		st := state(doc{"new", `{"v":1}`}, doc{"equal", `{"v":1}`}, doc{"differs", `{"v":1}`}, doc{"binary", `{"v":1}`},
			doc{"nocurrent", `{"v":1}`}, doc{"restored", `{"v":1}`}, doc{"restored-same", `{"v":1}`})

		before := e.calls(t)
		res := e.plan(t, conc, st)
		wantResult(t, res, vocab.StatusDrift, vocab.VerificationNotRun,
			vocab.Counts{Create: 1, Update: 3, Restore: 2, ScheduleDelete: 1, Unchanged: 2})
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("plan made %d mutating calls", n)
		}

		before = e.calls(t)
		res = e.sync(t, conc, st)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{Create: 1, Update: 4, Restore: 2, ScheduleDelete: 1, Unchanged: 2})
		after := e.calls(t)
		for op, want := range map[string]int64{"CreateSecret": 1, "PutSecretValue": 4, "RestoreSecret": 2, "DeleteSecret": 1,
			"UpdateSecret": 0, "TagResource": 0, "UntagResource": 0} {
			if got := after[op] - before[op]; got != want {
				t.Errorf("%s calls = %d, want %d", op, got, want)
			}
		}
		for _, s := range st.Secrets {
			got := e.secret(t, s.Name)
			if current(got) != string(s.Value) || got.DeletedDate != nil {
				t.Errorf("%s: current %q deleted %v, want %q active", s.Name, current(got), got.DeletedDate, s.Value)
			}
		}
		if e.secret(t, nameOf("gone")).DeletedDate == nil {
			t.Error("gone must be scheduled for deletion")
		}
		if f := e.secret(t, "other/foreign"); len(f.Versions) != 1 || f.DeletedDate != nil {
			t.Error("a foreign secret must never be touched")
		}
		if len(e.secret(t, nameOf("restored-same")).Versions) != 1 {
			t.Error("a restore whose value already matches needs no follow-up update")
		}

		before = e.calls(t)
		res = e.sync(t, conc, st)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 9})
		after = e.calls(t)
		if n := mutations(before, after); n != 0 {
			t.Fatalf("a converged re-run made %d mutating calls", n)
		}
		// Every call counts: the adapter sends no SDK retry of an answered
		// call (awssm bodyGuard), so a second ListSecrets is a second pass.
		if n := after["ListSecrets"] - before["ListSecrets"]; n != 1 {
			t.Fatalf("a run with no operations must not run a verification pass: ListSecrets %d for 1 (SDK retries in all %v)", n, e.srv.Stats(t).Retries)
		}
	})
}
