package vocab

// PlanSchema is the schema_version of the plan file every run writes: one
// section per scope (SPEC §10, docs/results.md), bound to its source tree,
// settings and observations so that it can be applied as reviewed (SPEC §14).
const PlanSchema = "sops-aws-sync/plan/v3"

// PlanSchemaV2 is the schema_version of the plan files written before the
// reviewed-plan binding (SPEC §10): still read (show), never written, never
// applied as a reviewed plan.
const PlanSchemaV2 = "sops-aws-sync/plan/v2"

// PlanSchemaV1 is the schema_version of the plan files written before
// scopes (SPEC §7.4): still read (show), never written.
const PlanSchemaV1 = "sops-aws-sync/plan/v1"

// Action is what a plan does with one secret (SPEC §5): one of the
// mutations (restore, create, update, schedule-delete: the operations,
// SPEC §1), or conflict, or unchanged. It is the planner's decision, the
// engine's operation kind, the plan file's "action" (SPEC §7.4) and the log
// field "operation" (SPEC §7.3): one type, whose value is its wire
// spelling. What each action is (operation or not, its apply phase, its
// report count, its reasons) is the one table actions below, pinned by
// testdata/actions.golden.
type Action string

const (
	// ActionNone is the zero Action: a name that is not this scope's to
	// touch (absent and not desired, or foreign and not desired). It is the
	// planner's alone: never in a plan, a count, a plan file or a log.
	ActionNone     Action = ""
	ActionConflict Action = "conflict"
	ActionRestore  Action = "restore"
	ActionCreate   Action = "create"
	// ActionAdopt takes ownership of a secret made by hand that the
	// configuration names in adopt (SPEC §11): TagResource with the
	// ownership tags, then the value and metadata update an owned secret
	// would get. Report v1 counts it as update (Counts.Report).
	ActionAdopt          Action = "adopt"
	ActionUpdate         Action = "update"
	ActionScheduleDelete Action = "schedule-delete"
	ActionUnchanged      Action = "unchanged"
)

// Reason says why an action was chosen, separately from the action (the
// plan file's "reason", SPEC §7.4): an update *because* the value differs,
// the stored value is binary, or there is no current version. A conflict's
// reason is its ConflictClass, spelled the same (ConflictClass.Reason).
// Reasons never carry a value.
type Reason string

const (
	// ReasonAbsent: create, no secret of that name exists.
	ReasonAbsent Reason = "absent"
	// ReasonValueDiffers: update, the current SecretString differs from the
	// canonical desired value.
	ReasonValueDiffers Reason = "value-differs"
	// ReasonStoredValueBinary: update, the current version holds SecretBinary
	// and the document's value is a string (JSON, YAML, dotenv or text).
	ReasonStoredValueBinary Reason = "stored-value-binary"
	// ReasonStoredValueString: update, the current version holds
	// SecretString and the document's value is binary (.sops.bin).
	ReasonStoredValueString Reason = "stored-value-string"
	// ReasonNoCurrentVersion: update, no version is labelled AWSCURRENT (or
	// the read found none).
	ReasonNoCurrentVersion Reason = "no-current-version"
	// ReasonRestoreThenUpdate: the follow-up update of a secret restored in
	// this run whose value differs (sync only; set by the engine).
	ReasonRestoreThenUpdate Reason = "restore-then-update"
	// ReasonMetadata: update of the configured metadata only (description,
	// KMS key, tags); the value is equal.
	ReasonMetadata Reason = "metadata"
	// ReasonScheduledForDeletion: restore of a desired secret scheduled for
	// deletion; or unchanged, an owned secret that is not desired and is
	// already scheduled for deletion.
	ReasonScheduledForDeletion Reason = "scheduled-for-deletion"
	// ReasonNotDesired: schedule-delete, an owned secret no document of the
	// commit maps to.
	ReasonNotDesired Reason = "not-desired"
	// ReasonValueEqual: unchanged, the current value is byte-equal to the
	// canonical desired value; or adopt, the value already is the
	// document's (only the ownership tags and metadata are written).
	ReasonValueEqual Reason = "value-equal"
	// ReasonReplicas: update of the secret's replica Regions only
	// (replica-regions, SPEC §12): a listed Region has no replica
	// (ReplicateSecretToRegions) and/or a replica is in a Region no longer
	// listed (RemoveRegionsFromReplication, shown and counted as a
	// deletion); the value and metadata are equal.
	ReasonReplicas Reason = "replicas"
	// ReasonReplica: unchanged, a desired name whose secret in this Region
	// is a replica of this scope's secret in another Region (its
	// PrimaryRegion): it is written only through its primary (SPEC §12).
	ReasonReplica Reason = "replica"
)

// Reason is c as a conflict's plan-file reason: the class, spelled the same
// (SPEC §7.4).
func (c ConflictClass) Reason() Reason { return Reason(c) }

// action is one row of the action table.
type action struct {
	Action
	// operation: a mutation, applied in its phase (the table's order among
	// the operations is the apply order, SPEC §5).
	operation bool
	// count is the report's counter of this action (SPEC §7.2).
	count func(*Counts) *int
	// reasons are the reasons this action may carry, in the plan file's
	// documented order.
	reasons []Reason
}

// actions is the one table of actions, in the order views list them:
// conflicts first, then the operations in apply order, then unchanged. A
// new action is one row here (and its constant above, its Counts field).
var actions = []action{
	{ActionConflict, false, func(c *Counts) *int { return &c.Conflicts }, conflictReasons()},
	{ActionRestore, true, func(c *Counts) *int { return &c.Restore }, []Reason{ReasonScheduledForDeletion}},
	{ActionCreate, true, func(c *Counts) *int { return &c.Create }, []Reason{ReasonAbsent}},
	{ActionAdopt, true, func(c *Counts) *int { return &c.Adopt },
		[]Reason{ReasonValueEqual, ReasonValueDiffers, ReasonStoredValueBinary, ReasonStoredValueString}},
	{ActionUpdate, true, func(c *Counts) *int { return &c.Update },
		[]Reason{ReasonValueDiffers, ReasonStoredValueBinary, ReasonStoredValueString, ReasonNoCurrentVersion, ReasonRestoreThenUpdate, ReasonMetadata, ReasonReplicas}},
	{ActionScheduleDelete, true, func(c *Counts) *int { return &c.ScheduleDelete }, []Reason{ReasonNotDesired}},
	{ActionUnchanged, false, func(c *Counts) *int { return &c.Unchanged }, []Reason{ReasonValueEqual, ReasonScheduledForDeletion, ReasonReplica}},
}

func conflictReasons() []Reason {
	out := make([]Reason, len(ConflictClasses))
	for i, c := range ConflictClasses {
		out[i] = c.Reason()
	}
	return out
}

// Actions lists every action in the order views show them (the table's).
var Actions = func() []Action {
	out := make([]Action, len(actions))
	for i, a := range actions {
		out[i] = a.Action
	}
	return out
}()

// Phases lists the operations in apply order (SPEC §5): the table's rows
// that are operations.
var Phases = func() []Action {
	var out []Action
	for _, a := range actions {
		if a.operation {
			out = append(out, a.Action)
		}
	}
	return out
}()

// actionInfo returns a's row, nil for ActionNone and unknown spellings.
func actionInfo(a Action) *action {
	for i := range actions {
		if actions[i].Action == a {
			return &actions[i]
		}
	}
	return nil
}

// IsOperation reports whether a is a mutation (one of Phases).
func (a Action) IsOperation() bool {
	info := actionInfo(a)
	return info != nil && info.operation
}

// Known reports whether a is one of Actions (ActionNone is not).
func (a Action) Known() bool { return actionInfo(a) != nil }

// Reasons returns the reasons a may carry (nil for an unknown action).
func (a Action) Reasons() []Reason {
	if info := actionInfo(a); info != nil {
		return info.reasons
	}
	return nil
}

// Add counts one secret with action a: the one place an action meets its
// report counter. ActionNone and unknown actions count nothing.
func (c *Counts) Add(a Action) {
	if info := actionInfo(a); info != nil {
		*info.count(c)++
	}
}

// Plus returns c and o summed per action (the counts of a run of several
// scopes: SPEC §10, the report's counts are the scopes' summed).
func (c Counts) Plus(o Counts) Counts {
	for _, a := range actions {
		*a.count(&c) += *a.count(&o)
	}
	return c
}

// KeysUnavailable says why a create or update has no key-level change
// summary: the observed current value is not a JSON object, or the
// document is a whole value (the plan file's "keys_unavailable").
type KeysUnavailable string

const (
	KeysStoredValueBinary    KeysUnavailable = "stored-value-binary"
	KeysStoredValueNotJSON   KeysUnavailable = "stored-value-not-json"
	KeysStoredValueNotObject KeysUnavailable = "stored-value-not-object"
	// KeysWholeValue: the document is a whole value (.sops.txt,
	// .sops.bin; SPEC §3.1): it has no keys, and the plan says only that
	// the whole value is written or changed, never a length or a hash.
	// The only token a create may carry.
	KeysWholeValue KeysUnavailable = "whole-value"
)

// KeysUnavailableReasons lists every KeysUnavailable token.
var KeysUnavailableReasons = []KeysUnavailable{KeysStoredValueBinary, KeysStoredValueNotJSON, KeysStoredValueNotObject, KeysWholeValue}

// MetadataKind is one kind of configured metadata an update changes, as
// listed in the plan file's "metadata" of an update: the kind only, never a
// value and never a tag key.
type MetadataKind string

const (
	MetadataKMSKey      MetadataKind = "kms-key"
	MetadataDescription MetadataKind = "description"
	MetadataTags        MetadataKind = "tags"
)

// MetadataKinds lists every MetadataKind in the order a plan file lists them.
var MetadataKinds = []MetadataKind{MetadataKMSKey, MetadataDescription, MetadataTags}
