package engine

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// observation is one direct look at the scope: name → what DescribeSecret
// (and, where the planner needs it, the current value) showed.
type observation map[string]plan.ObservedSecret

// observe re-observes the whole scope (SPEC §4): discovery pages, a direct
// DescribeSecret of every desired name, every candidate and every extra
// name (names an operation touched, even when discovery omits them), and
// the current values the planner needs, in batches of MaxValueBatch.
//
// To spend as little wall time as the calls allow (docs/benchmarks.md),
// discovery runs
// beside the describes of names already known (its pages stay sequential
// and occupy one of the Concurrency slots, so at most Concurrency calls are
// in flight and 1 is strictly sequential), and a value batch starts as soon
// as MaxValueBatch described names need a value. Names that look
// like partial ARNs ("-" + six characters) wait for discovery so that they
// are described by full ARN when it lists them (SPEC §3.4).
//
// phase (plan or verify) labels its progress records: one unit per name
// described. list says what discovery lists; with listManaged, observe also
// returns the listed entries of other scopes (for checkOrphans) and warns
// about this scope's entries outside the prefix (inScope).
func (r *runner) observe(ctx context.Context, phase string, extra []string, list listing) (observation, []Candidate, error) {
	o := &observer{r: r, ctx: ctx, sem: make(chan struct{}, r.concurrency), out: observation{}, scheduled: map[string]bool{}}
	survey, _ := r.port.(Surveyor)
	// The desired values may still be decrypting: when they arrive, the
	// values this observation has read are shared with them at once
	// (runner.fill), not only at its end.
	r.observing.Store(o)
	defer r.observing.Store(nil)
	var (
		cands, others []Candidate
		listErr       error
		listDone      = make(chan struct{})
	)
	known := make([]string, 0, len(r.byName)+len(extra))
	for n := range r.byName {
		known = append(known, n)
	}
	known = append(known, extra...)
	slices.Sort(known)
	known = slices.Compact(known)
	r.ledger.labelNew(known)
	o.prog = r.startProgress(phase, "", len(known))
	go func() {
		defer close(listDone)
		// Discovery holds one of the Concurrency slots for all its pages:
		// --concurrency bounds every call in flight, and 1 is strictly
		// sequential (SPEC §2.1).
		o.sem <- struct{}{}
		defer func() { <-o.sem }()
		if list == listManaged && survey == nil {
			var all []Candidate
			all, listErr = r.port.ListCandidates(ctx, "")
			cands, others = splitScopes(r.primaries(all), r.digest())
			return
		}
		if survey != nil {
			// Each listed entry of a desired name is taken as its page
			// arrives, so the value reads run beside the listing's
			// remaining pages.
			cands, listErr = survey.ListScope(ctx, func(c Candidate) {
				if o.settledByListing(c) {
					o.takeListed(c)
				}
			})
		} else {
			cands, listErr = r.port.ListCandidates(ctx, r.digest())
		}
		cands = r.primaries(cands)
		if list == listManaged && survey != nil && listErr == nil {
			// The scope's own entries feed the observation at once; the
			// other scopes' (the orphan check) are listed beside it.
			own := make(map[string]bool, len(cands))
			for _, c := range cands {
				own[c.Name] = true
			}
			o.others.Add(1)
			go func() {
				defer o.others.Done()
				o.sem <- struct{}{}
				defer func() { <-o.sem }()
				if all, err := survey.Others(ctx, own); err != nil {
					o.fail(err)
				} else {
					_, others = splitScopes(r.primaries(all), r.digest())
				}
			}()
		}
	}()

	var deferred []string
	for _, n := range known {
		if survey != nil {
			// Described, if at all, once discovery has shown what its
			// listing settles (survey).
			continue
		}
		if id := r.ledger.arn(n); id != "" {
			o.describe(n, id)
		} else if model.SuffixLooksLikeARN(n) {
			deferred = append(deferred, n)
		} else {
			o.describe(n, n)
		}
	}

	<-listDone
	if listErr != nil {
		o.fail(listErr)
	} else {
		cands = r.inScope(cands, list == listManaged)
		listed := make(map[string]string, len(cands))
		names := make([]string, 0, len(cands))
		for _, c := range cands {
			listed[c.Name] = c.ARN
			names = append(names, c.Name)
		}
		r.ledger.labelNew(names)
		fresh := 0
		for _, n := range names {
			if _, ok := slices.BinarySearch(known, n); !ok {
				fresh++
			}
		}
		o.prog.grow(fresh)
		if survey != nil {
			o.survey(survey, cands, known)
		}
		for _, n := range deferred {
			o.describe(n, cmp.Or(listed[n], n))
		}
		for _, c := range cands {
			if survey == nil {
				o.describe(c.Name, c.ARN)
			}
		}
	}
	// The listed entries (names, ARNs, tags) are not needed once their
	// describes are under way; dropping them before the wait lets the
	// collector take them while the describes run (at 50,000 secrets tens
	// of MiB less at the run's peak, docs/benchmarks.md).
	cands = nil
	o.describes.Wait()
	o.flush()
	o.reads.Wait()
	o.others.Wait()
	if o.err != nil {
		return nil, nil, firstErr(ctx, o.err)
	}
	r.unconfirmed = o.listed
	if list != listManaged {
		// The desired values are whole (only the first observation runs
		// while they arrive; prepare confirms its names then).
		if err := r.confirm(ctx, o.out); err != nil {
			return nil, nil, err
		}
	}
	return o.out, others, nil
}

// survey settles what a Surveyor's discovery listed (cands, this scope's
// entries under the prefix) and the known names it did not list. A listed
// entry of a desired name is taken as the listing answered it, with the
// desired document's source tag until confirm checks the name's decision;
// any other listed entry is described. The known names the listing did not
// show are described one by one, or, when there are more of them than the
// listing had pages (a listing page holds up to 50 entries), told absent
// or present by one listing of every name under the prefix (Present), and
// only the present ones described.
func (o *observer) survey(sv Surveyor, cands []Candidate, known []string) {
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
	present, err := sv.Present(o.ctx)
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

// withClashes looks, in every Region the plan would add a replica of name
// in (plan.ReplicaTargets), for a secret of that name, and records the
// Regions where one exists that is not a replica of this scope's Region in
// obs.Clashes (conflict replica-clash, SPEC §12). Nothing is read when replicas are not managed or none is to be
// added.
func (r *runner) withClashes(ctx context.Context, name string, obs plan.ObservedSecret) (plan.ObservedSecret, error) {
	obs.Clashes = nil
	for _, region := range plan.ReplicaTargets(r.policy.Rules, r.byName[name], obs) {
		there, err := r.port.DescribeIn(ctx, region, name)
		if err != nil {
			return obs, err
		}
		// A replica there whose primary is in this scope's Region is this
		// name's own replica (names are unique in a Region): the primary
		// exists even if this observation missed it, and the create or
		// replication that follows meets it and is judged then. Anything
		// else of that name is a clash.
		if there.Exists && there.Name == name && there.PrimaryRegion != r.policy.Region {
			obs.Clashes = append(obs.Clashes, region)
		}
	}
	return obs, nil
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

// observer runs one observation's describes and value batches on a shared
// bound of in-flight calls.
type observer struct {
	r   *runner
	ctx context.Context
	sem chan struct{}
	// prog counts the names described.
	prog *progress

	describes, reads sync.WaitGroup
	// others is a Surveyor's listing of other scopes' entries (observe).
	others sync.WaitGroup

	mu        sync.Mutex
	out       observation
	scheduled map[string]bool
	pending   []string // described names waiting for a value batch
	listed    []string // names taken from a Surveyor's listing (confirm)
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
		o.listed = append(o.listed, name)
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
	go func() {
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
	}()
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
	go func() {
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
	}()
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

// sameName guards against partial-ARN lookups: a secret observed under a
// name other than the one asked for is not that name's secret, so the name
// counts as absent. (A create then fails closed on the exact name.)
func sameName(name string, o plan.ObservedSecret) plan.ObservedSecret {
	if o.Exists && o.Name != name {
		return plan.ObservedSecret{}
	}
	return o
}

// sighting is one direct observation of one name together with its
// classification, which is made once (plan.Classify in observeOne) and
// passed along: the apply precondition, the re-observation after an
// ambiguous or refused write and the follow-up after a restore all judge the
// same Decision.
type sighting struct {
	name string
	obs  plan.ObservedSecret
	d    plan.Decision
}

// fingerprint is what the sighting shows, in the form the plan recorded at
// planning (plan.Operation.Fingerprint).
func (s sighting) fingerprint() plan.Fingerprint { return plan.FingerprintOf(s.name, s.obs, s.d) }

// observeOne directly observes and classifies one name (the apply
// precondition, the re-observation after an ambiguous or refused write, the
// wait for a restore to show), reading its value when the planner needs it,
// exactly as observe would. It is called in one place, the write driver's
// loop (drive, write.go; TestDriverIsTheOneDirectObservation).
func (r *runner) observeOne(ctx context.Context, name string) (sighting, error) {
	o, err := r.describeOne(ctx, name)
	if err != nil {
		return sighting{}, err
	}
	want := r.byName[name]
	return sighting{name: name, obs: o, d: plan.Classify(r.policy.Rules, want, o)}, nil
}

func (r *runner) describeOne(ctx context.Context, name string) (plan.ObservedSecret, error) {
	id := r.ledger.arn(name)
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
	if o, err = r.withClashes(ctx, name, o); err != nil {
		return o, firstErr(ctx, err)
	}
	r.ledger.learnARN(name, o.ARN)
	if plan.NeedsValue(r.policy.Rules, r.byName[name], o) {
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
