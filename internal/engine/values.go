package engine

import (
	"bytes"
	"context"
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// awaitValues starts waiting for r.arrival and returns the end of the
// wait: nil once the arrival is finished with every value, copied into
// r.want (fill); the arrival's error once it is rejected, after stop is
// called (so the observation ends early); ctx's error when ctx ends first.
// An arrival already finished (model.Arrived) is taken at once, without a
// goroutine. Nothing reads r.want's values before the wait ends:
// shareEqualValue asks r.arrival (model.Arrival has the rules).
func (r *runner) awaitValues(ctx context.Context, stop context.CancelFunc) <-chan error {
	end := make(chan error, 1)
	wait := func() {
		select {
		case <-r.arrival.Done():
		case <-ctx.Done():
			end <- ctx.Err()
			return
		}
		st, err := r.arrival.State()
		if err != nil {
			stop()
		} else {
			r.fill(st)
		}
		end <- err
	}
	select {
	case <-r.arrival.Done():
		wait()
	default:
		go wait()
	}
	return end
}

// fill copies the values of st, the arrival's whole state (the outline's
// secrets in the same order: model.Arrival), into r.want, then shares
// the values the first observation has read so far with them.
func (r *runner) fill(st model.State) {
	w := r.want
	for i := range st.Secrets {
		w.Secrets[i].Value = st.Secrets[i].Value
	}
	if o := r.observing.Load(); o != nil {
		// Values the first observation read before now are held once from
		// here on (at 50,000 secrets, thousands of values read while the
		// documents decrypted); those it reads later share at once.
		o.mu.Lock()
		r.shareObserved(o.out)
		o.mu.Unlock()
	}
}

// incomplete reports whether err is an arrival that finished without
// every value (model.ErrIncomplete: a bug of the loader).
func incomplete(err error) bool { return errors.Is(err, model.ErrIncomplete) }

// shareObserved makes every observed current value that equals its
// desired value share the desired value's memory (shareEqualValue), for
// the values read before the desired values arrived. The caller holds
// whatever guards obs.
func (r *runner) shareObserved(obs observation) {
	for n, o := range obs {
		if o.Current != nil {
			r.shareEqualValue(n, o.Current)
		}
	}
}

// shareEqualValue makes an observed current value that is byte for byte
// the desired value of name share the desired value's memory, so that a
// converged secret's value is held once, not twice, for the rest of the
// run (at 50,000 secrets of 1 KiB, about 50 MiB less). Only equal bytes
// are shared, so nothing compared later can tell the difference; neither
// slice is written after it is made.
func (r *runner) shareEqualValue(name string, v *plan.CurrentValue) {
	// The value of a document already decrypted is the one the state
	// holds, before and after the values arrive (model.Arrival).
	value := r.arrival.Decrypted(name)
	if len(value) == 0 {
		return
	}
	if v.HasString && bytes.Equal(v.String, value) {
		v.String = value
	}
	if v.HasBinary && bytes.Equal(v.Binary, value) {
		v.Binary = value
	}
}
