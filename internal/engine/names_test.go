package engine_test

import (
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestARNSuffixLikeNames: names ending in "-" and six characters look like
// partial ARNs to AWS; next to a secret named like their stem they must
// still converge and stay converged (SPEC §3.4).
func TestARNSuffixLikeNames(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "db", `{"v":0}`)
		st := state(doc{"db", `{"v":1}`}, doc{"db-config", `{"v":2}`}, doc{"db-backup", `{"v":3}`})
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2, Update: 1})
		for _, s := range st.Secrets {
			if got := current(e.secret(t, s.Name)); got != string(s.Value) {
				t.Fatalf("%s = %q", s.Name, got)
			}
		}
		before := e.calls(t)
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 3})
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%d mutating calls on a converged scope", n)
		}
		wantResult(t, e.sync(t, conc, state(doc{"db-config", `{"v":2}`})), vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{ScheduleDelete: 2, Unchanged: 1})
		if e.secret(t, nameOf("db-config")).DeletedDate != nil {
			t.Fatal("deleting app/db and app/db-backup must not touch app/db-config")
		}
	})
}
