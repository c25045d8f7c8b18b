package engine_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestProperty_SyncConvergesAndIsIdempotent: for random conflict-free
// worlds and any concurrency, sync converges, its counts are the plan's
// (plus one follow-up update per restore whose value differs), the
// emulator holds exactly the desired state, and a second sync changes
// nothing.
func TestProperty_SyncConvergesAndIsIdempotent(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		e := newEnv(t)
		bases := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c-config", "d", "e/f", "g"}), 1, 6, rapid.ID[string]).Draw(rt, "names")
		values := []string{`{"v":1}`, `{"v":2}`}
		var docs []doc
		followUps := 0
		for _, b := range bases {
			isDesired := rapid.Bool().Draw(rt, "desired-"+b)
			value := rapid.SampledFrom(values).Draw(rt, "value-"+b)
			stored := rapid.SampledFrom(values).Draw(rt, "stored-"+b)
			if isDesired {
				docs = append(docs, doc{b, value})
			}
			switch rapid.SampledFrom([]string{"absent", "string", "binary", "no-current", "deleted"}).Draw(rt, "world-"+b) {
			case "string":
				e.seedOwned(t, b, stored)
			case "binary":
				e.seed(t, nameOf(b), nil, []byte(stored), testScope.Tags(pathOf(b)))
			case "no-current":
				e.seed(t, nameOf(b), nil, nil, testScope.Tags(pathOf(b)))
			case "deleted":
				e.del(t, e.seed(t, nameOf(b), aws.String(stored), nil, testScope.Tags(pathOf(b))))
				if isDesired && stored != value {
					followUps++
				}
			}
		}
		if len(docs) == 0 {
			docs = append(docs, doc{"z", `{}`}) // keep clear of the empty-scope gate
		}
		st := state(docs...)
		conc := rapid.IntRange(1, 8).Draw(rt, "concurrency")
		pr := e.plan(t, conc, st)
		planned := pr.Counts
		res := e.sync(t, conc, st)
		want := planned
		want.Update += followUps
		if res.Status != vocab.StatusConverged || res.Verification != vocab.VerificationConverged || res.Counts != want {
			rt.Fatalf("sync = %+v, want converged with %+v", res, want)
		}
		// The plan data of both runs builds a valid plan view whose summary
		// is the run's counts (sync: the applied plan plus its follow-ups).
		for _, c := range []struct {
			r    engine.Result
			want vocab.Counts
		}{{pr, planned}, {res, want}} {
			for _, show := range []bool{false, true} {
				v := planview.Build(planview.Input{GitRevision: st.Commit, Scopes: []planview.ScopeInput{{Name: model.DefaultScopeName,
					Status: c.r.Status, Verification: c.r.Verification, Operations: c.r.Plan}}}, model.Redaction{ShowNames: show})
				if err := v.Validate(); err != nil || v.Counts() != c.want {
					rt.Fatalf("plan view: %v, counts %+v, want %+v", err, v.Counts(), c.want)
				}
			}
		}
		for _, s := range st.Secrets {
			got := e.secret(t, s.Name)
			if current(got) != string(s.Value) || got.DeletedDate != nil {
				rt.Fatalf("%s: %q deleted=%v", s.Name, current(got), got.DeletedDate != nil)
			}
		}
		before := e.calls(t)
		again := e.run(t, e.cfg(engine.ModeSync, conc), st)
		if again.Status != vocab.StatusConverged || again.Counts.Operations() != 0 || mutations(before, e.calls(t)) != 0 {
			rt.Fatalf("second sync = %+v (%d mutations)", again, mutations(before, e.calls(t)))
		}
	})
}
