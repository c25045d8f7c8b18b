package engine_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
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
						runs = append(runs, engine.ScopeRun{Bucket: d.bucket, Config: cfg, Arrival: model.Arrived(d.state()),
							Port: newAdapter(e.client), Log: log.With(slog.String(vocab.FieldScope, d.name))})
					}
					return engine.RunScopes(context.Background(), runs, 0, log)
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

// TestRegression_InterruptReportedAsHalted: in a run of several scopes an
// interruption (the run's context cancelled) raises the shared halt, and
// the driver checked the halt before the context, so another scope's next
// operation ended apply:halted ("halted: scope one failed") instead of
// interrupted: the report named a failure in scope one that never
// happened. When the context is done the outcome is interrupted, whatever
// the halt says; a real failure still halts the others as apply:halted.
//
// Scope one (bucket a) creates x; its create waits until scope two's first
// create is in flight, then either the run is cancelled (that create sees
// the cancelled context) or it fails closed. Scope two (bucket b, creates
// a, b, c one at a time) holds its first create until scope one's phase is
// over (the halt is up); that create finishes (in flight, detached from
// the cancellation), and b and c are never started.
func TestRegression_InterruptReportedAsHalted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		interrupt bool
		oneStatus vocab.Status
		twoStatus vocab.Status
		twoClass  string // the diagnostic scope two carries ("" none)
	}{
		{"interrupted", true, vocab.StatusInterrupted, vocab.StatusInterrupted, ""},
		{"failed", false, vocab.StatusApplyFailed, vocab.StatusApplyFailed, diag.ApplyHalted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			entered, over := make(chan struct{}), make(chan struct{})
			one := scopeDef{"one", "a", []doc{{"x", `{}`}}}
			two := scopeDef{"two", "b", []doc{{"a", `{}`}, {"b", `{}`}, {"c", `{}`}}}
			cfgOne, cfgTwo := e.cfg(engine.ModeSync, 1), e.cfg(engine.ModeSync, 1)
			cfgOne.Scope, cfgTwo.Scope = "one", "two"
			var portOne engine.Port = failingCreates{Port: newAdapter(e.client), after: entered}
			if tc.interrupt {
				portOne = cancellingCreates{Port: newAdapter(e.client), after: entered, cancel: cancel}
			}
			runs := []engine.ScopeRun{
				{Bucket: one.bucket, Config: cfgOne, Arrival: model.Arrived(one.state()), Port: portOne,
					Log: slog.New(watch{msg: "phase applied", seen: over, once: &sync.Once{}})},
				{Bucket: two.bucket, Config: cfgTwo, Arrival: model.Arrived(two.state()),
					Port: &heldCreates{Port: detachedCreates{Port: newAdapter(e.client)}, entered: entered, release: over},
					Log:  slog.New(slog.DiscardHandler)},
			}
			got := engine.RunScopes(ctx, runs, 0, nil)
			if got[0].Status != tc.oneStatus {
				t.Errorf("scope one's status = %s, want %s", got[0].Status, tc.oneStatus)
			}
			wantResult(t, got[1], tc.twoStatus, vocab.VerificationNotRun, vocab.Counts{Create: 1})
			var classes []string
			for _, d := range got[1].Diagnostics {
				classes = append(classes, d.Class)
			}
			if want := []string{tc.twoClass}; tc.twoClass == "" && len(classes) != 0 || tc.twoClass != "" && !slices.Equal(classes, want) {
				t.Errorf("scope two's diagnostics = %v, want %q", classes, tc.twoClass)
			}
			if tc.twoClass != "" && !strings.Contains(got[1].Diagnostics[0].Sentence(), "scope one failed") {
				t.Errorf("scope two's apply:halted = %q, want it to name scope one", got[1].Diagnostics[0].Sentence())
			}
			if n := e.calls(t)["CreateSecret"]; n != 1 {
				t.Errorf("CreateSecret calls = %d, want 1 (scope two's first, in flight)", n)
			}
		})
	}
}

// cancellingCreates is a port whose create waits for after, then cancels
// the run and goes to AWS with the cancelled context.
type cancellingCreates struct {
	Port
	after  <-chan struct{}
	cancel context.CancelFunc
}

func (c cancellingCreates) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	<-c.after
	c.cancel()
	return c.Port.Create(ctx, req)
}

// detachedCreates is a port whose creates ignore the run's cancellation:
// an operation in flight when the run is interrupted that still lands.
type detachedCreates struct{ Port }

func (d detachedCreates) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	return d.Port.Create(context.WithoutCancel(ctx), req)
}
