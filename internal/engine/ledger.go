package engine

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// ledger is the record of one run: what it learned about each name (log
// label, ARN, the version ids it knows) and what it did (the operations that
// took effect, the names they touched, the conflicts found while applying).
// It is plain data with its own lock; its methods make no call and read no
// clock, so they are unit-tested without AWS (ledger_test.go). Every Result
// of a run is built by result, from the ledger and the run's last plan.
type ledger struct {
	// Fixed at construction, read without the lock.
	mode   Mode
	redact model.Redaction

	mu sync.Mutex
	// names holds what the run knows per secret name.
	names map[string]*entry
	// nextOrdinal is the next log ordinal for a name that is not desired.
	nextOrdinal int
	// applied are the operations that took effect, in completion order;
	// changes the same with the ARN and the version each wrote.
	applied []plan.Operation
	changes []Change
	// digest is StateDigestOf the observation that proved convergence
	// ("" until one did).
	digest string
	// lateConflicts counts conflicts found by apply preconditions, follow-ups
	// and re-observations after a create met an existing secret (SPEC §4.1
	// "late": planning found none).
	lateConflicts int
	// shown is the plan the run shows (the plan file, the rendering): the
	// last one built for applying or, in plan mode, the plan; nil until a
	// plan is built. Verification's plans never replace it.
	shown *plan.Plan
	// followUps are the updates decided after restores of shown, in
	// decision order (part of the plan that was applied).
	followUps []plan.Operation
	// problems are the diagnostics of what stopped the run in the engine
	// (a gate, a failed observation) and the warnings (warning:orphans),
	// for the plan file.
	problems diag.Diagnostics
	// failures are the failure records of the run (planview.Failure), in
	// the order met: failed operations and observations, resources still
	// differing at the verification timeout.
	failures []planview.Failure
}

// entry is what one run knows about one name.
type entry struct {
	// label is the log label (resource-NNNN, or the name with
	// --show-resource-names; SPEC §7.3); "" until the name is first logged
	// or observed.
	label string
	// ordinal is the resource ordinal behind label (the document ordinal
	// of a desired name, a continuing one otherwise); 0 while label is "".
	ordinal int
	// arn is the full ARN once learned ("" until then).
	arn string
	// touched: an accepted operation of this run changed the name.
	touched bool
	// known are the AWSCURRENT version ids seen when planning the accepted
	// operations plus the versions this run wrote: a later observation
	// showing only these is propagation lag, anything else a second writer.
	known map[string]bool
	// seen is what planning saw of the managed metadata of each accepted
	// operation that found the secret existing: a later observation whose
	// metadata is neither configured nor one of these is another writer's.
	seen []plan.MetadataSeen
	// races counts the rotations that raced a write of the name in this
	// run (SPEC §13, lineage); unrepaired: the last one's merge is not
	// written yet (an accepted operation of the name clears it).
	races      int
	unrepaired *planview.Failure
}

// newLedger labels the desired names by their document ordinals; names that
// are not desired get ordinals after the largest one (SPEC §7.3).
func newLedger(want model.State, showNames bool, mode Mode) *ledger {
	l := &ledger{mode: mode, redact: model.Redaction{ShowNames: showNames}, names: make(map[string]*entry, len(want.Secrets))}
	maxOrdinal := 0
	for _, s := range want.Secrets {
		l.names[s.Name] = &entry{label: l.redact.Label(s.Ordinal, s.Name), ordinal: s.Ordinal}
		maxOrdinal = max(maxOrdinal, s.Ordinal)
	}
	l.nextOrdinal = maxOrdinal + 1
	return l
}

// entryLocked returns name's entry, creating an empty one (no label yet)
// when the name is new. l.mu must be held.
func (l *ledger) entryLocked(name string) *entry {
	e, ok := l.names[name]
	if !ok {
		e = &entry{}
		l.names[name] = e
	}
	return e
}

// labelLocked returns name's label, giving the name the next ordinal when
// it has none yet. l.mu must be held.
func (l *ledger) labelLocked(name string) string {
	e := l.entryLocked(name)
	if e.label == "" {
		e.label, e.ordinal = l.redact.Label(l.nextOrdinal, name), l.nextOrdinal
		l.nextOrdinal++
	}
	return e.label
}

// label returns name's log label; a name seen for the first time gets the
// next ordinal.
func (l *ledger) label(name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.labelLocked(name)
}

// labelNew gives the names not labelled yet the next ordinals, in name order
// (one call per observation, so ordinals do not depend on goroutine order).
func (l *ledger) labelNew(names []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var fresh []string
	for _, n := range names {
		if e, ok := l.names[n]; !ok || e.label == "" {
			fresh = append(fresh, n)
		}
	}
	slices.Sort(fresh)
	for _, n := range slices.Compact(fresh) {
		l.labelLocked(n)
	}
}

// arn returns the ARN learned for name ("" when none).
func (l *ledger) arn(name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.names[name]; ok {
		return e.arn
	}
	return ""
}

// learnARN remembers name's ARN; "" is ignored (absent secrets keep the
// last known ARN, which observeOne then finds gone).
func (l *ledger) learnARN(name, arn string) {
	if arn == "" {
		return
	}
	l.mu.Lock()
	l.entryLocked(name).arn = arn
	l.mu.Unlock()
}

// accept records an operation that took effect: its name is touched, the
// versions it was planned from (op.Fingerprint.CurrentVersions) and the
// version it wrote ("" for restore and schedule-delete) become known.
func (l *ledger) accept(op plan.Operation, arn, version string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entryLocked(op.Name)
	if arn != "" {
		e.arn = arn
	}
	e.touched = true
	e.unrepaired = nil
	if e.known == nil {
		e.known = map[string]bool{}
	}
	for _, v := range op.Fingerprint.CurrentVersions {
		e.known[v] = true
	}
	if version != "" {
		e.known[version] = true
	}
	if op.Action != vocab.ActionCreate {
		e.seen = append(e.seen, op.MetadataSeen)
	}
	l.applied = append(l.applied, op)
	l.changes = append(l.changes, Change{Action: op.Action, Name: op.Name, ARN: e.arn, VersionID: version})
}

// raceOnce notes that a rotation raced op's write (its rotated version is
// current again, the merge not yet written on it) and reports whether it
// is the first time in the run for the name: the run may then write the
// merge once more.
func (l *ledger) raceOnce(op plan.Operation) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.entryLocked(op.Name)
	e.races++
	e.unrepaired = &planview.Failure{Class: diag.VerifyRotationRaced, Action: op.Action, Reason: op.Reason}
	return e.races == 1
}

// failUnrepairedRaces records a verify:rotation-raced failure for each
// name a rotation raced whose merge was not written again (no operation of
// the name accepted since), in name order.
func (l *ledger) failUnrepairedRaces() {
	l.mu.Lock()
	var names []string
	for n, e := range l.names {
		if e.unrepaired != nil {
			names = append(names, n)
		}
	}
	l.mu.Unlock()
	slices.Sort(names)
	for _, n := range names {
		l.mu.Lock()
		f := *l.names[n].unrepaired
		l.mu.Unlock()
		l.failure(n, f)
	}
}

// failUnapplied records, when the rebuild budget is exhausted and no
// record says why yet, one verify:not-converged record per operation of p
// that did not take effect: what still differs, as a plan would make it.
func (l *ledger) failUnapplied(p plan.Plan) {
	if l.hasFailures() {
		return
	}
	l.mu.Lock()
	applied := slices.Clone(l.applied)
	l.mu.Unlock()
	for _, op := range p.Ops {
		if slices.ContainsFunc(applied, func(a plan.Operation) bool { return a.Name == op.Name && a.Action == op.Action }) {
			continue
		}
		l.failure(op.Name, planview.Failure{Class: diag.VerifyNotConverged, Action: op.Action, Reason: op.Reason, Metadata: op.Metadata.Kinds()})
	}
}

// proved records the digest of the observation that proved convergence.
func (l *ledger) proved(digest string) {
	l.mu.Lock()
	l.digest = digest
	l.mu.Unlock()
}

// changeList is the changes of the run ordered by name, then apply phase
// (vocab.Phases: a restore before its follow-up update), then completion
// order; nil when none. A change whose write returned no ARN (Parameter
// Store's PutParameter returns none: a create) carries the ARN learned
// for its name since (verification's re-observation).
func (l *ledger) changeList() []Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.changes) == 0 {
		return nil
	}
	out := slices.Clone(l.changes)
	for i := range out {
		if e, ok := l.names[out[i].Name]; ok && out[i].ARN == "" {
			out[i].ARN = e.arn
		}
	}
	slices.SortStableFunc(out, func(a, b Change) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return slices.Index(vocab.Phases, a.Action) - slices.Index(vocab.Phases, b.Action)
	})
	return out
}

// unnamed lists, in change order and once each, the names of changes that
// took effect without an ARN and whose ARN the run has not learned since
// (a Parameter Store create: PutParameter returns none).
func (l *ledger) unnamed() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, c := range l.changes {
		if e, ok := l.names[c.Name]; c.ARN == "" && (!ok || e.arn == "") && !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// noteConflict counts one conflict found while applying.
func (l *ledger) noteConflict() {
	l.mu.Lock()
	l.lateConflicts++
	l.mu.Unlock()
}

// touchedNames returns the names accepted operations changed, ascending.
func (l *ledger) touchedNames() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var names []string
	for n, e := range l.names {
		if e.touched {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// explainedByLag reports whether the operations p still plans are all
// propagation lag: each is on a name this run touched, and the AWSCURRENT
// versions its fingerprint shows (what the observation behind p saw) are
// all versions this run knows (planned from or wrote). Anything else is
// someone else's write or an untouched name that changed
// (docs/reconciliation.md, Verification).
func (l *ledger) explainedByLag(p plan.Plan) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, op := range p.Ops {
		e, ok := l.names[op.Name]
		if !ok || !e.touched {
			return false
		}
		for _, v := range op.Fingerprint.CurrentVersions {
			if !e.known[v] {
				return false
			}
		}
	}
	return true
}

// changedElsewhere returns, ascending, the names of the operations p still
// plans on names this run touched whose observation in obs shows managed
// metadata another writer set: neither m (what this run wrote) nor what
// planning saw before this run's writes (plan.ForeignMetadata). Lag cannot
// explain it and nothing of this run is pending there
// (docs/reconciliation.md, Verification).
func (l *ledger) changedElsewhere(p plan.Plan, obs observation, m model.Metadata) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var names []string
	for _, op := range p.Ops {
		e, ok := l.names[op.Name]
		if ok && e.touched && plan.ForeignMetadata(m, obs[op.Name], e.seen...) {
			names = append(names, op.Name)
		}
	}
	slices.Sort(names)
	return names
}

// counts derives the report counts (SPEC §7.2, docs/reconciliation.md
// "Results and counts"). In plan mode they are final's own counts: what the
// plan would do. In sync they are what the run did: the operations that
// took effect (follow-ups and both sides of a rebuild included; none when
// the run stopped before applying, at a gate, a conflict or a failed
// observation, whatever the plan held), final's unchanged names this run
// did not touch, and final's conflicts plus, when status is conflict, the
// conflicts found while applying (final, the plan being applied, has none).
func (l *ledger) counts(final plan.Plan, status vocab.Status) vocab.Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode == ModePlan {
		return final.Counts()
	}
	var c vocab.Counts
	for _, op := range l.applied {
		c.Add(op.Action)
	}
	for _, u := range final.Unchanged {
		if e, ok := l.names[u.Name]; !ok || !e.touched {
			c.Unchanged++
		}
	}
	c.Conflicts = len(final.Conflicts)
	if status == vocab.StatusConflict {
		c.Conflicts += l.lateConflicts
	}
	return c
}

// verificationOf is the verification outcome a status implies (SPEC §7.1):
// plan mode never verifies; in sync, converged, verification-failed and
// verification-inconclusive are verification's own outcomes (converged also
// when the first observation was the proof), every other status ended the
// run before verification.
func verificationOf(mode Mode, s vocab.Status) vocab.Verification {
	if mode == ModePlan {
		return vocab.VerificationNotRun
	}
	switch s {
	case vocab.StatusConverged:
		return vocab.VerificationConverged
	case vocab.StatusVerificationFailed:
		return vocab.VerificationFailed
	case vocab.StatusVerificationInconclusive:
		return vocab.VerificationInconclusive
	}
	return vocab.VerificationNotRun
}

// planned records p as the plan the run shows (the first plan, or the
// rebuilt one, which replaces it and the follow-ups of the earlier pass).
func (l *ledger) planned(p plan.Plan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.shown, l.followUps = &p, nil
}

// problem records a diagnostic of what stopped the run, or a warning
// (diag.FamilyWarning) the plan file carries beside them.
func (l *ledger) problem(d diag.Diagnostic) {
	l.mu.Lock()
	l.problems = append(l.problems, d)
	l.mu.Unlock()
}

// failure records f for the plan file; name "" is the scope as a whole,
// else f is about that secret, which gets its label (and ordinal) here
// when it has none yet.
func (l *ledger) failure(name string, f planview.Failure) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if name != "" {
		l.labelLocked(name)
		f.Ordinal, f.Name = l.names[name].ordinal, name
	}
	l.failures = append(l.failures, f)
}

// hasFailures reports whether a failure record was recorded.
func (l *ledger) hasFailures() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.failures) > 0
}

// followUp records an update decided after a restore of the shown plan.
func (l *ledger) followUp(op plan.Operation) {
	l.mu.Lock()
	l.followUps = append(l.followUps, op)
	l.mu.Unlock()
}

// planData is the shown plan as planview's input operations: every
// operation (follow-ups included), conflict and unchanged name, each with
// its resource ordinal and its name unredacted (planview.Build redacts);
// nil when no plan was built. Labels are given here to names not seen yet,
// so ordinals stay the log's.
func (l *ledger) planData() []planview.Operation {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown == nil {
		return nil
	}
	p := l.shown
	out := make([]planview.Operation, 0, len(p.Ops)+len(l.followUps)+len(p.Conflicts)+len(p.Unchanged))
	op := func(name string, a vocab.Action, r vocab.Reason) planview.Operation {
		l.labelLocked(name)
		return planview.Operation{Ordinal: l.names[name].ordinal, Name: name, Action: a, Reason: r}
	}
	for _, ops := range [][]plan.Operation{p.Ops, l.followUps} {
		for _, o := range ops {
			v := op(o.Name, o.Action, o.Reason)
			v.Keys, v.Metadata = o.Keys, o.Metadata.Kinds()
			v.ReplicasAdded, v.ReplicasRemoved = model.ReplicaRegionsOf(o.Replicas.Add), o.Replicas.Remove
			v.AWSOwnedKept = p.KeptOf[o.Name]
			v.Observed = observedOf(o)
			out = append(out, v)
		}
	}
	for _, c := range p.Conflicts {
		v := op(c.Name, vocab.ActionConflict, c.Class.Reason())
		v.Conflict, v.Case = c.Class, c.Case
		out = append(out, v)
	}
	for _, u := range p.Unchanged {
		v := op(u.Name, vocab.ActionUnchanged, u.Reason)
		v.AWSOwnedKept = p.KeptOf[u.Name]
		out = append(out, v)
	}
	return out
}

// observedOf is what planning observed of o's secret, for the plan file's
// fingerprint (planview.Observed, SPEC §14): its ARN, its AWSCURRENT
// version ids, and as canonical bytes its source tag, the configured
// metadata it carried and the metadata and replica change planned. The
// view keeps only keyed digests of them, under a salt the file holds: so
// an ARN that follows from the name (plan.ObservedSecret.NamedARN, a
// parameter's) is left out, and the source tag (a digest of the document
// path, which gives the name) with it, or the digests would confirm a
// guess of a hidden name offline. The name is bound anyway: the
// operation's place by the source tree, the prefix, Region and account by
// the settings digest (docs/security.md).
func observedOf(o plan.Operation) *planview.Observed {
	fp := o.Fingerprint
	arn, source := fp.ARN, fp.Source
	if fp.NamedARN {
		arn, source = "", ""
	}
	meta, err := json.Marshal(struct {
		Source   string
		Seen     plan.MetadataSeen
		Change   string
		Replicas string
	}{source, o.MetadataSeen, fp.Metadata, fp.Replicas})
	if err != nil {
		meta = nil // plain data: cannot happen
	}
	return &planview.Observed{ARN: arn, Versions: slices.Clone(fp.CurrentVersions), Metadata: meta}
}

// result builds the Result of the run: the only place one is made. final is
// the last plan the run built (the zero Plan when none was); the Result's
// Plan is the shown plan (planData), which for sync is the plan applied.
func (l *ledger) result(status vocab.Status, final plan.Plan) Result {
	l.mu.Lock()
	problems, failures := slices.Clone(l.problems), slices.Clone(l.failures)
	digest := l.digest
	l.mu.Unlock()
	if l.mode == ModePlan || status != vocab.StatusConverged {
		digest = ""
	}
	return Result{Status: status, Verification: verificationOf(l.mode, status), Counts: l.counts(final, status),
		Plan: l.planData(), Diagnostics: problems, Failures: failures, Changes: l.changeList(), StateDigest: digest}
}
