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
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
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
	Port
	after func()
}

func (p *putSpy) PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (engine.WriteResult, error) {
	r, err := p.Port.PutValue(ctx, id, value, kind, token)
	p.after()
	return r, err
}

// stalePort models read-after-write lag longer than the verification
// timeout: after a successful PutValue on a secret, Describe and value
// reads of that secret keep answering what they answered just before the
// write. It decorates the real adapter; the write itself reaches the
// emulator.
type stalePort struct {
	Port
	mu     sync.Mutex
	desc   map[string]plan.ObservedSecret
	values map[string]plan.CurrentValue
	frozen map[string]bool
}

func (s *stalePort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	s.mu.Lock()
	if s.frozen[id] {
		defer s.mu.Unlock()
		return s.desc[id], nil
	}
	s.mu.Unlock()
	o, err := s.Port.Describe(ctx, id)
	s.mu.Lock()
	s.desc[id] = o
	s.mu.Unlock()
	return o, err
}

func (s *stalePort) GetCurrentValues(ctx context.Context, reqs []engine.ValueRequest) ([]plan.CurrentValue, error) {
	s.mu.Lock()
	if len(reqs) == 1 && s.frozen[reqs[0].ID] {
		defer s.mu.Unlock()
		return []plan.CurrentValue{s.values[reqs[0].ID]}, nil
	}
	s.mu.Unlock()
	vs, err := s.Port.GetCurrentValues(ctx, reqs)
	s.mu.Lock()
	for i, r := range reqs {
		if err == nil {
			s.values[r.ID] = vs[i]
		}
	}
	s.mu.Unlock()
	return vs, err
}

func (s *stalePort) PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (engine.WriteResult, error) {
	r, err := s.Port.PutValue(ctx, id, value, kind, token)
	if err == nil {
		s.mu.Lock()
		s.frozen[id] = true
		s.mu.Unlock()
	}
	return r, err
}

// TestVerificationInconclusive_OnPropagationLag: the write landed but
// direct reads still show the version this run planned from until the
// verification timeout: the result is inconclusive, not failed.
func TestVerificationInconclusive_OnPropagationLag(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`})
		p := &stalePort{Port: e.port, desc: map[string]plan.ObservedSecret{}, values: map[string]plan.CurrentValue{}, frozen: map[string]bool{}}
		cfg := e.cfg(engine.ModeSync, conc)
		cfg.VerificationTimeout = 150 * time.Millisecond
		wantResult(t, e.runPort(t, cfg, st, p), vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, vocab.Counts{Update: 1})
		if current(e.secret(t, nameOf("a"))) != `{"v":1}` {
			t.Fatal("the write should have landed")
		}
		// Once the lag is over, a plain re-run proves convergence.
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 1})
	})
}

// restoreLagPort: after a successful Restore, the next few Describes of
// that secret still show it scheduled for deletion (read-after-write lag).
type restoreLagPort struct {
	Port
	mu    sync.Mutex
	stale map[string]int
}

func (p *restoreLagPort) Restore(ctx context.Context, id string) error {
	err := p.Port.Restore(ctx, id)
	if err == nil {
		p.mu.Lock()
		p.stale[id] = 3
		p.mu.Unlock()
	}
	return err
}

func (p *restoreLagPort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	o, err := p.Port.Describe(ctx, id)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil && o.Exists && p.stale[id] > 0 {
		p.stale[id]--
		o.Deleted = true
	}
	return o, err
}

// TestRestoreFollowUp_WaitsForTheRestoreToShow: the follow-up update is
// decided only once the restore is visible (polled on the verification
// interval), and exactly one is made.
func TestRestoreFollowUp_WaitsForTheRestoreToShow(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.del(t, e.seedOwned(t, "back", `{"v":0}`))
		st := state(doc{"back", `{"v":1}`})
		p := &restoreLagPort{Port: e.port, stale: map[string]int{}}
		before := e.calls(t)
		wantResult(t, e.runPort(t, e.cfg(engine.ModeSync, conc), st, p), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Restore: 1, Update: 1})
		if got := e.calls(t)["PutSecretValue"] - before["PutSecretValue"]; got != 1 {
			t.Fatalf("PutSecretValue calls = %d, want exactly one follow-up", got)
		}
	})
}

// stepClock is a deterministic Clock: After advances time by d at once.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	c.mu.Unlock()
	return ch
}

// TestVerification_FixedPollBoundedByTimeout: with an injected clock the
// verification polls exactly timeout/interval + 1 times before giving its
// verdict.
func TestVerification_FixedPollBoundedByTimeout(t *testing.T) {
	e := newEnv(t)
	e.seedOwned(t, "a", `{"v":0}`)
	p := &stalePort{Port: e.port, desc: map[string]plan.ObservedSecret{}, values: map[string]plan.CurrentValue{}, frozen: map[string]bool{}}
	cfg := e.cfg(engine.ModeSync, 1)
	cfg.Clock = &stepClock{now: time.Unix(1_700_000_000, 0)}
	cfg.PollInterval, cfg.VerificationTimeout = 250*time.Millisecond, 2*time.Second
	before := e.calls(t)
	wantResult(t, e.runPort(t, cfg, state(doc{"a", `{"v":1}`}), p), vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, vocab.Counts{Update: 1})
	if !strings.Contains(e.logs.String(), `"verification":"inconclusive","count":9,"duration_ms":2000`) {
		t.Fatalf("want 9 rounds over 2 s:\n%s", e.logs.String())
	}
	if got := e.calls(t)["ListSecrets"] - before["ListSecrets"]; got != 10 {
		t.Fatalf("ListSecrets calls = %d, want 1 (plan) + 9 (verification rounds)", got)
	}
}

// TestVerification_AnotherWritersValueAtTheDeadlineFails: a value that is
// neither the commit's nor the one planning saw (another writer's, right
// after this run's put) still showing when every verification round has
// completed and the clock passed the timeout is a real mismatch: failed,
// with the resource named (verify:not-converged), never the inconclusive
// of lag. The rounds run on an injected clock, so the deadline is met
// between two rounds, never mid-observation.
func TestVerification_AnotherWritersValueAtTheDeadlineFails(t *testing.T) {
	e := newEnv(t)
	e.seedOwned(t, "a", `{"v":0}`)
	var once sync.Once
	spy := &putSpy{Port: e.port, after: func() { once.Do(func() { e.put(t, nameOf("a"), `{"v":"writer"}`) }) }}
	cfg := e.cfg(engine.ModeSync, 1)
	cfg.Clock = &stepClock{now: time.Unix(1_700_000_000, 0)}
	cfg.PollInterval, cfg.VerificationTimeout = 250*time.Millisecond, time.Second
	res := e.runPort(t, cfg, state(doc{"a", `{"v":1}`}), spy)
	wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Update: 1})
	if !strings.Contains(e.logs.String(), `"error_class":"verify:not-converged"`) {
		t.Errorf("no record names the resource:\n%s", e.logs)
	}
}

// TestVerificationTimeoutBoundsFirstObservation: --verification-timeout
// bounds the whole verification, its first observation included. With
// every call taking at least 200 ms and a 50 ms timeout, the first
// verification round cannot finish in time, so the outcome is
// inconclusive, never a "converged" proven after the deadline (SPEC §6).
// Deterministic: it relies only on the emulator's latency lower bound.
func TestVerificationTimeoutBoundsFirstObservation(t *testing.T) {
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{Seed: 1, LatencyMS: 200})
	cfg := e.cfg(engine.ModeSync, config.DefaultConcurrency)
	cfg.VerificationTimeout = 50 * time.Millisecond
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

// waitClock is a stepClock that records every wait asked of it; a wait of
// zero or less still moves time by a second, so a run that asks for one
// ends (and the test sees what it asked).
type waitClock struct {
	stepClock
	asked []time.Duration
}

func (c *waitClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	c.asked = append(c.asked, d)
	c.mu.Unlock()
	if d <= 0 {
		d = time.Second
	}
	return c.stepClock.After(d)
}

// TestVerification_PollIntervalZeroIsTheDefault: Config.PollInterval 0
// polls every DefaultPollInterval (250 ms, SPEC §6); a set interval is
// used as it is.
func TestVerification_PollIntervalZeroIsTheDefault(t *testing.T) {
	for _, c := range []struct {
		set, want time.Duration
	}{{0, engine.DefaultPollInterval}, {100 * time.Millisecond, 100 * time.Millisecond}} {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		p := &stalePort{Port: e.port, desc: map[string]plan.ObservedSecret{}, values: map[string]plan.CurrentValue{}, frozen: map[string]bool{}}
		cfg := e.cfg(engine.ModeSync, 1)
		clock := &waitClock{stepClock: stepClock{now: time.Unix(1_700_000_000, 0)}}
		cfg.Clock = clock
		cfg.PollInterval, cfg.VerificationTimeout = c.set, time.Second
		wantResult(t, e.runPort(t, cfg, state(doc{"a", `{"v":1}`}), p), vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, vocab.Counts{Update: 1})
		if len(clock.asked) == 0 {
			t.Fatalf("PollInterval %v: verification never waited", c.set)
		}
		for _, d := range clock.asked {
			if d != c.want {
				t.Fatalf("PollInterval %v: waits %v, want each %v", c.set, clock.asked, c.want)
			}
		}
	}
}

// TestListLag_ListedARNGoneIsDescribedByName: the listing (5 s behind)
// still shows a secret of the scope that no document names, which was
// then deleted for good and made again under the same name (a new ARN).
// Describing the listed ARN finds nothing, so the name is described: the
// secret made again is found and planned for deletion like any orphan,
// not taken as gone.
func TestListLag_ListedARNGoneIsDescribedByName(t *testing.T) {
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{ListLagMS: 5000})
	e.seedOwned(t, "a", `{"v":1}`)
	old := e.seedOwned(t, "orphan", `{"v":1}`)
	e.srv.AdvanceClock(t, 6*time.Second) // the seeds are old enough to be listed
	if _, err := e.client.DeleteSecret(context.Background(), &secretsmanager.DeleteSecretInput{
		SecretId: aws.String(old), ForceDeleteWithoutRecovery: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if again := e.seedOwned(t, "orphan", `{"v":2}`); again == old {
		t.Fatalf("the secret made again has the old ARN %s", old)
	}
	wantResult(t, e.plan(t, 2, state(doc{"a", `{"v":1}`})), vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Unchanged: 1, ScheduleDelete: 1})
}

// TestPreconditionFailsWhenTheNameOfAGoneSecretCannotBeDescribed: between
// planning and the write, the planned secret is deleted for good and made
// again under its name (a new ARN); the precondition finds the planned ARN
// gone and describes the name, and that describe is refused (access
// denied). The operation fails closed: nothing is written to the secret
// made again.
func TestPreconditionFailsWhenTheNameOfAGoneSecretCannotBeDescribed(t *testing.T) {
	e := newEnv(t)
	e.seedOwned(t, "a", `{"v":0}`)
	var once sync.Once
	h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
		if n == 2 { // the precondition, by the ARN the plan observed
			once.Do(func() {
				if _, err := e.client.DeleteSecret(context.Background(), &secretsmanager.DeleteSecretInput{
					SecretId: aws.String(id), ForceDeleteWithoutRecovery: aws.Bool(true)}); err != nil {
					t.Error(err)
				}
				e.seedOwned(t, "a", `{"v":0}`)
				// DescribeSecret 1 is the planned ARN's (gone), 2 the name's.
				e.srv.SetFaults(t, emulator.Faults{Script: script("DescribeSecret", "error:AccessDeniedException", 2)})
			})
		}
	}}
	before := e.calls(t)
	res := e.runPort(t, e.cfg(engine.ModeSync, 1), state(doc{"a", `{"v":1}`}), h)
	if res.Status != vocab.StatusApplyFailed {
		t.Fatalf("result = %+v, want %s", res, vocab.StatusApplyFailed)
	}
	// The only mutating calls are the other actor's delete and create.
	if n := mutations(before, e.calls(t)); n != 2 {
		t.Fatalf("%d mutating calls, want only the other actor's 2", n)
	}
	if v := current(e.secret(t, nameOf("a"))); v != `{"v":0}` {
		t.Fatalf("app/a holds %q, want the value of the secret made again", v)
	}
}
