package engine_test

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestDriver_EachOperationMakesItsStepsInOrder: a clean sync of each kind
// of operation makes exactly the calls of its rows (stepsOf,
// internal/engine/steps.go), in the documented order, and no other write:
// an update sends its value, then UpdateSecret, TagResource, the replicas
// to add and to remove, each only when planning found it needed; an
// adoption tags first and never makes an update's TagResource; a restore's
// follow-up sends the value only when the value differs; a deletion
// removes its replicas first.
func TestDriver_EachOperationMakesItsStepsInOrder(t *testing.T) {
	payments := model.Metadata{Description: "payments", Tags: map[string]string{"team": "payments"}}
	for _, c := range []struct {
		name   string
		setup  func(t *testing.T, e *env) (engine.Config, model.State)
		counts vocab.Counts
		writes []string
	}{
		{"create", func(t *testing.T, e *env) (engine.Config, model.State) {
			cfg := e.replicaCfg(engine.ModeSync, 1, twoReplicas)
			cfg.Metadata = payments
			return cfg, state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Create: 1}, []string{"CreateSecret"}},
		{"update of the value alone", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":0}`)
			return e.cfg(engine.ModeSync, 1), state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Update: 1}, []string{"PutSecretValue"}},
		{"update of the description alone", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":1}`)
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Description: "payments"}
			return cfg, state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Update: 1}, []string{"UpdateSecret"}},
		{"update of a tag alone", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":1}`)
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Tags: map[string]string{"team": "payments"}}
			return cfg, state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Update: 1}, []string{"TagResource"}},
		{"update of everything", func(t *testing.T, e *env) (engine.Config, model.State) {
			wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 1, twoReplicas[1:]), state(doc{"x", `{"v":0}`})),
				vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
			cfg := e.replicaCfg(engine.ModeSync, 1, twoReplicas[:1])
			cfg.Metadata = payments
			return cfg, state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Update: 1}, []string{"PutSecretValue", "UpdateSecret", "TagResource", "ReplicateSecretToRegions", "RemoveRegionsFromReplication"}},
		{"update of the replicas alone", func(t *testing.T, e *env) (engine.Config, model.State) {
			wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 1, twoReplicas), state(doc{"x", `{"v":1}`})),
				vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
			return e.replicaCfg(engine.ModeSync, 1, twoReplicas[:1]), state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Update: 1}, []string{"RemoveRegionsFromReplication"}},
		{"adoption of the desired value", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seed(t, nameOf("x"), aws.String(`{"v":1}`), nil, nil)
			return e.adoptCfg(engine.ModeSync, 1, false, "x"), state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Adopt: 1}, []string{"TagResource"}},
		{"adoption of another value, with metadata", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seed(t, nameOf("x"), aws.String(`{"v":0}`), nil, nil)
			cfg := e.adoptCfg(engine.ModeSync, 1, false, "x")
			cfg.Metadata = payments
			return cfg, state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Adopt: 1}, []string{"TagResource", "PutSecretValue", "UpdateSecret"}},
		{"restore", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.del(t, e.seedOwned(t, "x", `{"v":1}`))
			return e.cfg(engine.ModeSync, 1), state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Restore: 1}, []string{"RestoreSecret"}},
		{"restore, then its follow-up update", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.del(t, e.seedOwned(t, "x", `{"v":0}`))
			return e.cfg(engine.ModeSync, 1), state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Restore: 1, Update: 1}, []string{"RestoreSecret", "PutSecretValue"}},
		{"restore, then a follow-up of the description alone", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.del(t, e.seedOwned(t, "x", `{"v":1}`))
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Description: "payments"}
			return cfg, state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Restore: 1, Update: 1}, []string{"RestoreSecret", "UpdateSecret"}},
		{"restore, then a follow-up of the replicas alone", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.del(t, e.seedOwned(t, "x", `{"v":1}`))
			return e.replicaCfg(engine.ModeSync, 1, twoReplicas[:1]), state(doc{"x", `{"v":1}`})
		}, vocab.Counts{Restore: 1, Update: 1}, []string{"RestoreSecret", "ReplicateSecretToRegions"}},
		{"schedule-delete", func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "keep", `{}`)
			e.seedOwned(t, "x", `{"v":1}`)
			return e.cfg(engine.ModeSync, 1), state(doc{"keep", `{}`})
		}, vocab.Counts{ScheduleDelete: 1, Unchanged: 1}, []string{"DeleteSecret"}},
		{"schedule-delete of a secret with replicas", func(t *testing.T, e *env) (engine.Config, model.State) {
			wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 1, twoReplicas), state(doc{"keep", `{}`}, doc{"x", `{"v":1}`})),
				vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
			return e.replicaCfg(engine.ModeSync, 1, twoReplicas), state(doc{"keep", `{}`})
		}, vocab.Counts{ScheduleDelete: 1, Unchanged: 1}, []string{"RemoveRegionsFromReplication", "DeleteSecret"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, noSDKRetry)
			cfg, st := c.setup(t, e)
			p := &tracePort{Port: e.port}
			before := e.calls(t)
			wantResult(t, e.runPort(t, cfg, st, p), vocab.StatusConverged, vocab.VerificationConverged, c.counts)
			writes := slices.DeleteFunc(slices.Clone(p.trace), func(op string) bool { return op == "DescribeSecret" })
			if !slices.Equal(writes, c.writes) {
				t.Errorf("writes %v, want %v", writes, c.writes)
			}
			// No write went around the port's methods the trace records.
			if got, want := mutations(before, e.calls(t))+replicaCalls(before, e.calls(t)), int64(len(c.writes)); got != want {
				t.Errorf("%d mutating AWS calls, want %d", got, want)
			}
		})
	}
}

// replicaCalls counts the replication calls between two call counts.
func replicaCalls(before, after map[string]int64) int64 {
	var n int64
	for _, op := range []string{"ReplicateSecretToRegions", "RemoveRegionsFromReplication"} {
		n += after[op] - before[op]
	}
	return n
}
