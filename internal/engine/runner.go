package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// runner holds the state of one Run. Its fields are set by newRunner and
// then only read; what the run learns and does while workers run
// concurrently is in ledger (ledger.go), which has its own lock.
type runner struct {
	cfg    Config
	want   model.State
	digest string
	// rules and policy are what plan.Classify and plan.Build take from the
	// configuration (scope digest, metadata, deletion gates).
	rules  plan.Rules
	policy plan.Policy
	byName map[string]*model.Secret
	port   Port
	log    *slog.Logger
	clock  Clock
	tokens TokenSource
	// pacer is the run's rate control per quota family, shared with the
	// port when it has one (internal/pace): the engine takes write turns
	// from it and reads its throttling counts.
	pacer *pace.Controller
	// phaseBase is the pace's totals when the current observation or
	// verification phase began (its summary logs the difference).
	phaseBase pace.Stats

	// ledger is the run's record: labels, ARNs, applied operations, touched
	// names, known versions, late conflicts; every Result is built from it.
	ledger *ledger
	// warnOutside logs the out-of-prefix candidates warning once per run.
	warnOutside sync.Once
	// orphansChecked: the first observation has listed every managed
	// secret and looked for orphans (once per run, issue 14).
	orphansChecked atomic.Bool
}

func newRunner(cfg Config, want model.State, port Port, log *slog.Logger) *runner {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &runner{
		cfg: cfg, want: want, digest: want.Scope.Digest(), port: port, log: log,
		rules:  plan.Rules{ScopeDigest: want.Scope.Digest(), Metadata: cfg.Metadata},
		policy: plan.Policy{Metadata: cfg.Metadata, AllowEmpty: cfg.AllowEmpty, MaxDeletions: cfg.MaxDeletions},
		clock:  cfg.Clock, tokens: cfg.Tokens,
		byName: make(map[string]*model.Secret, len(want.Secrets)),
		ledger: newLedger(want, cfg.ShowResourceNames, cfg.Mode),
	}
	if r.clock == nil {
		r.clock = SystemClock{}
	}
	if r.tokens == nil {
		r.tokens = CryptoTokens{}
	}
	r.pacer = newPacer(cfg, port, r.clock)
	for i := range want.Secrets {
		r.byName[want.Secrets[i].Name] = &want.Secrets[i]
	}
	return r
}

func (r *runner) label(name string) string { return r.ledger.label(name) }

// errAttrs returns the loggable fields of a port error: the operation's
// modelled code, fault class and request id, never provider text.
func errAttrs(err error) []any {
	var e *Error
	if errors.As(err, &e) {
		return []any{
			slog.String(vocab.FieldErrorCode, e.Code),
			slog.String(vocab.FieldFaultClass, e.Fault),
			slog.String(vocab.FieldRequestID, e.RequestID),
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return []any{slog.String(vocab.FieldErrorClass, diag.Interrupted)}
	}
	return []any{slog.String(vocab.FieldErrorClass, diag.Internal)}
}

func ms(d time.Duration) slog.Attr { return slog.Int64(vocab.FieldDurationMS, d.Milliseconds()) }
