package engine_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// seededScope returns an emulator holding n owned secrets (s000, s001, …),
// created by a sync at concurrency conc, and their desired state.
func seededScope(t *testing.T, n, conc int) (*env, model.State) {
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
		r := engine.Run(context.Background(), e.cfg(engine.ModeSync, c.conc), model.Arrived(st), e.port, nil)
		wantResult(t, r, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 250})
		if got := e.srv.Emu.Stats().MaxInFlight; got < c.min || got > c.max {
			t.Fatalf("--concurrency %d: %d calls in flight at once, want %d..%d", c.conc, got, c.min, c.max)
		}
	}
}

// TestValueBatchesPacedUnderQuota: value batches are paced below the
// BatchGetSecretValue quota instead of bouncing off it, and a throttled
// batch is resent, not failed. The emulator's quotas are scaled to a tenth
// (10 batches/s, a bucket of 10) and an observation of 250 secrets makes 13
// batches. The premise, unpaced, runs with the emulator's clock frozen so
// that its bucket cannot refill however slowly the machine goes: batches
// are throttled, and the clock thaws when the adapter first waits for its
// cut limit, so the resent batches pass and the plan is complete.
// Paced at 8/s on the real clock, none is throttled. Before the fix,
// --concurrency 64 at 20 ms per call had 9 of 509 batches throttled in a
// no-op sync of 10,000 secrets.
func TestValueBatchesPacedUnderQuota(t *testing.T) {
	e, st := seededScope(t, 250, 8)
	quotas := emulator.Faults{Seed: 1, Quotas: true, QuotaScale: 0.1}
	run := func(perSecond float64, clock pace.Clock) (engine.Result, int64) {
		e.srv.SetFaults(t, quotas) // refills the buckets
		before := e.srv.Stats(t).Throttled["BatchGetSecretValue"]
		cfg := e.cfg(engine.ModePlan, 8)
		port := awssm.New(e.client, awssm.Options{OperationTimeout: 10 * time.Second, Pace: pace.New(clock, pace.Limits{Batches: perSecond})})
		r := engine.Run(context.Background(), cfg, model.Arrived(st), port, nil)
		return r, e.srv.Stats(t).Throttled["BatchGetSecretValue"] - before
	}

	frozen := e.srv.Emu.Now()
	e.srv.Emu.SetClock(func() time.Time { return frozen })
	r, throttled := run(-1, &thawClock{thaw: func() { e.srv.Emu.SetClock(time.Now) }})
	if throttled < 1 {
		t.Fatalf("premise: 13 unpaced batches against a bucket of 10 that cannot refill: %d throttled", throttled)
	}
	wantResult(t, r, vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 250})
	e.srv.Emu.SetClock(time.Now)

	r, throttled = run(8, pace.SystemClock{})
	wantResult(t, r, vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 250})
	if throttled != 0 {
		t.Fatalf("batches paced at 8/s: %d throttled", throttled)
	}
}

// thawClock is the real clock that runs thaw once, the first time a caller
// has to wait.
type thawClock struct {
	pace.SystemClock
	once sync.Once
	thaw func()
}

func (c *thawClock) After(d time.Duration) <-chan time.Time {
	c.once.Do(c.thaw)
	return c.SystemClock.After(d)
}

// TestApplyRunsConcurrencyOperationsAtOnce: the apply of a phase runs up
// to --concurrency operations at once (SPEC §2.1), not one after the
// other: at --concurrency 2 the two creates are in flight together. Each
// create waits at a barrier until the other has arrived; run one after
// the other, the first would wait alone, and the bound (far above any
// real wait) ends it and fails the test instead of hanging.
func TestApplyRunsConcurrencyOperationsAtOnce(t *testing.T) {
	e := newEnv(t)
	b := &barrierCreates{Port: e.port, at: 2, all: make(chan struct{})}
	wantResult(t, e.runPort(t, e.cfg(engine.ModeSync, 2), state(doc{"x", `{}`}, doc{"y", `{}`}), b),
		vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
	if b.alone.Load() {
		t.Fatal("a create waited alone: the phase's two operations were not in flight at once")
	}
}

// barrierCreates holds each create until at creates have arrived (or a
// bound of 30 s passed, recorded in alone).
type barrierCreates struct {
	Port
	at    int
	mu    sync.Mutex
	n     int
	all   chan struct{}
	alone atomic.Bool
}

func (b *barrierCreates) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	b.mu.Lock()
	if b.n++; b.n == b.at {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-time.After(30 * time.Second):
		b.alone.Store(true)
	}
	return b.Port.Create(ctx, req)
}
