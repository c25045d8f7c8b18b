package engine

import (
	"context"
	"maps"
	"strings"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// surveying is the discovery of a Surveyor (Parameter Store): its
// listing carries each entry's observation, so the observer waits for it
// and describes only the names it does not settle (survey), instead of
// one Describe per name; a name taken from the listing is described after
// all when its decision is anything but unchanged (confirm).
type surveying struct{ sv Surveyor }

// list lists the scope's entries, taking each listed entry of a desired
// name as its page arrives (so the value reads run beside the listing's
// remaining pages). With listManaged the other scopes' entries (the
// orphan check) are listed beside the observation of the scope's own, on
// a goroutine of their own with a slot of their own.
func (d surveying) list(o *observer, list listing) ([]Candidate, error) {
	cands, err := d.sv.ListScope(o.ctx, func(c Candidate) {
		if o.settledByListing(c) {
			o.takeListed(c)
		}
	})
	cands = o.r.primaries(cands)
	if list != listManaged || err != nil {
		return cands, err
	}
	own := make(map[string]bool, len(cands))
	for _, c := range cands {
		own[c.Name] = true
	}
	o.othersListed.Add(1)
	go func() {
		defer o.othersListed.Done()
		o.sem <- struct{}{}
		defer func() { <-o.sem }()
		if all, err := d.sv.Others(o.ctx, own); err != nil {
			o.fail(err)
		} else {
			_, o.others = splitScopes(o.r.primaries(all), o.r.digest())
		}
	}()
	return cands, nil
}

// known describes nothing before discovery: every known name waits for
// what the listing settles (listed).
func (surveying) known(_ *observer, known []string) []string { return known }

// listed settles what the listing showed (cands, this scope's entries
// under the prefix) and the known names it did not show. A listed
// entry of a desired name is taken as the listing answered it, with the
// desired document's source tag until confirm checks the name's decision;
// any other listed entry is described. The known names the listing did not
// show are described one by one, or, when there are more of them than the
// listing had pages (a listing page holds up to 50 entries), told absent
// or present by one listing of every name under the prefix (Present), and
// only the present ones described.
func (d surveying) listed(o *observer, cands []Candidate, known, _ []string) {
	listed := make(map[string]bool, len(cands))
	for _, c := range cands {
		listed[c.Name] = true
		if !o.settledByListing(c) {
			o.describe(c.Name, c.ARN)
			continue
		}
		o.takeListed(c) // once: taken as its page arrived
	}
	var unlisted []string
	for _, n := range known {
		if !listed[n] {
			unlisted = append(unlisted, n)
		}
	}
	if len(unlisted) <= len(cands)/50+1 {
		for _, n := range unlisted {
			o.describe(n, n)
		}
		return
	}
	o.sem <- struct{}{}
	present, err := d.sv.Present(o.ctx)
	<-o.sem
	if err != nil {
		o.fail(err)
		return
	}
	for _, n := range unlisted {
		if present[n] {
			o.describe(n, n)
		} else {
			o.take(n, plan.ObservedSecret{}, false)
		}
	}
}

// settledByListing reports whether c, a Surveyor's entry, is taken as
// listed: an entry with its observation, of a desired name under the
// prefix (SPEC §9), not a replica of a secret elsewhere.
func (o *observer) settledByListing(c Candidate) bool {
	return c.Listed != nil && c.Listed.Exists && o.r.byName[c.Name] != nil &&
		strings.HasPrefix(c.Name, o.r.want.Scope.Prefix+"/") && !plan.ReplicaOfElsewhere(o.r.policy.Region, c.PrimaryRegion)
}

// takeListed takes c's listed observation with the desired document's
// source tag, until confirm checks the name's decision.
func (o *observer) takeListed(c Candidate) {
	obs := *c.Listed
	obs.Tags = maps.Clone(obs.Tags)
	if obs.Tags == nil {
		obs.Tags = map[string]string{}
	}
	obs.Tags[model.TagSource] = o.r.byName[c.Name].SourceDigest
	o.take(c.Name, obs, true)
}

// confirm describes directly (describeOne) each name the last
// observation took from a Surveyor's listing (r.unconfirmed) whose
// decision, with the desired value, is anything but unchanged, and puts
// that observation in obs instead: the listing cannot show the source tag
// (nor a tag the configuration adds), so only a name found unchanged keeps
// the listed observation, and every name a plan may write or report as a
// conflict is judged from a direct observation (docs/parameter-store.md).
// The desired values must be whole.
func (r *runner) confirm(ctx context.Context, obs observation) error {
	names := r.unconfirmed
	r.unconfirmed = nil
	var (
		mu    sync.Mutex
		first error
	)
	each(len(names), r.concurrency, func(i int) bool {
		n := names[i]
		mu.Lock()
		o := obs[n]
		mu.Unlock()
		if plan.Classify(r.policy.Rules, r.byName[n], o).Action == vocab.ActionUnchanged {
			return true
		}
		d, err := r.describeOne(ctx, n)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if first == nil {
				first = err
			}
			return false
		}
		obs[n] = d
		return true
	})
	return first
}
