package engine_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestChanges_RestoreAfterARebuildIsListedBeforeTheEarlierUpdate: a
// secret this run updated is scheduled for deletion by someone else
// before the next precondition, which finds another secret changed and
// rebuilds; the rebuilt plan restores the first secret. Its two changes
// took effect update first, restore second, and are listed in apply
// order: restore, then update.
func TestChanges_RestoreAfterARebuildIsListedBeforeTheEarlierUpdate(t *testing.T) {
	e := newEnv(t)
	e.seedOwned(t, "a", `{"v":0}`)
	e.seedOwned(t, "b", `{"v":0}`)
	st := state(doc{"a", `{"v":1}`}, doc{"b", `{"v":1}`})
	var once sync.Once
	h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
		if n == 4 { // b's precondition (2 describes observed, 1 was a's precondition)
			once.Do(func() {
				e.del(t, nameOf("a"))
				e.put(t, id, `{"v":"someone"}`)
			})
		}
	}}
	res := e.runPort(t, e.cfg(engine.ModeSync, 1), st, h)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 2, Restore: 1})
	var got []vocab.Action
	for _, c := range res.Changes {
		if c.Name == nameOf("a") {
			got = append(got, c.Action)
		}
	}
	if want := []vocab.Action{vocab.ActionRestore, vocab.ActionUpdate}; !slices.Equal(got, want) {
		t.Fatalf("a's changes %v, want %v", got, want)
	}
}
