package vocab

// PlanSchema is the plan file's schema_version value (SPEC §7.4; issue 13).
const PlanSchema = "sops-aws-sync/plan/v1"

// PlanAction is what a plan does with one secret, as written to the plan
// file's "action" (SPEC §7.4): one of the four operation kinds (same
// spelling as OperationKind), or conflict, or unchanged.
type PlanAction string

const (
	PlanRestore                   = PlanAction(OpRestore)
	PlanCreate                    = PlanAction(OpCreate)
	PlanUpdate                    = PlanAction(OpUpdate)
	PlanScheduleDelete            = PlanAction(OpScheduleDelete)
	PlanConflict       PlanAction = "conflict"
	PlanUnchanged      PlanAction = "unchanged"
)

// PlanActions lists every action in the order views show them: conflicts
// first, then the apply phases (Phases), then unchanged.
var PlanActions = []PlanAction{PlanConflict, PlanRestore, PlanCreate, PlanUpdate, PlanScheduleDelete, PlanUnchanged}

// PlanReason says why an action was chosen, separately from the action
// (the plan file's "reason"). For a conflict the reason is its
// ConflictClass, spelled the same.
type PlanReason string

const (
	// ReasonAbsent: create, no secret of that name exists.
	ReasonAbsent PlanReason = "absent"
	// ReasonValueDiffers: update, the current SecretString differs from the
	// canonical desired value.
	ReasonValueDiffers PlanReason = "value-differs"
	// ReasonStoredValueBinary: update, the current version holds SecretBinary
	// and the document's value is a string (JSON, YAML, dotenv or text).
	ReasonStoredValueBinary PlanReason = "stored-value-binary"
	// ReasonStoredValueString: update, the current version holds
	// SecretString and the document's value is binary (.sops.bin).
	ReasonStoredValueString PlanReason = "stored-value-string"
	// ReasonNoCurrentVersion: update, no version is labelled AWSCURRENT (or
	// the read found none).
	ReasonNoCurrentVersion PlanReason = "no-current-version"
	// ReasonRestoreThenUpdate: the follow-up update of a secret restored in
	// this run whose value differs (sync only).
	ReasonRestoreThenUpdate PlanReason = "restore-then-update"
	// ReasonMetadata: update of metadata only (description, KMS key, tags;
	// issue 14).
	ReasonMetadata PlanReason = "metadata"
	// ReasonScheduledForDeletion: restore of a desired secret scheduled for
	// deletion; or unchanged, an owned secret that is not desired and is
	// already scheduled for deletion.
	ReasonScheduledForDeletion PlanReason = "scheduled-for-deletion"
	// ReasonNotDesired: schedule-delete, an owned secret no document of the
	// commit maps to.
	ReasonNotDesired PlanReason = "not-desired"
	// ReasonValueEqual: unchanged, the current SecretString is byte-equal
	// to the canonical desired value.
	ReasonValueEqual PlanReason = "value-equal"
)

// PlanReasons lists, per action, the reasons it may carry.
var PlanReasons = map[PlanAction][]PlanReason{
	PlanRestore:        {ReasonScheduledForDeletion},
	PlanCreate:         {ReasonAbsent},
	PlanUpdate:         {ReasonValueDiffers, ReasonStoredValueBinary, ReasonStoredValueString, ReasonNoCurrentVersion, ReasonRestoreThenUpdate, ReasonMetadata},
	PlanScheduleDelete: {ReasonNotDesired},
	PlanUnchanged:      {ReasonValueEqual, ReasonScheduledForDeletion},
	PlanConflict:       conflictReasons(),
}

func conflictReasons() []PlanReason {
	out := make([]PlanReason, len(ConflictClasses))
	for i, c := range ConflictClasses {
		out[i] = PlanReason(c)
	}
	return out
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

// MetadataKind is one kind of configured metadata an update changes
// (issue 14), as listed in the plan file's "metadata" of an update: the
// kind only, never a value and never a tag key.
type MetadataKind string

const (
	MetadataKMSKey      MetadataKind = "kms-key"
	MetadataDescription MetadataKind = "description"
	MetadataTags        MetadataKind = "tags"
)

// MetadataKinds lists every MetadataKind in the order a plan file lists them.
var MetadataKinds = []MetadataKind{MetadataKMSKey, MetadataDescription, MetadataTags}
