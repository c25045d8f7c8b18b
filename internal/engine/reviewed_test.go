package engine_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// reviewer is a reviewed plan that answers with fixed differences and
// remembers the status it was shown.
type reviewer struct {
	differences diag.Diagnostics
	shown       []vocab.Status
}

// reviewedAt is the commit every test reviewer was reviewed at.
const reviewedAt = "0123456789abcdef0123456789abcdef01234567"

func (r *reviewer) Commit() string { return reviewedAt }

func (r *reviewer) Skipped() []string { return nil }

func (r *reviewer) Review(planned engine.Result) diag.Diagnostics {
	r.shown = append(r.shown, planned.Status)
	return r.differences
}

// runReviewed runs defs as one sync, scope i reviewed by reviews[i] (nil:
// no reviewed plan).
func (e *env) runReviewed(t *testing.T, reviews []*reviewer, defs ...scopeDef) []engine.Result {
	t.Helper()
	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var runs []engine.ScopeRun
	for i, d := range defs {
		cfg := e.cfg(engine.ModeSync, 2)
		cfg.Scope = d.name
		run := engine.ScopeRun{Bucket: d.bucket, Config: cfg, Arrival: model.Arrived(d.state()),
			Port: newAdapter(e.client), Log: log.With(slog.String(vocab.FieldScope, d.name))}
		if reviews[i] != nil {
			run.Reviewed = reviews[i]
		}
		runs = append(runs, run)
	}
	return engine.RunScopes(context.Background(), runs, 0, log)
}

// A scope whose plan differs from its reviewed plan ends invalid with the
// differences (plan:stale), and nothing is applied in any scope: the other
// scope, whose create waited, stays drift and says which scope stopped it
// (SPEC §14, §10). A reviewed plan with no difference lets every scope
// apply, and it is shown the scope as planned (drift), before any write.
func TestRunScopes_StaleReviewedPlanStopsEveryScope(t *testing.T) {
	defs := []scopeDef{
		{"one", "a", []doc{{"x", `{"a":1}`}}},
		{"two", "b", []doc{{"x", `{"c":3}`}}},
	}
	t.Run("stale", func(t *testing.T) {
		e := newEnv(t)
		stale := &reviewer{differences: diag.Diagnostics{diag.New(diag.PlanStale, diag.Subject{}).WithSummary("the plan differs from the reviewed plan")}}
		got := e.runReviewed(t, []*reviewer{nil, stale}, defs...)
		if got[1].Status != vocab.StatusInvalid || !slices.ContainsFunc(got[1].Diagnostics, func(d diag.Diagnostic) bool { return d.Class == diag.PlanStale }) {
			t.Errorf("the stale scope: status %s, diagnostics %+v; want invalid with plan:stale", got[1].Status, got[1].Diagnostics)
		}
		wantResult(t, got[0], vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{})
		if ds := got[0].Diagnostics; len(ds) != 1 || ds[0].Class != diag.WarningNotApplied || !strings.HasPrefix(ds[0].Summary, "not applied: scope two") {
			t.Errorf("the waiting scope's diagnostics = %+v, want warning:not-applied naming scope two", ds)
		}
		for _, d := range defs {
			if n := e.writesUnder(t, d.scope().Prefix); n != 0 {
				t.Errorf("scope %s: %d versions written, want none", d.name, n)
			}
		}
		if !slices.Equal(stale.shown, []vocab.Status{vocab.StatusDrift}) {
			t.Errorf("the reviewed plan was shown %v, want the planned scope once (drift)", stale.shown)
		}
		if strings.Contains(e.logs.String(), "applying the reviewed plan") {
			t.Errorf("a stale reviewed plan was logged as applied:\n%s", e.logs)
		}
	})
	t.Run("the same", func(t *testing.T) {
		e := newEnv(t)
		same := &reviewer{}
		got := e.runReviewed(t, []*reviewer{nil, same}, defs...)
		for i := range defs {
			wantResult(t, got[i], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
		}
		if !slices.Equal(same.shown, []vocab.Status{vocab.StatusDrift}) {
			t.Errorf("the reviewed plan was shown %v, want the planned scope once (drift)", same.shown)
		}
		// Issue 44 §4: a reviewed plan that matched is said to be applied,
		// once for the run, before the writes, with its operations and its
		// commit (only scope two was reviewed: its one create).
		logs := e.logs.String()
		want := `"msg":"applying the reviewed plan (1 operation, reviewed at commit ` + reviewedAt + `)","phase":"apply","count":1`
		if strings.Count(logs, "applying the reviewed plan") != 1 || !strings.Contains(logs, want) {
			t.Errorf("logs hold no single %s:\n%s", want, logs)
		} else if strings.Index(logs, want) > strings.Index(logs, `"msg":"operation applied"`) {
			t.Errorf("the reviewed plan was said applied after a write:\n%s", logs)
		}
	})
}
