package engine

import (
	"context"
	"slices"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// observation is one direct look at the scope: name → what DescribeSecret
// (and, where the planner needs it, the current value) showed.
type observation map[string]plan.ObservedSecret

// observe re-observes the whole scope (SPEC §4): discovery pages, then a
// direct DescribeSecret of every desired name, every candidate and every
// extra name (names an operation touched, even when discovery omits them),
// then the current values the planner needs, in batches. Describes and
// value batches run in parallel up to cfg.Concurrency.
func (r *runner) observe(ctx context.Context, extra []string) (observation, error) {
	cands, err := r.port.ListCandidates(ctx, r.digest)
	if err != nil {
		return nil, err
	}
	listed := make(map[string]string, len(cands))
	for _, c := range cands {
		listed[c.Name] = c.ARN
	}
	names := make([]string, 0, len(r.byName)+len(cands)+len(extra))
	for n := range r.byName {
		names = append(names, n)
	}
	for _, c := range cands {
		names = append(names, c.Name)
	}
	names = append(names, extra...)
	slices.Sort(names)
	names = slices.Compact(names)
	r.labelNew(names)

	ids := make([]string, len(names))
	for i, n := range names {
		// Address by full ARN once known (SPEC §3.4): a name such as
		// "app-config" looks like a partial ARN to AWS.
		switch {
		case listed[n] != "":
			ids[i] = listed[n]
		case r.arnOf(n) != "":
			ids[i] = r.arnOf(n)
		default:
			ids[i] = n
		}
	}
	obs := make([]plan.ObservedSecret, len(names))
	var (
		mu   sync.Mutex
		ferr error
	)
	fail := func(err error) bool {
		mu.Lock()
		defer mu.Unlock()
		if ferr == nil {
			ferr = err
		}
		return false
	}
	each(len(names), r.cfg.Concurrency, func(i int) bool {
		o, err := r.port.Describe(ctx, ids[i])
		if err == nil && !o.Exists && ids[i] != names[i] {
			// The listed or remembered ARN is gone (the list lags); the
			// name may belong to a newer secret.
			o, err = r.port.Describe(ctx, names[i])
		}
		if err != nil {
			return fail(err)
		}
		obs[i] = sameName(names[i], o)
		return true
	})
	if ferr != nil {
		return nil, firstErr(ctx, ferr)
	}
	out := make(observation, len(names))
	for i, n := range names {
		out[n] = obs[i]
		r.learnARN(n, obs[i].ARN)
	}
	if err := r.readValues(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
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

// readValues reads, in batches of MaxValueBatch, the current values the
// planner needs (plan.NeedsValue), and stores them in obs.
func (r *runner) readValues(ctx context.Context, obs observation) error {
	var names []string
	for n, o := range obs {
		if plan.NeedsValue(r.digest, r.byName[n], o) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	batches := slices.Collect(slices.Chunk(names, MaxValueBatch))
	results := make([][]plan.CurrentValue, len(batches))
	var (
		mu   sync.Mutex
		ferr error
	)
	each(len(batches), r.cfg.Concurrency, func(i int) bool {
		reqs := make([]ValueRequest, len(batches[i]))
		for j, n := range batches[i] {
			o := obs[n]
			reqs[j] = ValueRequest{ID: o.ARN, Name: n, CurrentVersionID: o.CurrentVersionIDs()[0]}
		}
		vs, err := r.port.GetCurrentValues(ctx, reqs)
		if err == nil && len(vs) != len(reqs) {
			err = &Error{Operation: "BatchGetSecretValue", Code: "UnknownError", Fault: FaultServer}
		}
		if err != nil {
			mu.Lock()
			if ferr == nil {
				ferr = err
			}
			mu.Unlock()
			return false
		}
		results[i] = vs
		return true
	})
	if ferr != nil {
		return firstErr(ctx, ferr)
	}
	for i, b := range batches {
		for j, n := range b {
			o := obs[n]
			v := results[i][j]
			o.Current = &v
			obs[n] = o
		}
	}
	return nil
}

// observeOne directly observes one name (the apply precondition and the
// re-observation after an ambiguous outcome), reading its value when the
// planner needs it, exactly as observe would.
func (r *runner) observeOne(ctx context.Context, name string) (plan.ObservedSecret, error) {
	id := r.arnOf(name)
	if id == "" {
		id = name
	}
	o, err := r.port.Describe(ctx, id)
	if err != nil {
		return o, firstErr(ctx, err)
	}
	o = sameName(name, o)
	if !o.Exists && id != name {
		// The ARN we knew is gone; the name may now be a new secret.
		if o, err = r.port.Describe(ctx, name); err != nil {
			return o, firstErr(ctx, err)
		}
		o = sameName(name, o)
	}
	r.learnARN(name, o.ARN)
	if plan.NeedsValue(r.digest, r.byName[name], o) {
		vs, err := r.port.GetCurrentValues(ctx, []ValueRequest{{ID: o.ARN, Name: name, CurrentVersionID: o.CurrentVersionIDs()[0]}})
		if err != nil {
			return o, firstErr(ctx, err)
		}
		if len(vs) == 1 {
			o.Current = &vs[0]
		}
	}
	return o, nil
}

// firstErr prefers the run's cancellation over whatever a call reported.
func firstErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
