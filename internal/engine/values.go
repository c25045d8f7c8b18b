package engine

import (
	"context"
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Values delivers a scope's desired values while the first observation
// runs (SPEC §3.2: the desired state is complete before the first mutating
// call, not before the first read). desired.Loading, through the CLI, is
// the production implementation.
type Values interface {
	// Wait is called once, from its own goroutine, when the scope starts
	// planning; it blocks until every document is decrypted and checked,
	// and returns the whole state, whose secrets must be those of the
	// outline the scope was given (ScopeRun.Want), in the same order, with
	// their values; or the error that rejected the desired state (the
	// caller reports it), or an interruption when ctx ends.
	Wait(ctx context.Context) (model.State, error)
	// Decrypted returns the value of the desired secret name when its
	// document is already decrypted and checked, nil otherwise; it is
	// called from any goroutine while Wait blocks. The bytes are the ones
	// Wait will return and are never written. The observation uses it to
	// hold a value it reads once, not twice, before Wait returns.
	Decrypted(name string) []byte
}

// ValuesFunc is a Values that knows no value before wait returns them
// all (tests; a loader that cannot tell).
type ValuesFunc func(ctx context.Context) (model.State, error)

// Wait calls f.
func (f ValuesFunc) Wait(ctx context.Context) (model.State, error) { return f(ctx) }

// Decrypted is always nil.
func (ValuesFunc) Decrypted(string) []byte { return nil }

// arrival is the wait for one scope's values: done is closed once err is
// set and, when err is nil, the runner's want holds every value.
type arrival struct {
	done chan struct{}
	err  error
}

// awaitValues starts receiving the desired values from values (nil: want is
// already whole). When they arrive they are copied into r.want and
// r.valuesIn is set; when values fails, stop is called (so the observation
// ends early) and the arrival's err is set. It never writes r.want's
// secrets other than their Value fields, which nothing reads before
// r.valuesIn is set (shareEqualValue checks it; planning waits for done).
func (r *runner) awaitValues(ctx context.Context, values Values, stop context.CancelFunc) *arrival {
	a := &arrival{done: make(chan struct{})}
	if values == nil {
		close(a.done)
		return a
	}
	go func() {
		defer close(a.done)
		st, err := values.Wait(ctx)
		if err == nil {
			err = r.fill(st)
		}
		if err != nil {
			a.err = err
			stop()
		}
	}()
	return a
}

// errOutlineMismatch is a whole state whose secrets are not the outline's:
// a bug of the caller, which fails the scope closed (nothing is planned).
var errOutlineMismatch = errors.New("engine: the desired values do not match the outline the scope was observed with")

// fill copies the values of st into r.want, after checking that st is the
// outline's state (same commit, scope and secrets but for Value), and sets
// r.valuesIn.
func (r *runner) fill(st model.State) error {
	w := r.want
	if st.Commit != w.Commit || st.Scope != w.Scope || len(st.Secrets) != len(w.Secrets) {
		return errOutlineMismatch
	}
	for i, s := range st.Secrets {
		o := w.Secrets[i]
		if s.Name != o.Name || s.SourceDigest != o.SourceDigest || s.Kind != o.Kind || s.Path != o.Path || s.Ordinal != o.Ordinal {
			return errOutlineMismatch
		}
	}
	for i := range st.Secrets {
		w.Secrets[i].Value = st.Secrets[i].Value
	}
	r.valuesIn.Store(true)
	if o := r.observing.Load(); o != nil {
		// Values the first observation read before now are held once from
		// here on (at 50,000 secrets, thousands of values read while the
		// documents decrypted); those it reads later share at once.
		o.mu.Lock()
		r.shareObserved(o.out)
		o.mu.Unlock()
	}
	return nil
}

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
