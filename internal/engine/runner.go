package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
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
	pace   *rate.Limiter // mutations (WritesPerSecond)
	// readPace paces value batches (BatchReadsPerSecond); nil = unpaced.
	readPace *rate.Limiter

	// ledger is the run's record: labels, ARNs, applied operations, touched
	// names, known versions, late conflicts; every Result is built from it.
	ledger *ledger
	// warnOutside logs the out-of-prefix candidates warning once per run.
	warnOutside sync.Once
}

func newRunner(cfg Config, want model.State, port Port, log *slog.Logger) *runner {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.WritesPerSecond == 0 {
		cfg.WritesPerSecond = DefaultWritesPerSecond
	}
	if cfg.BatchReadsPerSecond == 0 {
		cfg.BatchReadsPerSecond = DefaultBatchReadsPerSecond
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
	if cfg.WritesPerSecond > 0 {
		r.pace = rate.NewLimiter(rate.Limit(cfg.WritesPerSecond), 1)
	}
	if cfg.BatchReadsPerSecond > 0 {
		r.readPace = rate.NewLimiter(rate.Limit(cfg.BatchReadsPerSecond), max(1, int(cfg.BatchReadsPerSecond/8)))
	}
	for i := range want.Secrets {
		r.byName[want.Secrets[i].Name] = &want.Secrets[i]
	}
	return r
}

// waitBatchPace waits for the value-batch pace (BatchReadsPerSecond),
// measured on the runner's clock. It returns ctx.Err() if the run is
// cancelled first, and errStopped (giving the token back) if stopped()
// reports that the observation has already failed; rate.Limiter.Wait is not
// used because it also fails early when the wait outlasts ctx's deadline,
// which is not a cancellation.
func (r *runner) waitBatchPace(ctx context.Context, stopped func() bool) error {
	if r.readPace == nil {
		return nil
	}
	now := r.clock.Now()
	res := r.readPace.ReserveN(now, 1)
	d := res.DelayFrom(now)
	if d > 0 {
		select {
		case <-r.clock.After(d):
		case <-ctx.Done():
			res.CancelAt(r.clock.Now())
			return ctx.Err()
		}
	}
	if stopped() {
		res.CancelAt(r.clock.Now())
		return errStopped
	}
	return nil
}

// errStopped: the observation failed elsewhere; its first error is kept.
var errStopped = errors.New("observation stopped")

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
