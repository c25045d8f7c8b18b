package engine_test

import (
	"fmt"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestChaos_RerunsConverge: with random server errors and lost responses
// (applied or not) on every kind of call and no SDK retries, every run ends in a documented
// status, never writes a wrong value, and re-running converges; then a run
// without faults is a no-op.
func TestChaos_RerunsConverge(t *testing.T) {
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			eachConcurrency(t, func(t *testing.T, conc int) {
				e := newEnv(t, noSDKRetry) // faults reach the engine, not only the SDK's retryer
				var docs []doc
				for i := range 12 {
					switch i % 4 {
					case 0:
						e.seedOwned(t, fmt.Sprintf("s%02d", i), `{"v":0}`)
					case 1:
						e.del(t, e.seedOwned(t, fmt.Sprintf("s%02d", i), `{"v":0}`))
					case 2:
						e.seedOwned(t, fmt.Sprintf("old%02d", i), `{}`)
					}
					docs = append(docs, doc{fmt.Sprintf("s%02d", i), fmt.Sprintf(`{"v":%d}`, i)})
				}
				st := state(docs...)
				e.srv.SetFaults(t, emulator.Faults{Seed: seed, ErrorRate: 0.01, AmbiguousRate: 0.1, AmbiguousKind: "mixed"})
				cfg := e.cfg(engine.ModeSync, conc)
				var res engine.Result
				for run := 1; run <= 20; run++ {
					res = e.run(t, cfg, st)
					t.Logf("run %d: %s %+v", run, res.Status, res.Counts)
					switch res.Status {
					case vocab.StatusConverged:
					case vocab.StatusApplyFailed, vocab.StatusObservationFailed, vocab.StatusVerificationInconclusive:
						continue
					default:
						t.Fatalf("run %d: unexpected %+v\n%s", run, res, e.logs.String())
					}
					break
				}
				if res.Status != vocab.StatusConverged {
					t.Fatalf("not converged after 20 runs: %+v", res)
				}
				e.srv.SetFaults(t, emulator.Faults{})
				before := e.calls(t)
				res = e.run(t, cfg, st)
				if res.Status != vocab.StatusConverged || res.Counts.Operations() != 0 || mutations(before, e.calls(t)) != 0 {
					t.Fatalf("fault-free re-run = %+v", res)
				}
				for _, s := range st.Secrets {
					sec := e.secret(t, s.Name)
					if current(sec) != string(s.Value) || sec.DeletedDate != nil {
						t.Fatalf("%s wrong after convergence", s.Name)
					}
				}
			})
		})
	}
}
