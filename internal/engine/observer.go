package engine

import (
	"context"
	"slices"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// observer runs one observation's describes and value batches on a shared
// bound of in-flight calls.
type observer struct {
	r   *runner
	ctx context.Context
	sem chan struct{}
	// prog counts the names described.
	prog *progress

	// pool runs the describes and value batches (stopped by observe once
	// both have ended).
	pool *workers

	describes, reads sync.WaitGroup
	// othersListed is a Surveyor's listing of other scopes' entries
	// (surveying.list).
	othersListed sync.WaitGroup
	// others are the listed entries of other scopes (listManaged: the
	// orphan check), set by discovery before observe's wait ends.
	others []Candidate

	mu        sync.Mutex
	out       observation
	scheduled map[string]bool
	pending   []string // described names waiting for a value batch
	taken     []string // names taken from a Surveyor's listing (confirm)
	err       error
}

func (o *observer) fail(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = err
	}
}

func (o *observer) stopped() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err != nil
}

// describe observes name (by id) once per observation. It blocks while
// Concurrency calls are in flight.
func (o *observer) describe(name, id string) { o.observeName(name, id, nil, false) }

// take records obs, what a Surveyor's listing showed of name (or its
// absence), as describe records what Describe answers, without a call;
// listed marks it for confirm.
func (o *observer) take(name string, obs plan.ObservedSecret, listed bool) {
	o.observeName(name, name, &obs, listed)
}

// observeName is describe, or take when given is not nil.
func (o *observer) observeName(name, id string, given *plan.ObservedSecret, listed bool) {
	o.mu.Lock()
	dup := o.scheduled[name]
	o.scheduled[name] = true
	if !dup && listed {
		o.taken = append(o.taken, name)
	}
	o.mu.Unlock()
	if dup || o.stopped() {
		return
	}
	// A taken observation makes no call, so holds no slot: the listing
	// that hands it over holds one (with --concurrency 1, the only one).
	slot := given == nil
	if slot {
		o.sem <- struct{}{}
	}
	o.describes.Add(1)
	o.pool.run(func() {
		// The unit is counted (and the clock read) while it still holds its
		// slot: released first, the next describe could start and move the
		// clock before this unit's completion time is read, and a record
		// due at the interval would slip to the next unit or be lost.
		defer func() {
			o.prog.add(1)
			if slot {
				<-o.sem
			}
			o.describes.Done()
		}()
		if o.stopped() {
			return
		}
		var (
			obs plan.ObservedSecret
			err error
		)
		if given != nil {
			obs = *given
		} else {
			obs, err = o.r.port.Describe(o.ctx, id)
		}
		if given == nil && err == nil && !obs.Exists && id != name {
			// The listed or remembered ARN is gone (the list lags); the
			// name may belong to a newer secret.
			obs, err = o.r.port.Describe(o.ctx, name)
		}
		if err != nil {
			o.fail(err)
			return
		}
		obs = sameName(name, obs)
		if obs, err = o.r.withClashes(o.ctx, name, obs); err != nil {
			o.fail(err)
			return
		}
		o.r.ledger.learnARN(name, obs.ARN)
		o.mu.Lock()
		o.out[name] = obs
		var batch []string
		if plan.NeedsValue(o.r.policy.Rules, o.r.byName[name], obs) {
			o.pending = append(o.pending, name)
			if len(o.pending) >= MaxValueBatch {
				batch, o.pending = o.pending[:MaxValueBatch:MaxValueBatch], o.pending[MaxValueBatch:]
			}
		}
		o.mu.Unlock()
		if batch != nil {
			o.read(batch)
		}
	})
}

// flush starts batches for the names still waiting for a value.
func (o *observer) flush() {
	o.mu.Lock()
	pending := o.pending
	o.pending = nil
	o.mu.Unlock()
	slices.Sort(pending)
	for b := range slices.Chunk(pending, MaxValueBatch) {
		o.read(b)
	}
}

// read starts one value batch; it waits for a free slot in its own
// goroutine, so a describe that triggers it never holds two slots. The
// port paces batches (its pace's ceiling of that family).
func (o *observer) read(names []string) {
	o.reads.Add(1)
	o.pool.run(func() {
		defer o.reads.Done()
		if o.stopped() {
			return
		}
		o.sem <- struct{}{}
		defer func() { <-o.sem }()
		if o.stopped() {
			return
		}
		reqs := make([]ValueRequest, len(names))
		o.mu.Lock()
		for i, n := range names {
			obs := o.out[n]
			reqs[i] = ValueRequest{ID: obs.ARN, Name: n, CurrentVersionID: obs.CurrentVersionIDs()[0]}
		}
		o.mu.Unlock()
		vs, err := o.r.port.GetCurrentValues(o.ctx, reqs)
		if err == nil && len(vs) != len(reqs) {
			err = &Error{Operation: "BatchGetSecretValue", Code: "UnknownError", Fault: FaultServer}
		}
		if err != nil {
			o.fail(err)
			return
		}
		if err := o.reread(reqs, vs); err != nil {
			o.fail(err)
			return
		}
		// Shared under o.mu: the desired values may arrive meanwhile, and
		// fill shares what o.out holds under the same lock.
		o.mu.Lock()
		for i, n := range names {
			obs := o.out[n]
			v := vs[i]
			o.r.shareEqualValue(n, &v)
			obs.Current = &v
			o.out[n] = obs
		}
		o.mu.Unlock()
	})
}

// reread reads once more, one by one, the values in vs that came back
// Missing for a secret named in adopt (SPEC §11): DescribeSecret has just
// shown its one AWSCURRENT version, so a value read that says
// ResourceNotFoundException is a read that lags (AWS's reads are
// eventually consistent), not a secret without a payload. An adoption is
// reviewed against the live value, so it is not planned from a read that
// saw nothing; a value still missing stays Missing (conflict payload, no
// write). An owned secret's missing value already plans a harmless
// rewrite, so its reads are not repeated and a no-op run's calls stay as
// they are.
func (o *observer) reread(reqs []ValueRequest, vs []plan.CurrentValue) error {
	for i, req := range reqs {
		if !vs[i].Missing || !o.r.policy.Adopt[req.Name] {
			continue
		}
		again, err := o.r.port.GetCurrentValues(o.ctx, []ValueRequest{req})
		if err != nil {
			return err
		}
		if len(again) == 1 {
			vs[i] = again[0]
		}
	}
	return nil
}

// sameName guards against partial-ARN lookups: a secret observed under a
// name other than the one asked for is not that name's secret, so the name
// counts as absent. (A create then fails closed on the exact name.)
func sameName(name string, o plan.ObservedSecret) plan.ObservedSecret {
	if o.Exists && o.Name != name {
		return plan.ObservedSecret{}
	}
	return o
}
