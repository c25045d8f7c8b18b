package plan

import (
	"cmp"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Operation is one planned mutation.
type Operation struct {
	// Action is one of vocab.Phases.
	Action vocab.Action
	Name   string
	// ARN addresses the secret once known ("" for a create).
	ARN    string
	Reason vocab.Reason
	// Metadata is the metadata an update changes (zero for other kinds and
	// for updates of the value alone).
	Metadata MetadataChange
	// Replicas is what the operation changes of the secret's replicas
	// (Decision.Replicas): a create's AddReplicaRegions, an update's
	// replications and removals, a schedule-delete's removals made before
	// the deletion.
	Replicas ReplicaChange
	// Keys is the key-level change summary of a create or update (KeysOf;
	// nil for restore and schedule-delete). It holds pointers only.
	Keys *keydiff.Summary
	// Desired is the desired secret (nil for a schedule-delete).
	Desired *model.Secret
	// Fingerprint is what planning saw; the apply precondition compares a
	// fresh observation with it (SPEC §6).
	Fingerprint Fingerprint
	// MetadataSeen is what planning saw of the managed metadata (zero for
	// a create): verification compares later observations with it
	// (ForeignMetadata), the precondition does not.
	MetadataSeen MetadataSeen
}

// Conflict is one name that blocks the whole plan (SPEC §4.1).
type Conflict struct {
	Name  string
	Class vocab.ConflictClass
	// Case is which case of Class was found (Decision.Case); "" for a
	// class without cases.
	Case vocab.ConflictCase
	// Desired is the desired secret for the name, nil when not desired.
	Desired *model.Secret
}

// Unchanged is one name that needs no operation.
type Unchanged struct {
	Name   string
	Reason vocab.Reason
	// Desired is nil for a not-desired secret already scheduled for deletion.
	Desired *model.Secret
}

// Plan is the outcome of Build: plain data.
type Plan struct {
	// Ops in phase order (vocab.Phases), names ascending within a phase.
	// Empty whenever Conflicts is non-empty.
	Ops []Operation
	// Unchanged and Conflicts, names ascending.
	Unchanged []Unchanged
	Conflicts []Conflict
	// EmptyScopeGate is true when the desired set is empty, at least one
	// schedule-delete is planned and deletions were not authorized
	// (--allow-empty): the run is invalid and nothing may be mutated (SPEC §5).
	// Ops still lists what would have been done.
	EmptyScopeGate bool
	// DeletionLimitGate is true when more schedule-deletes are planned than
	// Policy.MaxDeletions allows (--max-deletions; replica removals count,
	// Deletions): the run is invalid and nothing
	// may be mutated, like the empty-scope gate. Ops still lists them.
	DeletionLimitGate bool
	// Waiting are the configured replicas of desired, owned, active
	// secrets that are not InSync (replica-regions, SPEC §12), names then
	// Regions ascending: verification waits for the InProgress ones and
	// fails on a Failed one. They are no operation.
	Waiting []ReplicaWait
	// KeptOf counts, per desired secret that is not a conflict, its keys
	// owned by AWS (aws-owned, SPEC §13): keys the plan neither compared
	// nor writes ("" counts one). The plan shows the counts, never a
	// value. Nil when none.
	KeptOf map[string]int
}

// Kept is the number of keys owned by AWS the plan kept (KeptOf summed).
func (p Plan) Kept() int {
	n := 0
	for _, k := range p.KeptOf {
		n += k
	}
	return n
}

// Policy is what Build needs besides the desired and observed state: the
// rules of classification (the scope digest, the configured metadata of
// owned secrets) and the two deletion gates.
type Policy struct {
	// Rules are what Classify takes; ScopeDigest must be the desired
	// state's (model.Scope.Digest of want.Scope).
	Rules
	// AllowEmpty authorizes schedule-deletes when the desired set is empty
	// (--allow-empty, SPEC §5).
	AllowEmpty bool
	// MaxDeletions is the most schedule-deletes one plan may hold
	// (--max-deletions); nil = no limit (the default). 0 forbids every
	// deletion.
	MaxDeletions *int
}

// Gated reports whether a gate blocks the plan (nothing may be mutated).
func (p Plan) Gated() bool { return p.EmptyScopeGate || p.DeletionLimitGate }

// Deletions returns the number of planned deletions: schedule-deletes and
// replica removals (each Region removed counts one: a removal is immediate
// and cannot be undone, SPEC §12). --max-deletions bounds it.
func (p Plan) Deletions() int {
	n := p.Counts().ScheduleDelete
	for _, op := range p.Ops {
		n += len(op.Replicas.Remove)
	}
	return n
}

// Counts derives the report counts from the plan (SPEC §7.2): each
// operation, unchanged name and conflict counted once by its action
// (vocab.Counts.Add).
func (p Plan) Counts() vocab.Counts {
	var c vocab.Counts
	for _, op := range p.Ops {
		c.Add(op.Action)
	}
	for range p.Unchanged {
		c.Add(vocab.ActionUnchanged)
	}
	for range p.Conflicts {
		c.Add(vocab.ActionConflict)
	}
	return c
}

// SortOps sorts operations into phase order (vocab.Phases), names
// ascending (SPEC §5).
func SortOps(ops []Operation) {
	slices.SortFunc(ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(slices.Index(vocab.Phases, a.Action), slices.Index(vocab.Phases, b.Action)), cmp.Compare(a.Name, b.Name))
	})
}

// Build plans one scope (SPEC §5). observed maps names to direct
// observations; it must hold every desired name (a missing entry means
// absent) and may hold candidates found by discovery. Names are classified
// with Classify; the result is independent of map order.
func Build(want model.State, observed map[string]ObservedSecret, policy Policy) Plan {
	byName := make(map[string]*model.Secret, len(want.Secrets))
	names := make([]string, 0, len(want.Secrets)+len(observed))
	for i := range want.Secrets {
		s := &want.Secrets[i]
		byName[s.Name] = s
		names = append(names, s.Name)
	}
	for name := range observed {
		if _, ok := byName[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)

	var p Plan
	for _, name := range names {
		w, obs := byName[name], observed[name]
		d := Classify(policy.Rules, w, obs)
		if e, ok := policy.awsOwned(w); ok && d.Action != vocab.ActionConflict {
			if p.KeptOf == nil {
				p.KeptOf = map[string]int{}
			}
			p.KeptOf[name] = len(e.Keys)
		}
		switch {
		case d.Action == vocab.ActionConflict:
			p.Conflicts = append(p.Conflicts, Conflict{Name: name, Class: d.Conflict, Case: d.Case, Desired: w})
		case d.Action == vocab.ActionUnchanged:
			p.Unchanged = append(p.Unchanged, Unchanged{Name: name, Reason: d.Reason, Desired: w})
			if w != nil && d.Reason != vocab.ReasonReplica && !obs.Deleted {
				p.Waiting = append(p.Waiting, replicaWaits(policy.Rules, name, obs)...)
			}
		case d.Action.IsOperation():
			if d.Action == vocab.ActionUpdate {
				p.Waiting = append(p.Waiting, replicaWaits(policy.Rules, name, obs)...)
			}
			desired, keys := Written(policy.Rules, w, obs, d)
			p.Ops = append(p.Ops, Operation{
				Action: d.Action, Name: name, ARN: obs.ARN, Reason: d.Reason, Metadata: d.Metadata, Replicas: d.Replicas,
				Keys: keys, Desired: desired, Fingerprint: FingerprintOf(name, obs, d),
				MetadataSeen: SeenMetadata(policy.Metadata, obs),
			})
		}
	}
	if len(p.Conflicts) > 0 {
		p.Ops = nil
		return p
	}
	SortOps(p.Ops)
	deletions := p.Deletions()
	if len(want.Secrets) == 0 && !policy.AllowEmpty && deletions > 0 {
		p.EmptyScopeGate = true
	}
	if policy.MaxDeletions != nil && deletions > *policy.MaxDeletions {
		p.DeletionLimitGate = true
	}
	return p
}
