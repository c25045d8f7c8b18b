package model

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
)

// Arrival is one scope's desired state while it arrives (SPEC §3.2: the
// desired state is complete before the first mutating call, not before
// the first read; docs/reconciliation.md, "Decryption beside the first
// observation"). It is the one value the loader (internal/desired) fills
// and the engine (internal/engine) reads: the outline, every secret's
// name and source without its value, is known when it is made; each value
// is published as its document is decrypted and checked; the arrival is
// finished once, with every value or with the error that rejected the
// desired state.
//
// Its rules, which hold for every use:
//   - Outline is fixed by NewArrival and never written: any goroutine may
//     read it at any time.
//   - Only the loader writes: Publish (from any goroutine, each index at
//     most once, before Finish), then Finish exactly once.
//   - Decrypted, Done and State may be called from any goroutine at any
//     time. Decrypted returns a published value (nil before it is
//     published); State blocks until Finish (Done is closed then) and
//     returns the whole state.
//   - A value, once published, is the one the whole state holds; nobody
//     writes its bytes (the engine shares them with equal observed values).
//   - Finish(nil) with a value not published fails closed: State returns
//     ErrIncomplete (a bug of the loader), never a state with a hole.
type Arrival struct {
	outline State
	// values holds each secret's value once published, indexed like
	// outline.Secrets.
	values []atomic.Pointer[[]byte]
	// done is closed by Finish, after err is set.
	done chan struct{}
	err  error
}

// ErrIncomplete is State's error when the loader finished without an error
// but did not publish every value.
var ErrIncomplete = errors.New("model: the desired state finished without every value")

// NewArrival returns the arrival of the desired state whose outline is
// outline (Secrets ordered by Name, Values ignored).
func NewArrival(outline State) *Arrival {
	outline.Secrets = slices.Clone(outline.Secrets)
	for i := range outline.Secrets {
		outline.Secrets[i].Value = nil
	}
	return &Arrival{outline: outline, values: make([]atomic.Pointer[[]byte], len(outline.Secrets)), done: make(chan struct{})}
}

// Arrived returns an arrival already finished with the whole state st
// (a desired state loaded at once).
func Arrived(st State) *Arrival {
	a := NewArrival(st)
	for i, s := range st.Secrets {
		a.Publish(i, s.Value)
	}
	a.Finish(nil)
	return a
}

// Outline is the desired state without values: the commit, the scope and
// every secret (ordered by name) with its Value nil. It must not be
// written.
func (a *Arrival) Outline() State { return a.outline }

// Publish records the value of the outline's secret i (loader only,
// before Finish; v must not be written afterwards).
func (a *Arrival) Publish(i int, v []byte) { a.values[i].Store(&v) }

// Finish ends the arrival (loader only, exactly once): err nil when every
// value is published, else the error that rejected the desired state (a
// diag.Diagnostics from the loader, or an interruption).
func (a *Arrival) Finish(err error) {
	if err == nil {
		for i := range a.values {
			if a.values[i].Load() == nil {
				err = ErrIncomplete
				break
			}
		}
	}
	a.err = err
	close(a.done)
}

// Done is closed once the arrival is finished.
func (a *Arrival) Done() <-chan struct{} { return a.done }

// Decrypted returns the value of the desired secret name once published,
// nil otherwise (not yet, rejected, or no secret of that name).
func (a *Arrival) Decrypted(name string) []byte {
	i, ok := slices.BinarySearchFunc(a.outline.Secrets, name, func(s Secret, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return nil
	}
	if v := a.values[i].Load(); v != nil {
		return *v
	}
	return nil
}

// State blocks until the arrival is finished (a caller that may stop
// waiting selects on Done first). It returns the whole state (the
// outline's secrets in the same order, each with its value; a new Secrets
// slice on each call), or Finish's error.
func (a *Arrival) State() (State, error) {
	<-a.done
	if a.err != nil {
		return State{}, a.err
	}
	st := a.outline
	st.Secrets = slices.Clone(st.Secrets)
	for i := range st.Secrets {
		st.Secrets[i].Value = *a.values[i].Load()
	}
	return st, nil
}
