package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// coreOnly is the Secrets Manager adapter seen as a store with no
// optional capability: only the core port's methods reach it.
type coreOnly struct{ engine.Port }

// TestCapabilitiesOf: the engine sees a capability exactly where the port
// implements its interface: the adapter and a wrapper embedding Port have
// every one of secrets-manager's row, the same adapter behind the core
// port alone has none.
func TestCapabilitiesOf(t *testing.T) {
	e := newEnv(t)
	want := model.TargetSecretsManager.Capabilities()
	if got := engine.CapabilitiesOf(e.port); !slices.Equal(got, want) {
		t.Errorf("adapter: %v, want the row's %v", got, want)
	}
	if got := engine.CapabilitiesOf(&hookPort{Port: e.port}); !slices.Equal(got, want) {
		t.Errorf("wrapper: %v, want %v", got, want)
	}
	if got := engine.CapabilitiesOf(coreOnly{e.port}); len(got) != 0 {
		t.Errorf("core only: %v, want none", got)
	}
}

// A store without a capability is never asked for it: an operation whose
// steps go through a capability the port lacks (a restore without a
// Restorer, a value write of a secret with keys owned by AWS without a
// LabelMover) fails closed before any call, and replicas configured for a
// port without a Replicator fail the observation before any read in
// another Region (config refuses those settings for such a target, so
// this is a programming error: internal, never a guess).
func TestLackingCapability_FailsClosedBeforeAnyCall(t *testing.T) {
	t.Run("restore", func(t *testing.T) {
		e := newEnv(t)
		e.del(t, e.seedOwned(t, "a", `{"v":1}`))
		before := e.calls(t)
		res := e.runPort(t, e.cfg(engine.ModeSync, 2), state(doc{"a", `{"v":1}`}), coreOnly{e.port})
		if res.Status != vocab.StatusApplyFailed {
			t.Errorf("status %s, want %s", res.Status, vocab.StatusApplyFailed)
		}
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Errorf("%d mutating calls, want none", n)
		}
		wantInternal(t, e)
	})
	t.Run("labels", func(t *testing.T) {
		e := newEnv(t)
		entry := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
		seedRotating(t, e, entry)
		before := e.calls(t)
		res := e.runPort(t, awsOwnedCfg(e, engine.ModeSync, entry), state(doc{"db", `{"host":"h2","password":"seed"}`}), coreOnly{e.port})
		if res.Status != vocab.StatusApplyFailed {
			t.Errorf("status %s, want %s", res.Status, vocab.StatusApplyFailed)
		}
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Errorf("%d mutating calls, want none", n)
		}
		wantInternal(t, e)
	})
	t.Run("replicas", func(t *testing.T) {
		e := newEnv(t)
		res := e.runPort(t, e.replicaCfg(engine.ModeSync, 2, twoReplicas), state(doc{"a", `{"v":1}`}), coreOnly{e.port})
		if res.Status != vocab.StatusObservationFailed {
			t.Errorf("status %s, want %s", res.Status, vocab.StatusObservationFailed)
		}
		if calls := e.calls(t); calls["CreateSecret"] != 0 || len(e.srv.State(t).Secrets) != 0 {
			t.Errorf("calls %v: nothing may be written", calls)
		}
		wantInternal(t, e)
	})
}

func wantInternal(t *testing.T, e *env) {
	t.Helper()
	if !strings.Contains(e.logs.String(), `"error_class":"internal"`) {
		t.Errorf("no record of class internal:\n%s", e.logs.String())
	}
}
