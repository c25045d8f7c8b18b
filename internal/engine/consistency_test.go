package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestListLag_VerificationObservesDirectly: with ListSecrets answering from
// the state of 5 s ago, a sync that creates and deletes converges (written
// names are observed directly), and the next plan is empty.
func TestListLag_VerificationObservesDirectly(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.srv.SetFaults(t, emulator.Faults{ListLagMS: 5000})
		e.seedOwned(t, "keep", `{"v":1}`)
		e.seedOwned(t, "gone", `{"v":1}`)
		e.srv.AdvanceClock(t, 6*time.Second) // the seeds are old enough to be listed
		st := state(doc{"keep", `{"v":2}`}, doc{"new1", `{}`}, doc{"new2", `{}`})
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{Create: 2, Update: 1, ScheduleDelete: 1})
		// Still inside the lag window: the list shows neither new secret and
		// "gone" as active, yet the plan is empty.
		page, err := e.client.ListSecrets(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range page.SecretList {
			if strings.HasPrefix(aws.ToString(s.Name), nameOf("new")) {
				t.Fatal("the list is expected to lag in this test")
			}
		}
		wantResult(t, e.plan(t, conc, st), vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 4})
	})
}

// TestBenignChange_OneRebuild: a secret changed between planning and its
// mutation (by a value edit, or by someone writing the desired value)
// fails the fingerprint precondition and causes exactly one full rebuild;
// the run converges.
func TestBenignChange_OneRebuild(t *testing.T) {
	for _, variant := range []string{"other value", "desired value"} {
		t.Run(variant, func(t *testing.T) {
			eachConcurrency(t, func(t *testing.T, conc int) {
				e := newEnv(t)
				for _, b := range []string{"a", "b", "c"} {
					e.seedOwned(t, b, `{"v":0}`)
				}
				st := state(doc{"a", `{"v":1}`}, doc{"b", `{"v":1}`}, doc{"c", `{"v":1}`})
				var once sync.Once
				h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
					if n == 4 { // the first precondition (3 describes observed the scope)
						once.Do(func() {
							v := `{"v":"someone"}`
							if variant == "desired value" {
								v = `{"v":1}`
							}
							e.put(t, id, v)
						})
					}
				}}
				before := e.calls(t)
				res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
				want := vocab.Counts{Update: 3}
				if variant == "desired value" {
					want = vocab.Counts{Update: 2, Unchanged: 1}
				}
				wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, want)
				if n := strings.Count(e.logs.String(), `"msg":"rebuilding plan"`); n != 1 {
					t.Fatalf("%d rebuilds, want exactly 1", n)
				}
				if got := e.calls(t)["ListSecrets"] - before["ListSecrets"]; got != 3 {
					t.Fatalf("ListSecrets calls = %d, want 3 (plan, rebuild, verification)", got)
				}
				for _, s := range st.Secrets {
					if current(e.secret(t, s.Name)) != string(s.Value) {
						t.Fatalf("%s not converged", s.Name)
					}
				}
			})
		})
	}
}

// TestSecondWriter_VerificationFailed: another writer changes the value
// before every mutation; the second needed rebuild ends the run
// verification-failed, and nothing outside the scope is touched.
func TestSecondWriter_VerificationFailed(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		foreign := e.seed(t, "team/other", aws.String(`{"x":1}`), nil, nil)
		other := e.seed(t, "app/not-ours", aws.String(`{"x":1}`), nil, nil)
		st := state(doc{"a", `{"v":1}`})
		var writes atomic.Int64
		h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
			if n > 1 { // every observation after the first: the other writer is busy
				e.put(t, id, fmt.Sprintf(`{"v":"writer-%d"}`, writes.Add(1)))
			}
		}}
		before := e.calls(t)
		res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
		if res.Status != vocab.StatusVerificationFailed || res.Verification != vocab.VerificationFailed || res.Counts.Operations() != 0 {
			t.Fatalf("result = %+v", res)
		}
		if ours := mutations(before, e.calls(t)) - writes.Load(); ours != 0 {
			t.Fatalf("the engine made %d mutating calls while another writer raced it", ours)
		}
		for _, id := range []string{foreign, other} {
			s := e.secret(t, id[strings.Index(id, ":secret:")+8:strings.LastIndex(id, "-")])
			if len(s.Versions) != 1 || s.DeletedDate != nil {
				t.Fatalf("%s was touched", s.Name)
			}
		}
	})
}

// TestSecondWriterDuringVerification_Failed: the writes land, then another
// writer keeps changing a value while verification polls: at the timeout
// the mismatch shows versions this run never saw, so verification failed
// (not inconclusive).
func TestSecondWriterDuringVerification_Failed(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`})
		var afterPut atomic.Bool
		var writes atomic.Int64
		h := &hookPort{Port: &putSpy{Port: e.port, after: func() { afterPut.Store(true) }}, beforeDesc: func(n int, id string) {
			if afterPut.Load() {
				e.put(t, id, fmt.Sprintf(`{"v":"writer-%d"}`, writes.Add(1)))
			}
		}}
		cfg := e.cfg(engine.ModeSync, conc)
		cfg.VerificationTimeout = 200 * time.Millisecond
		res := e.runPort(t, cfg, st, h)
		wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Update: 1})
	})
}

type putSpy struct {
	engine.Port
	after func()
}

func (p *putSpy) PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (engine.WriteResult, error) {
	r, err := p.Port.PutValue(ctx, id, value, kind, token)
	p.after()
	return r, err
}
