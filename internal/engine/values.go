package engine

import (
	"context"
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// arrived is the end of the wait for one scope's values: done is closed
// once err is set and, when err is nil, the runner's want holds every
// value.
type arrived struct {
	done chan struct{}
	err  error
}

// awaitValues starts waiting for r.arrival (nil: want is already whole).
// When it is finished, its values are copied into r.want (fill); when it
// is rejected, stop is called (so the observation ends early) and the
// err is set. Nothing reads r.want's values before done is closed:
// shareEqualValue asks r.arrival (model.Arrival has the rules).
func (r *runner) awaitValues(ctx context.Context, stop context.CancelFunc) *arrived {
	a := &arrived{done: make(chan struct{})}
	if r.arrival == nil {
		close(a.done)
		return a
	}
	go func() {
		defer close(a.done)
		var st model.State
		var err error
		select {
		case <-r.arrival.Done():
			st, err = r.arrival.State()
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			a.err = err
			stop()
			return
		}
		r.fill(st)
	}()
	return a
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
