package awscore

import (
	"context"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
)

// Calls makes one adapter's calls to its service: each under the
// operation timeout, each error converted under the service's codes
// (ConvertError), reads paced and resent while throttled (Read). The zero
// Timeout means no per-call bound; Pace must be set before Read is used.
// A Calls is a value: safe for concurrent use as long as nobody changes
// it.
type Calls struct {
	// Timeout bounds each call, SDK retries included (--operation-timeout,
	// SPEC §2.1). 0 means no per-call bound.
	Timeout time.Duration
	// Pace is the rate control the reads wait on (internal/pace): the
	// adapter's, shared with the engine (engine.Paced).
	Pace *pace.Controller
	// Codes are the service's (ConvertError).
	Codes Codes
}

// Bound returns the context of one call: ctx bounded by Timeout. The
// caller cancels it when the call returns.
func (c Calls) Bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.Timeout > 0 {
		return context.WithTimeout(ctx, c.Timeout)
	}
	return context.WithCancel(ctx)
}

// Convert is ConvertError of err under the service's codes; parent is the
// run's context (not the call's, Bound).
func (c Calls) Convert(parent context.Context, op string, err error) error {
	return ConvertError(parent, op, err, c.Codes)
}

// Read runs one read call of family f until it is answered with anything
// but a throttle: each attempt waits for a turn (under the run's ctx, not
// the operation timeout) and runs under its own timeout (Bound). A
// throttle cuts the family's rate, an answer (IsAnswer) raises it, a call
// that got no answer leaves it. It returns the converted error of the
// last attempt, or ctx's error when the wait for a turn ends with ctx.
func (c Calls) Read(ctx context.Context, f pace.Family, op string, call func(ctx context.Context) error) error {
	for {
		turn, err := c.Pace.Wait(ctx, f)
		if err != nil {
			return err
		}
		cctx, cancel := c.Bound(ctx)
		err = c.Convert(ctx, op, call(cctx))
		cancel()
		switch {
		case IsThrottled(err):
			c.Pace.Throttled(turn)
			continue
		case err == nil || IsAnswer(err):
			c.Pace.Succeeded(turn)
		}
		return err
	}
}
