package engine_test

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestNewConflictBeforeApply: a secret that became unsafe between planning
// and its mutation (rotation turned on) stops the run with "conflict" and
// is not written.
func TestNewConflictBeforeApply(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`})
		on := true
		var once sync.Once
		h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
			if n == 2 { // the precondition
				once.Do(func() { e.srv.SetConditions(t, emulator.Conditions{Name: id, RotationEnabled: &on}) })
			}
		}}
		before := e.calls(t)
		res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
		wantResult(t, res, vocab.StatusConflict, vocab.VerificationNotRun, vocab.Counts{Conflicts: 1})
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%d mutating calls after a new conflict", n)
		}
	})
}

// TestConflictDuringVerification_Failed: a conflict that appears after the
// writes (replication added by someone) ends verification failed.
func TestConflictDuringVerification_Failed(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`})
		var afterPut atomic.Bool
		var once sync.Once
		h := &hookPort{Port: &putSpy{Port: e.port, after: func() { afterPut.Store(true) }}, beforeDesc: func(n int, id string) {
			if afterPut.Load() {
				once.Do(func() { e.srv.SetConditions(t, emulator.Conditions{Name: id, ReplicaRegions: []string{"eu-west-1"}}) })
			}
		}}
		res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
		wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Update: 1, Conflicts: 1})
	})
}
