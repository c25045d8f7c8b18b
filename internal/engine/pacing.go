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
