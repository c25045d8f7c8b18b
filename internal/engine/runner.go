package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// runner holds the state of one Run. Fields under mu are written by
// concurrent workers.
type runner struct {
	cfg    Config
	want   model.State
	digest string
	byName map[string]*model.Secret
	port   Port
	log    *slog.Logger
	clock  Clock
	tokens TokenSource
	pace   *rate.Limiter // mutations (WritesPerSecond)
	// readPace paces value batches (BatchReadsPerSecond); nil = unpaced.
	readPace *rate.Limiter

	mu sync.Mutex
	// labels maps names to log labels (resource-NNNN); nextOrdinal is the
	// next ordinal for a name that is not desired.
	labels      map[string]string
	nextOrdinal int
	// arns are the ARNs learned this run, by name.
	arns map[string]string
	// touched are the names an accepted operation changed; known holds, per
	// name, the current version ids seen at planning and the versions this
	// run wrote (to tell propagation lag from a second writer).
	touched map[string]bool
	known   map[string]map[string]bool
	// applied are the operations that took effect, in completion order.
	applied []plan.Operation
	// lateConflicts counts conflicts found by preconditions and follow-ups.
	lateConflicts int
	// warnedOutside: the out-of-prefix candidates warning was logged.
	warnedOutside bool
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
		clock: cfg.Clock, tokens: cfg.Tokens,
		byName: make(map[string]*model.Secret, len(want.Secrets)),
		labels: map[string]string{}, arns: map[string]string{},
		touched: map[string]bool{}, known: map[string]map[string]bool{},
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
	maxOrdinal := 0
	for i := range want.Secrets {
		s := &want.Secrets[i]
		r.byName[s.Name] = s
		r.labels[s.Name] = r.labelFor(s.Name, s.Ordinal)
		maxOrdinal = max(maxOrdinal, s.Ordinal)
	}
	r.nextOrdinal = maxOrdinal + 1
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

func (r *runner) labelFor(name string, ordinal int) string {
	return model.Redaction{ShowNames: r.cfg.ShowResourceNames}.Label(ordinal, name)
}

// labelNew gives names that are not desired ordinals continuing after the
// largest document ordinal, in name order per observation (SPEC §7.3).
func (r *runner) labelNew(names []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var fresh []string
	for _, n := range names {
		if _, ok := r.labels[n]; !ok {
			fresh = append(fresh, n)
		}
	}
	slices.Sort(fresh)
	for _, n := range slices.Compact(fresh) {
		r.labels[n] = r.labelFor(n, r.nextOrdinal)
		r.nextOrdinal++
	}
}

func (r *runner) label(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if l, ok := r.labels[name]; ok {
		return l
	}
	l := r.labelFor(name, r.nextOrdinal)
	r.nextOrdinal++
	r.labels[name] = l
	return l
}

func (r *runner) arnOf(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.arns[name]
}

func (r *runner) learnARN(name, arn string) {
	if arn == "" {
		return
	}
	r.mu.Lock()
	r.arns[name] = arn
	r.mu.Unlock()
}

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
