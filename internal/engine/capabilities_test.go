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
	owned := model.AWSOwned{Secret: "db", Keys: []string{"/password"}}
	for name, c := range map[string]struct {
		seed func(t *testing.T, e *env)
		cfg  func(e *env) engine.Config
		doc  doc
		want vocab.Status
	}{
		"restore": {
			seed: func(t *testing.T, e *env) { e.del(t, e.seedOwned(t, "a", `{"v":1}`)) },
			cfg:  func(e *env) engine.Config { return e.cfg(engine.ModeSync, 2) },
			doc:  doc{"a", `{"v":1}`}, want: vocab.StatusApplyFailed,
		},
		"labels": {
			seed: func(t *testing.T, e *env) { seedRotating(t, e, owned) },
			cfg:  func(e *env) engine.Config { return awsOwnedCfg(e, engine.ModeSync, owned) },
			doc:  doc{"db", `{"host":"h2","password":"seed"}`}, want: vocab.StatusApplyFailed,
		},
		"replicas": {
			seed: func(*testing.T, *env) {},
			cfg:  func(e *env) engine.Config { return e.replicaCfg(engine.ModeSync, 2, twoReplicas) },
			doc:  doc{"a", `{"v":1}`}, want: vocab.StatusObservationFailed,
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			c.seed(t, e)
			before := e.calls(t)
			res := e.runPort(t, c.cfg(e), state(c.doc), coreOnly{e.port})
			if res.Status != c.want {
				t.Errorf("status %s, want %s", res.Status, c.want)
			}
			if n := mutations(before, e.calls(t)); n != 0 {
				t.Errorf("%d mutating calls, want none", n)
			}
			if !strings.Contains(e.logs.String(), `"error_class":"internal"`) {
				t.Errorf("no record of class internal:\n%s", e.logs.String())
			}
		})
	}
}
