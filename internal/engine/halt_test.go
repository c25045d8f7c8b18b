package engine_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestRegression_VerificationFindingHaltsOtherScopes: a scope with nothing
// to write whose configured replica is Failed (a condition only an
// operator fixes) or still InProgress at the verification timeout raised
// the run's shared halt from its verification, so the next scope of its
// bucket never created its new document (apply:halted, exit 5, on every
// run), and a scope of another bucket did or did not depending on timing.
// The halt now rises only when an apply fails: the other scope applies,
// the first reports its verification finding (exit 6), and the halt is
// never raised, so the outcome is the same in every bucket order.
func TestRegression_VerificationFindingHaltsOtherScopes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		faults  emulator.Faults
		timeout time.Duration
		status  vocab.Status
		verif   vocab.Verification
		class   string
	}{
		{"replica Failed", emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "us-west-2"}}}, 10 * time.Second,
			vocab.StatusVerificationFailed, vocab.VerificationFailed, diag.VerifyReplicaFailed},
		{"replica InProgress at the timeout", emulator.Faults{ReplicationLagMS: 3_600_000}, time.Second,
			vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, diag.VerifyReplicaInProgress},
	} {
		for _, bucket := range []string{"a", "b"} {
			t.Run(tc.name+"/other scope in bucket "+bucket, func(t *testing.T) {
				e := newEnv(t)
				e.srv.SetFaults(t, tc.faults)
				// The verification timeout passes on the engine's clock,
				// not in real time (the replica's lag is on the
				// emulator's: an hour, it stays InProgress).
				clock := &stepClock{now: time.Unix(1_700_000_000, 0)}
				one := scopeDef{"one", "a", []doc{{"db", `{"v":1}`}}}
				run := func(two scopeDef) []engine.Result {
					log := slog.New(slog.NewJSONHandler(e.logs, nil))
					var runs []engine.ScopeRun
					for _, d := range []scopeDef{one, two} {
						cfg := e.cfg(engine.ModeSync, 4)
						cfg.VerificationTimeout, cfg.Clock, cfg.PollInterval = tc.timeout, clock, 250*time.Millisecond
						if d.name == "one" {
							cfg.Replicas = twoReplicas
						}
						runs = append(runs, engine.ScopeRun{Bucket: d.bucket, Config: cfg, Want: d.state(),
							Port: newAdapter(e.client), Log: log.With(slog.String(vocab.FieldScope, d.name))})
					}
					return engine.RunScopes(context.Background(), runs, log)
				}
				// The first run creates the first scope's secret; its
				// replica then fails (or stays InProgress).
				got := run(scopeDef{"two", bucket, nil})
				wantResult(t, got[0], tc.status, tc.verif, vocab.Counts{Create: 1})

				// Every later run: the first scope has nothing to write;
				// the second has a new document.
				two := scopeDef{"two", bucket, []doc{{"new", `{"v":2}`}}}
				got = run(two)
				wantResult(t, got[0], tc.status, tc.verif, vocab.Counts{Unchanged: 1})
				if !hasClass(got[0], tc.class) {
					t.Errorf("first scope's diagnostics %+v, want %s", got[0].Diagnostics, tc.class)
				}
				wantResult(t, got[1], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
				if hasClass(got[1], diag.ApplyHalted) {
					t.Errorf("the second scope was halted by the first scope's verification")
				}
				if st := vocab.MostSevere(got[0].Status, got[1].Status); vocab.ExitCode(st, false) != 6 {
					t.Errorf("run status %s (exit %d), want exit 6", st, vocab.ExitCode(st, false))
				}
				if _, ok := e.secretIn(t, "us-east-1", two.secretName("new")); !ok {
					t.Error("the second scope's new document was not created")
				}
			})
		}
	}
}
