package engine_test

import (
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestEmptyScopeGate: an empty desired set never deletes the scope unless
// --allow-empty authorizes it.
func TestEmptyScopeGate(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{}`)
		empty := state()
		before := e.calls(t)
		wantResult(t, e.plan(t, conc, empty), vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{ScheduleDelete: 1})
		wantResult(t, e.sync(t, conc, empty), vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{})
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%d mutating calls behind the gate", n)
		}
		cfg := e.cfg(engine.ModeSync, conc)
		cfg.AllowEmpty = true
		wantResult(t, e.run(t, cfg, empty), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{ScheduleDelete: 1})
	})
}

// TestDeletionLimitBlocksThePlan: more deletions than --max-deletions
// allows is invalid with not one mutating call, in plan (which counts what
// it would do) and sync (which counts what it did: nothing); at the limit
// the deletions go ahead.
func TestDeletionLimitBlocksThePlan(t *testing.T) {
	e := newEnv(t)
	for _, b := range []string{"keep", "x", "y", "z"} {
		e.seedOwned(t, b, `{"a":1}`)
	}
	st := state(doc{"keep", `{"a":1}`})
	two := 2
	for mode, counts := range map[engine.Mode]vocab.Counts{
		engine.ModePlan: {ScheduleDelete: 3, Unchanged: 1},
		engine.ModeSync: {Unchanged: 1},
	} {
		cfg := e.cfg(mode, 4)
		cfg.MaxDeletions = &two
		before := e.calls(t)
		res := e.run(t, cfg, st)
		wantResult(t, res, vocab.StatusInvalid, vocab.VerificationNotRun, counts)
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("mode %v: %d mutating calls under the deletion limit", mode, n)
		}
	}
	if !strings.Contains(e.logs.String(), engine.ClassDeletionLimit) {
		t.Fatal("the gate's record carries its class")
	}
	st = state(doc{"keep", `{"a":1}`}, doc{"z", `{"a":1}`})
	cfg := e.cfg(engine.ModeSync, 4)
	cfg.MaxDeletions = &two
	wantResult(t, e.run(t, cfg, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{ScheduleDelete: 2, Unchanged: 2})
}

// TestRegression_BlockedSyncCountsNoDeletions: a sync that a deletion gate
// stops (the empty-scope gate, the deletion limit) deleted nothing, so its
// counts say schedule_delete 0 (sync counts are operations that took
// effect, docs/results.md), while the plan it shows still lists the
// deletions it refused, for the plan file. On the code before this fix the
// counts said schedule_delete 1 and 3.
func TestRegression_BlockedSyncCountsNoDeletions(t *testing.T) {
	zero := 0
	for name, c := range map[string]struct {
		st        model.State
		gate      func(*engine.Config)
		deletions int
		class     string
	}{
		"empty-scope gate": {state(), func(*engine.Config) {}, 2, diag.GateEmptyScope},
		"deletion limit":   {state(doc{"keep", `{"a":1}`}), func(c *engine.Config) { c.MaxDeletions = &zero }, 2, diag.GateMaxDeletions},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			for _, b := range []string{"keep", "x", "y"} {
				if b != "keep" || len(c.st.Secrets) > 0 {
					e.seedOwned(t, b, `{"a":1}`)
				}
			}
			cfg := e.cfg(engine.ModeSync, 4)
			c.gate(&cfg)
			before := e.calls(t)
			res := e.run(t, cfg, c.st)
			if res.Status != vocab.StatusInvalid || res.Counts.ScheduleDelete != 0 || res.Counts.Operations() != 0 {
				t.Fatalf("result = %+v, want invalid with no operation counted", res)
			}
			if n := mutations(before, e.calls(t)); n != 0 {
				t.Fatalf("%d mutating calls behind the gate", n)
			}
			shown := 0
			for _, op := range res.Plan {
				if op.Action == vocab.ActionScheduleDelete {
					shown++
				}
			}
			if shown != c.deletions {
				t.Fatalf("the shown plan lists %d deletions, want the %d refused", shown, c.deletions)
			}
			if len(res.Diagnostics) != 1 || res.Diagnostics[0].Class != c.class {
				t.Fatalf("diagnostics = %+v, want %s", res.Diagnostics, c.class)
			}
		})
	}
}

// TestGateNextGivesTheFlagsOfThisMode: a gate's next action names the
// arguments that authorize this plan on a re-run, in the form that works
// in the run's mode: the flags alone without scopes:, with --scope NAME
// beside a config file's scopes: (Config.Listed), where a per-scope flag
// without it is config:scope-ambiguous. The deletion limit's flag carries
// the planned deletions; the empty-scope gate of a scope also over its
// limit names both flags, so that the advised re-run passes both gates.
// The gate's log record gives the same arguments.
func TestGateNextGivesTheFlagsOfThisMode(t *testing.T) {
	one := 1
	for name, c := range map[string]struct {
		st     model.State
		max    *int
		listed string
		class  string
		args   string
	}{
		"limit, single scope":  {state(doc{"keep", `{"a":1}`}), &one, "", diag.GateMaxDeletions, "--max-deletions 2"},
		"limit, listed scope":  {state(doc{"keep", `{"a":1}`}), &one, "prod", diag.GateMaxDeletions, "--scope prod --max-deletions 2"},
		"empty, single scope":  {state(), nil, "", diag.GateEmptyScope, "--allow-empty"},
		"empty, listed scope":  {state(), nil, "prod", diag.GateEmptyScope, "--scope prod --allow-empty"},
		"empty over the limit": {state(), &one, "prod", diag.GateEmptyScope, "--scope prod --allow-empty --max-deletions 2"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			for _, b := range []string{"keep", "x", "y"} {
				if b != "keep" || len(c.st.Secrets) > 0 {
					e.seedOwned(t, b, `{"a":1}`)
				}
			}
			cfg := e.cfg(engine.ModePlan, 2)
			cfg.MaxDeletions, cfg.Listed = c.max, c.listed
			res := e.run(t, cfg, c.st)
			if len(res.Diagnostics) != 1 || res.Diagnostics[0].Class != c.class {
				t.Fatalf("diagnostics = %+v, want %s", res.Diagnostics, c.class)
			}
			next := res.Diagnostics[0].Next
			if !strings.Contains(next, "re-run with "+c.args+",") && !strings.Contains(next, "re-run once with "+c.args+" (") &&
				!strings.HasSuffix(next, "re-run with "+c.args) {
				t.Fatalf("next = %q, want it to advise exactly %q", next, c.args)
			}
			if allow := strings.Contains(next, "allow-empty: true in its scopes: entry"); allow != (c.listed != "" && c.class == diag.GateEmptyScope) {
				t.Fatalf("next = %q: the scope entry's allow-empty is offered only to a listed scope's empty gate", next)
			}
			if !strings.Contains(e.logs.String(), "with "+c.args+`"`) {
				t.Fatalf("the gate's record does not give %q:\n%s", c.args, e.logs.String())
			}
		})
	}
}
