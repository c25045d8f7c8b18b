package engine

import (
	"errors"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Paced is implemented by a Port that paces its own calls (internal/awssm):
// the engine then takes its write turns from the same controller, so every
// worker of the run shares one limit per quota family.
type Paced interface {
	Pace() *pace.Controller
}

// newPacer returns the run's rate control: Config.Pace, else the port's,
// else a new one on the engine's clock. Non-zero WritesPerSecond and
// BatchReadsPerSecond replace those families' ceilings (< 0: none).
func newPacer(cfg Config, port Port, clock Clock) *pace.Controller {
	c := cfg.Pace
	if c == nil {
		if p, ok := port.(Paced); ok {
			c = p.Pace()
		}
	}
	if c == nil {
		c = pace.New(clock, pace.DefaultLimits())
	}
	if cfg.WritesPerSecond != 0 {
		c.SetCeiling(pace.Writes, cfg.WritesPerSecond)
	}
	if cfg.BatchReadsPerSecond != 0 {
		c.SetCeiling(pace.Batches, cfg.BatchReadsPerSecond)
	}
	return c
}

// isThrottled: the quota refused the call; it was not executed.
func isThrottled(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Throttled
}

// settle reports a write's outcome to the pace: a throttle cuts the
// writes limit; an answer (success, or an error the service returned)
// counts as admitted; a call without an answer counts as neither.
func (r *runner) settle(turn pace.Turn, err error) {
	var e *Error
	switch {
	case err == nil:
		r.pacer.Succeeded(turn)
	case !errors.As(err, &e):
	case e.Throttled:
		r.pacer.Throttled(turn)
	case !e.Ambiguous && e.RequestID != "":
		r.pacer.Succeeded(turn)
	}
}

// paceAttrs are the throttling counts of a phase, for its summary record.
func paceAttrs(s pace.Stats) []any {
	return []any{slog.Int64(vocab.FieldThrottled, s.Throttled), slog.Int64(vocab.FieldWaitMS, s.Waited.Milliseconds())}
}

// withPace appends the throttling counts since before to attrs.
func (r *runner) withPace(before pace.Stats, attrs ...any) []any {
	return append(attrs, paceAttrs(r.pacer.Stats().Sub(before))...)
}
