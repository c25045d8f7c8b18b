package engine_test

import (
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestVerificationTimeoutBoundsFirstObservation: --verification-timeout
// bounds the whole verification, its first observation included. With
// every call taking at least 400 ms and a 100 ms timeout, the first
// verification round cannot finish in time, so the outcome is
// inconclusive, never a "converged" proven after the deadline (SPEC §6).
// Deterministic: it relies only on the emulator's latency lower bound.
func TestVerificationTimeoutBoundsFirstObservation(t *testing.T) {
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{Seed: 1, LatencyMS: 400})
	cfg := e.cfg(engine.ModeSync, config.DefaultConcurrency)
	cfg.VerificationTimeout = 100 * time.Millisecond
	res := e.run(t, cfg, state(doc{"db", `{"v":1}`}))
	wantResult(t, res, vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, vocab.Counts{Create: 1})
	if got := vocab.ExitCode(res.Status, false); got != 6 {
		t.Fatalf("exit code %d, want 6", got)
	}
	// The write itself happened; only its proof was cut off.
	e.srv.SetFaults(t, emulator.Faults{})
	if got := current(e.secret(t, nameOf("db"))); got != `{"v":1}` {
		t.Fatalf("app/db = %q", got)
	}
}
