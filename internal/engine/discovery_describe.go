package engine

import (
	"cmp"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// describing is the discovery of a port whose listing is only a list of
// candidates (Secrets Manager's ListSecrets): every known name and every
// listed one is described directly. A known name is described at once,
// beside discovery, unless it looks like a partial ARN ("-" + six
// characters) and no ARN is known for it: it waits for discovery so that
// it is described by full ARN when discovery lists it (SPEC §3.4).
type describing struct{}

// list lists the scope's candidates (ListCandidates with the scope digest);
// with listManaged, every managed secret of the account and Region (the
// same pages when the account holds no other scope), split into this
// scope's entries and the others (o.others, for the orphan check).
func (describing) list(o *observer, list listing) ([]Candidate, error) {
	r := o.r
	if list == listManaged {
		all, err := r.port.ListCandidates(o.ctx, "")
		var own []Candidate
		own, o.others = splitScopes(r.primaries(all), r.digest())
		return own, err
	}
	cands, err := r.port.ListCandidates(o.ctx, r.digest())
	return r.primaries(cands), err
}

// known describes each known name at once, by the ARN the run learned
// when it has one, and returns those that look like partial ARNs without
// one.
func (describing) known(o *observer, known []string) (waiting []string) {
	for _, n := range known {
		if id := o.r.ledger.arn(n); id != "" {
			o.describe(n, id)
		} else if model.SuffixLooksLikeARN(n) {
			waiting = append(waiting, n)
		} else {
			o.describe(n, n)
		}
	}
	return waiting
}

// listed describes the names that waited, by the ARN discovery listed for
// them when it did, then every listed name (the known ones are described
// once: observer.describe).
func (describing) listed(o *observer, cands []Candidate, _, waiting []string) {
	arns := make(map[string]string, len(cands))
	for _, c := range cands {
		arns[c.Name] = c.ARN
	}
	for _, n := range waiting {
		o.describe(n, cmp.Or(arns[n], n))
	}
	for _, c := range cands {
		o.describe(c.Name, c.ARN)
	}
}
