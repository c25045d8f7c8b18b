package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// observation is one direct look at the scope: name → what Describe (and,
// where the planner needs it, the current value) showed.
type observation map[string]plan.ObservedSecret

// observe re-observes the whole scope (SPEC §6): discovery, every desired
// name and every name an operation touched (extra), even when discovery
// omits it, and the current values the planner needs, in batches of
// MaxValueBatch. How discovery and the known names share the work is the
// runner's discovery (chosen once from the port, newRunner): a listing
// followed by a Describe of every name (describing), or a Surveyor's
// listing that settles the names it shows (surveying).
//
// To spend as little wall time as the calls allow (docs/benchmarks.md),
// discovery runs beside the describes of names already known (its pages
// stay sequential and occupy one of the Concurrency slots, so at most
// Concurrency calls are in flight and 1 is strictly sequential), and a
// value batch starts as soon as MaxValueBatch described names need a
// value.
//
// phase (plan or verify) labels its progress records: one unit per name
// described. list says what discovery lists; with listManaged, observe also
// returns the listed entries of other scopes (for checkOrphans) and warns
// about this scope's entries outside the prefix (inScope). The names a
// Surveyor's listing settled are confirmed before observe returns (confirm),
// but by the first observation, which runs while the desired values
// arrive: prepare confirms them once the values are whole.
func (r *runner) observe(ctx context.Context, phase string, extra []string, list listing) (observation, []Candidate, error) {
	known := r.knownNames(extra)
	o := &observer{r: r, ctx: ctx, sem: make(chan struct{}, r.concurrency), out: observation{}, scheduled: map[string]bool{},
		prog: r.startProgress(phase, "", len(known)), pool: newWorkers()}
	// The desired values may still be decrypting: when they arrive, the
	// values this observation has read are shared with them at once
	// (runner.fill), not only at its end.
	r.observing.Store(o)
	defer r.observing.Store(nil)

	listed := o.discover(list)
	waiting := r.discovery.known(o, known)
	o.listed(<-listed, known, waiting, list)

	o.describes.Wait()
	o.flush()
	o.reads.Wait()
	o.othersListed.Wait()
	o.pool.stop()
	if o.err != nil {
		return nil, nil, firstErr(ctx, o.err)
	}
	r.unconfirmed = o.taken
	if list != listManaged {
		if err := r.confirm(ctx, o.out); err != nil {
			return nil, nil, err
		}
	}
	return o.out, o.others, nil
}

// discovery is how an observation shares the work between discovery and
// the names it knows (observe): one strategy per kind of port, chosen once
// by newRunner (describing; surveying for a Surveyor). Its methods run on
// the observation's goroutines and start their describes through the
// observer (describe, take), which bounds the calls in flight.
type discovery interface {
	// list is discovery, on its own goroutine, holding one of the
	// Concurrency slots for all its pages: this scope's entries
	// (primaries only, before inScope) and, with listManaged, the other
	// scopes' in o.others (set before observe's wait for o.othersListed
	// ends).
	list(o *observer, list listing) ([]Candidate, error)
	// known starts observing the known names (sorted) that need no
	// listing and returns the others, which wait for discovery.
	known(o *observer, known []string) (waiting []string)
	// listed observes what discovery listed (cands: this scope's entries
	// under the prefix) and the names that waited for it.
	listed(o *observer, cands []Candidate, known, waiting []string)
}

// newDiscovery is the discovery of a port with capabilities c: surveying
// for a Surveyor, describing otherwise.
func newDiscovery(c capabilities) discovery {
	if c.surveyor != nil {
		return surveying{c.surveyor}
	}
	return describing{}
}

// knownNames are the names an observation describes whatever discovery
// lists (SPEC §6): every desired name and every name in extra, sorted and
// without duplicates, labelled in the ledger.
func (r *runner) knownNames(extra []string) []string {
	known := make([]string, 0, len(r.byName)+len(extra))
	for n := range r.byName {
		known = append(known, n)
	}
	known = append(known, extra...)
	slices.Sort(known)
	known = slices.Compact(known)
	r.ledger.labelNew(known)
	return known
}

// discovered is what discovery returned.
type discovered struct {
	cands []Candidate
	err   error
}

// discover starts discovery (the runner's discovery.list) on its own
// goroutine, holding one of the Concurrency slots for all its pages:
// --concurrency bounds every call in flight, and 1 is strictly sequential
// (SPEC §2.1). Its one answer arrives on the channel.
func (o *observer) discover(list listing) <-chan discovered {
	out := make(chan discovered, 1)
	go func() {
		o.sem <- struct{}{}
		defer func() { <-o.sem }()
		cands, err := o.r.discovery.list(o, list)
		out <- discovered{cands, err}
	}()
	return out
}

// listed takes discovery's answer: this scope's entries under the prefix
// (inScope; with listManaged, the first observation, it warns about the
// others) are labelled and counted as units of progress when not known,
// then observed with the names that waited (discovery.listed). The
// listed entries (names, ARNs, tags) are not needed once their describes
// are under way: they are dropped when this returns, before observe's
// wait, so the collector takes them while the describes run (at 50,000
// secrets tens of MiB less at the run's peak, docs/benchmarks.md).
func (o *observer) listed(got discovered, known, waiting []string, list listing) {
	if got.err != nil {
		o.fail(got.err)
		return
	}
	cands := o.r.inScope(got.cands, list == listManaged)
	names := make([]string, 0, len(cands))
	fresh := 0
	for _, c := range cands {
		names = append(names, c.Name)
		if _, ok := slices.BinarySearch(known, c.Name); !ok {
			fresh++
		}
	}
	o.r.ledger.labelNew(names)
	o.prog.grow(fresh)
	o.r.discovery.listed(o, cands, known, waiting)
}

// listing says what discovery lists.
type listing int

const (
	// listScope: this scope's secrets (ListSecrets filtered on the scope
	// tag): rebuilds and verification.
	listScope listing = iota
	// listManaged: every secret the tool manages in the account and Region
	// (no scope filter; the same pages as listScope when the account holds
	// no other scope): the first observation of a run, whose entries of
	// other scopes feed the orphan check.
	listManaged
)

// primaries drops the entries that are replicas of a secret whose primary
// is in another Region: in a replica's Region such an entry is never a
// candidate, conflict or orphan (SPEC §12); it is written only through its
// primary.
func (r *runner) primaries(cands []Candidate) []Candidate {
	kept := cands[:0:0]
	for _, c := range cands {
		if !plan.ReplicaOfElsewhere(r.policy.Region, c.PrimaryRegion) {
			kept = append(kept, c)
		}
	}
	return kept
}

// splitScopes splits a list of every managed secret into the entries that
// carry this scope's tag (what the scope-filtered list returns) and the
// others. The entries of this scope lose their tags: nothing reads them
// after the split, and the listing is held until the whole observation has
// been started (at 50,000 secrets the tag maps were 13 MiB of the heap at
// the run's peak, docs/benchmarks.md).
func splitScopes(all []Candidate, digest string) (own, others []Candidate) {
	for _, c := range all {
		if c.Tags[model.TagScope] == digest {
			c.Tags = nil
			own = append(own, c)
		} else {
			others = append(others, c)
		}
	}
	return own, others
}

// inScope drops discovery candidates whose name is not under the prefix
// (prefix + "/"): the tool never considers a name outside its namespace,
// whatever its tags say, and IAM only grants <prefix>/* (SPEC §9). With
// warn (the first observation of the run) the dropped entries are logged as
// one warning with their count (names only with ShowResourceNames, SPEC
// §7.3).
func (r *runner) inScope(cands []Candidate, warn bool) []Candidate {
	under := r.want.Scope.Prefix + "/"
	kept := cands[:0:0]
	var outside []string
	for _, c := range cands {
		if strings.HasPrefix(c.Name, under) {
			kept = append(kept, c)
		} else {
			outside = append(outside, c.Name)
		}
	}
	if warn && len(outside) > 0 {
		attrs := []any{slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, len(outside))}
		if r.showNames {
			attrs = append(attrs, slog.String(vocab.FieldResource, strings.Join(outside, ",")))
		}
		r.log.Warn("ignoring tagged secrets outside the secret prefix", attrs...)
	}
	return kept
}

// checkOrphans warns, once per run with their count (names only with
// ShowResourceNames), about orphans among the first observation's entries
// of other scopes: secrets the tool owns in another scope whose source is a
// document of this commit (plan.Orphans), which a change of
// --secret-prefix, --repository-id or --source-root leaves behind. They are
// never described or touched (docs/recovery.md: retiring an old scope).
func (r *runner) checkOrphans(others []Candidate) {
	listed := make([]plan.Listed, 0, len(others))
	for _, c := range others {
		listed = append(listed, plan.Listed{Name: c.Name, ARN: c.ARN, Tags: c.Tags, Deleted: c.Deleted})
	}
	orphans := plan.Orphans(r.digest(), r.siblings, r.want.Secrets, listed)
	if len(orphans) == 0 {
		return
	}
	attrs := []any{slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, len(orphans))}
	if r.showNames {
		attrs = append(attrs, slog.String(vocab.FieldResource, strings.Join(orphans, ",")))
	}
	r.log.Warn("secrets this tool owns in another scope hold documents of this commit (left by a change of "+
		"--secret-prefix, --repository-id or --source-root); they are not touched: retire the old scope (docs/recovery.md)", attrs...)
	// The plan file and its renderings (the pull request's summary) carry
	// it too, as a warning with the count only.
	what := fmt.Sprintf("%d secrets this tool owns in another scope hold documents of this commit; they are not touched", len(orphans))
	if len(orphans) == 1 {
		what = "1 secret this tool owns in another scope holds a document of this commit; it is not touched"
	}
	r.ledger.problem(diag.New(diag.WarningOrphans, diag.Subject{}).WithSummary(what))
}
