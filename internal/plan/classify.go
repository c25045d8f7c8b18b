package plan

import (
	"bytes"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Action is what the planner decided for one name: one of the four
// operation kinds (same spelling as vocab.OperationKind), or unchanged,
// conflict, or none (absent or foreign and not desired: not ours to touch).
type Action string

const (
	ActionNone           Action = "none"
	ActionUnchanged      Action = "unchanged"
	ActionConflict       Action = "conflict"
	ActionRestore        Action = Action(vocab.OpRestore)
	ActionCreate         Action = Action(vocab.OpCreate)
	ActionUpdate         Action = Action(vocab.OpUpdate)
	ActionScheduleDelete Action = Action(vocab.OpScheduleDelete)
)

// IsOperation reports whether a is one of the four mutations.
func (a Action) IsOperation() bool {
	switch a {
	case ActionRestore, ActionCreate, ActionUpdate, ActionScheduleDelete:
		return true
	}
	return false
}

// Reason says why an action was chosen, separately from the action
// (an update *because* the value differs, the stored value is binary, or
// there is no current version). Reasons are data for logs, tests and the
// plan file; they never carry a value. Every reason an operation or an
// unchanged name carries is spelled as its vocab.PlanReason (the plan
// file's wire token, SPEC §7.4), so PlanReason is a conversion, not a
// table; not-ours and conflict never reach a plan file (a conflict's
// reason there is its class).
type Reason string

const (
	ReasonAbsent               = Reason(vocab.ReasonAbsent)               // create
	ReasonValueDiffers         = Reason(vocab.ReasonValueDiffers)         // update
	ReasonStoredBinary         = Reason(vocab.ReasonStoredValueBinary)    // update
	ReasonStoredString         = Reason(vocab.ReasonStoredValueString)    // update (a binary document)
	ReasonNoCurrent            = Reason(vocab.ReasonNoCurrentVersion)     // update
	ReasonScheduled            = Reason(vocab.ReasonScheduledForDeletion) // restore; unchanged when not desired
	ReasonNotDesired           = Reason(vocab.ReasonNotDesired)           // schedule-delete
	ReasonEqual                = Reason(vocab.ReasonValueEqual)           // unchanged
	ReasonAfterRestore         = Reason(vocab.ReasonRestoreThenUpdate)    // follow-up update (set by the engine)
	ReasonMetadata             = Reason(vocab.ReasonMetadata)             // update: only the configured metadata differs
	ReasonNotOurs       Reason = "not-ours"                               // none (never in a plan)
	ReasonConflictFound Reason = "conflict"                               // conflict; see Decision.Conflict
)

// Decision is the classification of one name.
type Decision struct {
	Action   Action
	Reason   Reason
	Conflict vocab.ConflictClass // set only when Action is ActionConflict
	// Metadata is what an update must change besides (or, with
	// ReasonMetadata, instead of) the value; zero otherwise.
	Metadata MetadataChange
}

// Rules are what classification needs besides one name's desired secret
// and observation: the scope tag value of this configuration and the
// configured metadata of owned secrets.
type Rules struct {
	ScopeDigest string
	Metadata    model.Metadata
}

// Classify decides what to do with one name (SPEC §4.1 and the table of
// §5). want is nil when the name is not desired.
//
// Rules, in order:
//   - absent: create if desired, else none;
//   - not owned (managed-by or scope tag differs): ownership conflict if
//     desired, else none (a foreign secret that is not desired is simply not
//     ours; it never blocks the plan);
//   - owned, not desired, scheduled for deletion: unchanged (left alone);
//   - source tag not a 64-hex digest (also when missing): source-tag;
//     desired and source tag another document's: source;
//   - OwningService set: service-owned; rotation enabled or an AWSPENDING
//     version: rotation; replica Regions: replication; more than one
//     AWSCURRENT: staging;
//   - not desired: schedule-delete; scheduled for deletion: restore;
//   - no AWSCURRENT, or the read found none: update (no-current);
//   - fetched version differs from DescribeSecret's AWSCURRENT: staging;
//     both or neither of string and binary: payload; then the payload
//     field want.Kind stores to (SecretBinary for KindBinary, SecretString
//     otherwise): the other one held, update (stored-value-binary or
//     stored-value-string: a change of payload kind is an update, SPEC
//     §3.1); byte-equal to want.Value, unchanged; else update
//     (value-differs). Whole values are compared byte for byte like
//     canonical JSON: nothing is parsed or normalised;
//   - a desired, owned, active secret that is unchanged or updated is also
//     compared with the configured metadata (DiffMetadata): a difference
//     rides along an update, or plans one with reason metadata (issue 14).
//
// For a desired, owned, active, conflict-free secret with one AWSCURRENT,
// obs.Current must hold the read value (see NeedsValue); nil is treated as
// Missing, which plans a harmless rewrite rather than a wrong "unchanged".
func Classify(rules Rules, want *model.Secret, obs ObservedSecret) Decision {
	d, _ := classifyMeta(rules.ScopeDigest, want, obs)
	if d.Action == "" {
		d = classifyValue(want, obs)
	}
	if want != nil && obs.Exists && !obs.Deleted && (d.Action == ActionUnchanged || d.Action == ActionUpdate) {
		d.Metadata = DiffMetadata(rules.Metadata, obs)
		if d.Action == ActionUnchanged && d.Metadata.Any() {
			d.Action, d.Reason = ActionUpdate, ReasonMetadata
		}
	}
	return d
}

// NeedsValue reports whether the decision for this name depends on the
// current value, i.e. whether the observer must read it (SPEC §4: only for
// owned, active, conflict-free desired names).
func NeedsValue(scopeDigest string, want *model.Secret, obs ObservedSecret) bool {
	_, needs := classifyMeta(scopeDigest, want, obs)
	return needs
}

func conflict(c vocab.ConflictClass) (Decision, bool) {
	return Decision{Action: ActionConflict, Reason: ReasonConflictFound, Conflict: c}, false
}

// classifyMeta decides from metadata alone. It returns an empty Decision and
// needsValue=true when the value must be compared.
func classifyMeta(scopeDigest string, want *model.Secret, obs ObservedSecret) (Decision, bool) {
	if !obs.Exists {
		if want != nil {
			return Decision{Action: ActionCreate, Reason: ReasonAbsent}, false
		}
		return Decision{Action: ActionNone, Reason: ReasonNotOurs}, false
	}
	if !obs.Owned(scopeDigest) {
		if want != nil {
			return conflict(vocab.ConflictOwnership)
		}
		return Decision{Action: ActionNone, Reason: ReasonNotOurs}, false
	}
	if want == nil && obs.Deleted {
		return Decision{Action: ActionUnchanged, Reason: ReasonScheduled}, false
	}
	src := obs.Tags[model.TagSource]
	if !model.IsDigest(src) {
		return conflict(vocab.ConflictSourceTag)
	}
	if want != nil && src != want.SourceDigest {
		return conflict(vocab.ConflictSource)
	}
	if obs.OwningService != "" {
		return conflict(vocab.ConflictServiceOwned)
	}
	if obs.RotationEnabled || obs.hasPending() {
		return conflict(vocab.ConflictRotation)
	}
	if len(obs.ReplicaRegions) > 0 {
		return conflict(vocab.ConflictReplication)
	}
	current := obs.CurrentVersionIDs()
	if len(current) > 1 {
		return conflict(vocab.ConflictStaging)
	}
	if want == nil {
		return Decision{Action: ActionScheduleDelete, Reason: ReasonNotDesired}, false
	}
	if obs.Deleted {
		return Decision{Action: ActionRestore, Reason: ReasonScheduled}, false
	}
	if len(current) == 0 {
		return Decision{Action: ActionUpdate, Reason: ReasonNoCurrent}, false
	}
	return Decision{}, true
}

func classifyValue(want *model.Secret, obs ObservedSecret) Decision {
	v := obs.Current
	if v == nil || v.Missing {
		return Decision{Action: ActionUpdate, Reason: ReasonNoCurrent}
	}
	if current := obs.CurrentVersionIDs(); v.StageMismatch || len(current) != 1 || v.VersionID != current[0] {
		c, _ := conflict(vocab.ConflictStaging)
		return c
	}
	if v.HasString == v.HasBinary {
		c, _ := conflict(vocab.ConflictPayload)
		return c
	}
	stored := v.String
	switch {
	case want.Kind.Binary() && !v.HasBinary:
		return Decision{Action: ActionUpdate, Reason: ReasonStoredString}
	case !want.Kind.Binary() && v.HasBinary:
		return Decision{Action: ActionUpdate, Reason: ReasonStoredBinary}
	case want.Kind.Binary():
		stored = v.Binary
	}
	if bytes.Equal(stored, want.Value) {
		return Decision{Action: ActionUnchanged, Reason: ReasonEqual}
	}
	return Decision{Action: ActionUpdate, Reason: ReasonValueDiffers}
}

// PlanReason is r as the plan file's reason token (vocab.PlanReasons).
func (r Reason) PlanReason() vocab.PlanReason { return vocab.PlanReason(r) }
