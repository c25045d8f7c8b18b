package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// seededScope returns an emulator holding n owned secrets (s000, s001, …),
// created by a sync at concurrency conc, and their desired state.
func seededScope(t *testing.T, n, conc int) (*env, desired.State) {
	t.Helper()
	e := newEnv(t)
	var docs []doc
	for i := range n {
		docs = append(docs, doc{fmt.Sprintf("s%03d", i), fmt.Sprintf(`{"i":%d}`, i)})
	}
	st := state(docs...)
	wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: n})
	return e, st
}

// TestConcurrencyBoundsCallsInFlight: --concurrency bounds every AWS call
// in flight, discovery pages included; 1 is strictly sequential (SPEC
// §2.1). Before the fix, discovery ran beside the describes, so
// --concurrency 1 had two calls in flight. 250 secrets: 3 list pages, 250
// describes and 13 value batches per observation.
func TestConcurrencyBoundsCallsInFlight(t *testing.T) {
	e, st := seededScope(t, 250, 1)
	e.srv.SetFaults(t, emulator.Faults{LatencyMS: 2}) // calls last long enough to overlap
	for _, c := range []struct {
		conc     int
		min, max int64
	}{{1, 1, 1}, {4, 2, 4}} {
		r := engine.Run(context.Background(), e.cfg(engine.ModeSync, c.conc), st, e.port, nil)
		wantResult(t, r, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 250})
		if got := e.srv.Emu.Stats().MaxInFlight; got < c.min || got > c.max {
			t.Fatalf("--concurrency %d: %d calls in flight at once, want %d..%d", c.conc, got, c.min, c.max)
		}
	}
}

// TestValueBatchesPacedUnderQuota: value batches are paced below the
// BatchGetSecretValue quota instead of bouncing off it. The emulator's
// quotas are scaled to a tenth (10 batches/s, a bucket of 10), the engine
// paces at 8/s; an observation of 250 secrets makes 13 batches. Unpaced,
// the same observation is throttled (the premise); paced, never. Before
// the fix, --concurrency 64 at 20 ms per call had 9 of 509 batches
// throttled in a no-op sync of 10,000 secrets.
func TestValueBatchesPacedUnderQuota(t *testing.T) {
	e, st := seededScope(t, 250, 8)
	quotas := emulator.Faults{Seed: 1, Quotas: true, QuotaScale: 0.1}
	for _, c := range []struct {
		perSecond float64
		throttled bool
	}{{-1, true}, {8, false}} {
		e.srv.SetFaults(t, quotas) // refills the buckets
		before := e.srv.Stats(t).Throttled["BatchGetSecretValue"]
		cfg := e.cfg(engine.ModePlan, 8)
		cfg.BatchReadsPerSecond = c.perSecond
		r := engine.Run(context.Background(), cfg, st, e.port, nil)
		wantResult(t, r, vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 250})
		got := e.srv.Stats(t).Throttled["BatchGetSecretValue"] - before
		if (got > 0) != c.throttled {
			t.Fatalf("batches paced at %v/s: %d throttled", c.perSecond, got)
		}
	}
}
