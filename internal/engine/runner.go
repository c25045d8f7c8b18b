package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// runner is one Run: what it talks to (deps) and what decides it (rules),
// both fixed by newRunner and never written afterwards (but for the
// desired values of the arrival, copied in once: values.go), and what it learns
// and does (the ledger, ledger.go, which has its own lock). A phase keeps
// its own state (its start, the pace's totals then, its progress) in local
// values and returns what it found.
type runner struct {
	deps
	rules
	ledger *ledger
	// arrival is where the desired values come from (a state loaded at
	// once is an arrival already finished, model.Arrived): want is its
	// outline until they arrive (values.go).
	arrival *model.Arrival
	// observing is the first observation while the values are awaited
	// (nil otherwise): fill shares the values it has read.
	observing atomic.Pointer[observer]
	// generated holds, by secret name, the value a create writes once keys
	// owned by AWS were generated for it (SPEC §13): every attempt of the
	// create sends the same value. Only ever sent to AWS.
	generated sync.Map
	// unconfirmed are the names the first observation took from a
	// Surveyor's listing while the desired values were still arriving:
	// prepare confirms them (confirm) once the values are whole.
	unconfirmed []string
}

// deps are what a run talks to: AWS, the log, time, randomness and the
// rate control per quota family (internal/pace), shared with the port when
// it has one: the engine takes write turns from it and reads its
// throttling counts.
type deps struct {
	port Port
	// caps are the port's optional capabilities, asked once
	// (capabilitiesOf): a write step or an observation that needs one
	// goes through it (step.needs).
	caps   capabilities
	log    *slog.Logger
	clock  Clock
	tokens TokenSource
	pacer  *pace.Controller
	// gen draws the values generated for keys owned by AWS (SPEC §13).
	gen Generator
	// discovery is how an observation shares its work between discovery
	// and the names it knows: chosen from the port (newDiscovery).
	discovery discovery
	// halt is the run's shared stop when it has several scopes (nil: one).
	halt *halt
	// scope is the scope's name (Config.Scope), "" when not given.
	scope string
}

// rules are what decides a run: the mode, the desired state (and its
// secrets by name), the planner's policy (scope digest, configured
// metadata, deletion gates: the one place each is held) and the engine's
// settings, every default resolved.
type rules struct {
	mode   Mode
	want   model.State
	byName map[string]*model.Secret
	policy plan.Policy
	// siblings are the scope digests of the configuration's other scopes
	// (Config.Siblings).
	siblings []string
	// listed is Config.Listed: how a gate's next action names the scope.
	listed string
	// replicasSetting is Config.ReplicasSetting.
	replicasSetting diag.Subject
	// adoptSetting is Config.AdoptSetting.
	adoptSetting diag.Subject
	// awsOwned is the aws-owned setting (SPEC §13) as configured; the
	// policy's Rules.AWSOwned is what it says about each desired name.
	awsOwned []model.AWSOwned

	concurrency         int
	recoveryWindowDays  int
	verificationTimeout time.Duration
	showNames           bool
	pollInterval        time.Duration
	progressInterval    time.Duration
}

// newRunner resolves cfg once: the engine-only knobs left zero get their
// defaults here and nowhere else (deps.go; the pace: Config.Pace, else the
// port's, else pace.DefaultLimits). want is the arrival's outline (the
// values arrive through awaitValues): the runner plans nothing before they
// do, and keeps its own copy of the outline's secrets to receive them.
func newRunner(cfg Config, arrival *model.Arrival, port Port, log *slog.Logger, h *halt) *runner {
	want := arrival.Outline()
	want.Secrets = slices.Clone(want.Secrets)
	caps := capabilitiesOf(port)
	d := deps{port: port, caps: caps, discovery: newDiscovery(caps), log: log, clock: cfg.Clock, tokens: cfg.Tokens, pacer: cfg.Pace, halt: h, scope: cfg.Scope}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.clock == nil {
		d.clock = SystemClock{}
	}
	if d.tokens == nil {
		d.tokens = CryptoTokens{}
	}
	d.gen = cfg.Generator
	if d.gen == nil {
		d.gen = CryptoGenerator{}
	}
	if p, ok := port.(Paced); ok && d.pacer == nil {
		d.pacer = p.Pace()
	}
	if d.pacer == nil {
		d.pacer = pace.New(d.clock, pace.DefaultLimits())
	}
	ru := rules{
		mode: cfg.Mode, want: want, byName: make(map[string]*model.Secret, len(want.Secrets)),
		policy: plan.Policy{
			Rules: plan.Rules{ScopeDigest: want.Scope.Digest(), Metadata: cfg.Metadata, Replicas: cfg.Replicas,
				Region: caps.region(), Adopt: plan.AdoptSet(cfg.Adopt), AdoptRequireMatch: cfg.AdoptRequireMatch,
				Canonical: canonical.Unbounded, AWSOwned: plan.AWSOwnedSet(want, cfg.AWSOwned),
				MaxValueBytes: want.Scope.Target.ValueLimit(cfg.ParameterTier)},
			AllowEmpty: cfg.AllowEmpty, MaxDeletions: cfg.MaxDeletions,
		},
		siblings: cfg.Siblings, listed: cfg.Listed, replicasSetting: cfg.ReplicasSetting, adoptSetting: cfg.AdoptSetting, awsOwned: cfg.AWSOwned,
		concurrency: cfg.Concurrency, recoveryWindowDays: cfg.RecoveryWindowDays,
		verificationTimeout: cfg.VerificationTimeout, showNames: cfg.ShowResourceNames,
		pollInterval: cfg.PollInterval, progressInterval: cfg.ProgressInterval,
	}
	if ru.pollInterval <= 0 {
		ru.pollInterval = DefaultPollInterval
	}
	if ru.progressInterval <= 0 {
		ru.progressInterval = DefaultProgressInterval
	}
	for i := range want.Secrets {
		ru.byName[want.Secrets[i].Name] = &want.Secrets[i]
	}
	return &runner{deps: d, rules: ru, ledger: newLedger(want, cfg.ShowResourceNames, cfg.Mode), arrival: arrival}
}

// region is the Region a Replicator's calls are signed for, the one its
// replicas are kept apart from ("" for a store without replicas).
func (c capabilities) region() string {
	if c.replicator == nil {
		return ""
	}
	return c.replicator.Region()
}

// digest is this scope's tag value (SPEC §4).
func (r *runner) digest() string { return r.policy.ScopeDigest }

func (r *runner) label(name string) string { return r.ledger.label(name) }

// phaseStart is when a phase (an observation and its plan, an apply phase,
// verification) began and the pace's totals then; its summary record logs
// the differences (summary).
type phaseStart struct {
	at    time.Time
	paced pace.Stats
}

func (r *runner) startPhase() phaseStart {
	return phaseStart{at: r.clock.Now(), paced: r.pacer.Stats()}
}

// summary appends to attrs what the phase begun at s took: its duration
// and the calls throttled and the time waited for the pace since.
func (r *runner) summary(s phaseStart, attrs ...any) []any {
	return append(append(attrs, ms(r.clock.Now().Sub(s.at))), paceAttrs(r.pacer.Stats().Sub(s.paced))...)
}

// errAttrs returns the loggable fields of a port error: the operation's
// modelled code, fault class and request id, and the IAM actions the call
// needs (vocab.IAMActions; replicas: the call added replica Regions),
// never provider text.
func errAttrs(err error, replicas ...bool) []any {
	var e *Error
	if errors.As(err, &e) {
		attrs := []any{
			slog.String(vocab.FieldErrorCode, e.Code),
			slog.String(vocab.FieldFaultClass, e.Fault),
			slog.String(vocab.FieldRequestID, e.RequestID),
		}
		if as := vocab.IAMActions(e.Operation, slices.Contains(replicas, true)); len(as) > 0 {
			attrs = append(attrs, slog.String(vocab.FieldIAMActions, strings.Join(as, ",")))
		}
		return attrs
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return []any{slog.String(vocab.FieldErrorClass, diag.Interrupted)}
	}
	return []any{slog.String(vocab.FieldErrorClass, diag.Internal)}
}

// failureOf is the failure record of class for err (a port error: its
// code and the IAM actions of its call, replicas as for errAttrs; any
// other error: neither), about no secret yet (ledger.failure names it).
func failureOf(class string, err error, replicas bool) planview.Failure {
	f := planview.Failure{Class: class}
	var e *Error
	if errors.As(err, &e) {
		f.ErrorCode, f.IAMActions = e.Code, vocab.IAMActions(e.Operation, replicas)
	}
	return f
}

func ms(d time.Duration) slog.Attr { return slog.Int64(vocab.FieldDurationMS, d.Milliseconds()) }
