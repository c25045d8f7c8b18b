package engine_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// stepCase is one row of the write protocol (internal/engine/steps.go)
// made reachable: an emulator prepared so that a sync's only call of op is
// that step's, the configuration and desired state of that sync, and what
// the row allows after an unclear outcome.
type stepCase struct {
	step string // the row under test
	op   string // the AWS operation it calls
	// resend: an unclear outcome that a re-observation does not show done
	// is resent once (a token, or an idempotent call); else it fails closed.
	resend bool
	// first: the step is the operation's first call, so a throttle goes
	// back to a new precondition (one more describe per throttle).
	first  bool
	counts vocab.Counts // what a converged sync counts
	setup  func(t *testing.T, e *env) (engine.Config, model.State)
}

var stepCases = []stepCase{
	{step: "create", op: "CreateSecret", resend: true, first: true, counts: vocab.Counts{Create: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			return e.cfg(engine.ModeSync, 1), state(doc{"x", `{"v":1}`})
		}},
	{step: "put value", op: "PutSecretValue", resend: true, first: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":0}`)
			return e.cfg(engine.ModeSync, 1), state(doc{"x", `{"v":1}`})
		}},
	// The value as the first of several calls: once it landed, a
	// re-observation shows only the metadata left to do (valueThere).
	{step: "put value before metadata", op: "PutSecretValue", resend: true, first: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":0}`)
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Description: "payments"}
			return cfg, state(doc{"x", `{"v":1}`})
		}},
	{step: "adoption tags", op: "TagResource", resend: true, first: true, counts: vocab.Counts{Adopt: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seed(t, nameOf("x"), aws.String(`{"v":1}`), nil, nil)
			return e.adoptCfg(engine.ModeSync, 1, false, "x"), state(doc{"x", `{"v":1}`})
		}},
	{step: "metadata", op: "UpdateSecret", resend: true, first: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":1}`)
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Description: "payments"}
			return cfg, state(doc{"x", `{"v":1}`})
		}},
	{step: "configured tags", op: "TagResource", resend: true, first: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":1}`)
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Tags: map[string]string{"team": "payments"}}
			return cfg, state(doc{"x", `{"v":1}`})
		}},
	{step: "replicate", op: "ReplicateSecretToRegions", first: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":1}`)
			return e.replicaCfg(engine.ModeSync, 1, []model.Replica{{Region: "eu-west-1"}}), state(doc{"x", `{"v":1}`})
		}},
	{step: "remove replicas", op: "RemoveRegionsFromReplication", first: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			st := state(doc{"x", `{"v":1}`})
			wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 1, twoReplicas), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
			return e.replicaCfg(engine.ModeSync, 1, twoReplicas[:1]), st
		}},
	{step: "restore", op: "RestoreSecret", first: true, counts: vocab.Counts{Restore: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.del(t, e.seedOwned(t, "x", `{"v":1}`))
			return e.cfg(engine.ModeSync, 1), state(doc{"x", `{"v":1}`})
		}},
	{step: "schedule delete", op: "DeleteSecret", first: true, counts: vocab.Counts{ScheduleDelete: 1, Unchanged: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "keep", `{}`)
			e.seedOwned(t, "x", `{"v":1}`)
			return e.cfg(engine.ModeSync, 1), state(doc{"keep", `{}`})
		}},
	{step: "put value after adoption tags", op: "PutSecretValue", resend: true, counts: vocab.Counts{Adopt: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seed(t, nameOf("x"), aws.String(`{"v":0}`), nil, nil)
			return e.adoptCfg(engine.ModeSync, 1, false, "x"), state(doc{"x", `{"v":1}`})
		}},
	{step: "metadata after put value", op: "UpdateSecret", resend: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":0}`)
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Description: "payments"}
			return cfg, state(doc{"x", `{"v":1}`})
		}},
	{step: "configured tags after metadata", op: "TagResource", resend: true, counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			e.seedOwned(t, "x", `{"v":1}`)
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Metadata = model.Metadata{Description: "payments", Tags: map[string]string{"team": "payments"}}
			return cfg, state(doc{"x", `{"v":1}`})
		}},
	{step: "remove replicas after replicate", op: "RemoveRegionsFromReplication", counts: vocab.Counts{Update: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			st := state(doc{"x", `{"v":1}`})
			wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 1, twoReplicas), st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
			return e.replicaCfg(engine.ModeSync, 1, []model.Replica{{Region: "ap-south-1"}, {Region: "eu-west-1"}}), st
		}},
	{step: "schedule delete after removing replicas", op: "DeleteSecret", counts: vocab.Counts{ScheduleDelete: 1, Unchanged: 1},
		setup: func(t *testing.T, e *env) (engine.Config, model.State) {
			both := state(doc{"keep", `{}`}, doc{"x", `{"v":1}`})
			wantResult(t, e.run(t, e.replicaCfg(engine.ModeSync, 1, twoReplicas), both), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
			return e.replicaCfg(engine.ModeSync, 1, twoReplicas), state(doc{"keep", `{}`})
		}},
}

// driverBranch is one branch of the driver (execute/judge): a fault on
// the step's first call and what the sync then reaches.
type driverBranch struct {
	name  string
	fault string // scripted fault of the step's first call ("" = cancel the run at it)
	// want returns the status and the calls of the step's operation the
	// sync makes (SDK retries off), given the row.
	want func(c stepCase) (vocab.Status, int64)
}

var driverBranches = []driverBranch{
	// Not executed: resent (after a new precondition while it is the
	// operation's first call), and the run converges.
	{"throttled", "error:ThrottlingException:Rate exceeded", func(stepCase) (vocab.Status, int64) { return vocab.StatusConverged, 2 }},
	// Landed but unanswered: the re-observation proves it; never resent.
	{"ambiguous, landed", "ambiguous-after-apply", func(stepCase) (vocab.Status, int64) { return vocab.StatusConverged, 1 }},
	// Not landed: resent once when the row allows it, else fail closed.
	{"ambiguous, not landed", "ambiguous-before-apply", func(c stepCase) (vocab.Status, int64) {
		if c.resend {
			return vocab.StatusConverged, 2
		}
		return vocab.StatusApplyFailed, 1
	}},
	// A clean refusal: failed closed, never resent.
	{"failed", "error:InvalidParameterException", func(stepCase) (vocab.Status, int64) { return vocab.StatusApplyFailed, 1 }},
	// The name is taken: for a create, a re-observation that still shows
	// none is a second writer (verification-failed); for any other call a
	// plain failure.
	{"already exists", "error:ResourceExistsException", func(c stepCase) (vocab.Status, int64) {
		if c.op == "CreateSecret" {
			return vocab.StatusVerificationFailed, 1
		}
		return vocab.StatusApplyFailed, 1
	}},
	// The run is cancelled as the call goes out.
	{"interrupted", "", func(stepCase) (vocab.Status, int64) { return vocab.StatusInterrupted, 0 }},
}

// TestDriver_EveryBranchOfEveryStep is the write protocol of SPEC §6 as a
// table: every row of the protocol (each step, as the first call of its
// operation and as a later one) against every branch of the one driver,
// with the real SDK (retries off) against the emulator's scripted faults.
// A run that did not converge leaves nothing the next run cannot finish:
// it converges with the same counts a clean run would have.
func TestDriver_EveryBranchOfEveryStep(t *testing.T) {
	for _, c := range stepCases {
		t.Run(c.step, func(t *testing.T) {
			for _, b := range driverBranches {
				t.Run(b.name, func(t *testing.T) {
					t.Parallel()
					driverCase(t, c, b)
				})
			}
		})
	}
}

func driverCase(t *testing.T, c stepCase, b driverBranch) {
	e := newEnv(t, noSDKRetry)
	e.port = steppedAdapter(e.client) // the turn after a throttle's cut passes at once
	cfg, st := c.setup(t, e)
	wantStatus, wantCalls := b.want(c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	port := &tracePort{Port: e.port}
	if b.fault == "" {
		port.cancelAt, port.cancel = c.op, cancel
	} else {
		e.srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: c.op, Nth: e.calls(t)[c.op] + 1, Fault: b.fault}}})
	}
	before := e.calls(t)
	tokens := &countingTokens{}
	cfg.Tokens = tokens
	res := engine.Run(ctx, cfg, model.Arrived(st), port, nil)
	after := e.calls(t)
	if res.Status != wantStatus {
		t.Fatalf("status %s, want %s (%+v)", res.Status, wantStatus, res)
	}
	if got := after[c.op] - before[c.op]; got != wantCalls {
		t.Errorf("%s calls = %d, want %d", c.op, got, wantCalls)
	}
	if wantStatus == vocab.StatusConverged && (res.Counts != c.counts || res.Verification != vocab.VerificationConverged) {
		t.Errorf("result %+v, want counts %+v, verified", res, c.counts)
	}
	if b.name == "throttled" {
		// A throttled first call goes back to a new precondition (a
		// describe before the resend); a later call of an operation that
		// already took effect is resent after a new turn alone.
		if got := port.between(c.op); got != c.first {
			t.Errorf("a describe between the throttled %s and its resend: %v, want %v (trace %v)", c.op, got, c.first, port.trace)
		}
	}
	if n := tokens.n.Load(); n > 1 {
		t.Errorf("%d tokens minted for one logical write", n)
	}
	e.srv.SetFaults(t, emulator.Faults{})
	next := e.run(t, cfg, st)
	if next.Status != vocab.StatusConverged || next.Verification != vocab.VerificationConverged {
		t.Fatalf("the next run: %+v", next)
	}
	if wantStatus == vocab.StatusConverged && next.Counts.Operations() != 0 {
		t.Errorf("the next run after a converged one applied %+v", next.Counts)
	}
}

// tracePort records the order of the describes and writes a run makes
// (AWS operation names), and cancels the run as the first call of
// cancelAt goes out (the call then returns the context's error): a signal
// arriving mid-write.
type tracePort struct {
	Port
	mu       sync.Mutex
	trace    []string
	cancelAt string
	cancel   context.CancelFunc
}

func (p *tracePort) at(op string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trace = append(p.trace, op)
	if op == p.cancelAt && p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
}

// between reports whether a describe came between the first two calls of
// op.
func (p *tracePort) between(op string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	first := slices.Index(p.trace, op)
	if first < 0 {
		return false
	}
	rest := p.trace[first+1:]
	second := slices.Index(rest, op)
	return second > 0 && slices.Contains(rest[:second], "DescribeSecret")
}

func (p *tracePort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	p.at("DescribeSecret")
	return p.Port.Describe(ctx, id)
}

func (p *tracePort) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	p.at("CreateSecret")
	return p.Port.Create(ctx, req)
}

func (p *tracePort) PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (engine.WriteResult, error) {
	p.at("PutSecretValue")
	return p.Port.PutValue(ctx, id, value, kind, token)
}

func (p *tracePort) Delete(ctx context.Context, id string, days int) error {
	p.at("DeleteSecret")
	return p.Port.Delete(ctx, id, days)
}

func (p *tracePort) Restore(ctx context.Context, id string) error {
	p.at("RestoreSecret")
	return p.Port.Restore(ctx, id)
}

func (p *tracePort) UpdateMetadata(ctx context.Context, id string, kms, desc *string) error {
	p.at("UpdateSecret")
	return p.Port.UpdateMetadata(ctx, id, kms, desc)
}

func (p *tracePort) Tag(ctx context.Context, id string, tags map[string]string) error {
	p.at("TagResource")
	return p.Port.Tag(ctx, id, tags)
}

func (p *tracePort) Replicate(ctx context.Context, id string, replicas []model.Replica) error {
	p.at("ReplicateSecretToRegions")
	return p.Port.Replicate(ctx, id, replicas)
}

func (p *tracePort) RemoveReplicas(ctx context.Context, id string, regions []string) error {
	p.at("RemoveRegionsFromReplication")
	return p.Port.RemoveReplicas(ctx, id, regions)
}

// TestDriver_StepsObservedDoneAreSkipped: after an unclear outcome the
// re-observation tells where the operation resumes: a later step that it
// already shows done (here the description, set by hand meanwhile) is not
// called, and the operation is accepted.
func TestDriver_StepsObservedDoneAreSkipped(t *testing.T) {
	e := newEnv(t, noSDKRetry)
	arn := e.seedOwned(t, "x", `{"v":0}`)
	cfg := e.cfg(engine.ModeSync, 1)
	cfg.Metadata = model.Metadata{Description: "payments"}
	e.srv.SetFaults(t, emulator.Faults{Script: script("PutSecretValue", "ambiguous-after-apply", 1)})
	var once bool
	hp := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
		if !once && e.calls(t)["PutSecretValue"] > 0 { // the re-observation
			once = true
			if _, err := e.client.UpdateSecret(context.Background(), &secretsmanager.UpdateSecretInput{SecretId: aws.String(arn), Description: aws.String("payments")}); err != nil {
				t.Errorf("description by hand: %v", err)
			}
		}
	}}
	before := e.calls(t)
	wantResult(t, e.runPort(t, cfg, state(doc{"x", `{"v":1}`}), hp), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1})
	if got := e.calls(t)["UpdateSecret"] - before["UpdateSecret"]; got != 1 {
		t.Errorf("UpdateSecret calls = %d, want only the one by hand", got)
	}
}
