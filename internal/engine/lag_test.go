package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// stalePort models read-after-write lag longer than the verification
// timeout: after a successful PutValue on a secret, Describe and value
// reads of that secret keep answering what they answered just before the
// write. It decorates the real adapter; the write itself reaches the
// emulator.
type stalePort struct {
	engine.Port
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
	engine.Port
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
