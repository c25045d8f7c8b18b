package plan

import (
	"bytes"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Decision is the classification of one name.
//
// Action is one of vocab.Actions, or vocab.ActionNone for a name that is
// not ours to touch. Reason is one of Action.Reasons() (a conflict's is its
// class; "" for none).
type Decision struct {
	Action   vocab.Action
	Reason   vocab.Reason
	Conflict vocab.ConflictClass // set only when Action is vocab.ActionConflict
	// Case is which case of Conflict was found, where the next action
	// differs between cases (vocab.ConflictClass.Cases); "" otherwise.
	Case vocab.ConflictCase
	// Metadata is what an update must change besides (or, with
	// vocab.ReasonMetadata, instead of) the value; zero otherwise.
	Metadata MetadataChange
	// Replicas is what a create, update or schedule-delete changes of the
	// secret's replicas (with vocab.ReasonReplicas, all an update
	// changes); zero otherwise and whenever replicas are not managed.
	Replicas ReplicaChange
	// Value is the value an update writes when it is not the document's:
	// for a secret with keys owned by AWS, the document's value with the
	// live values of those keys merged in (canonical JSON; SPEC §13). Nil
	// otherwise.
	Value []byte
}

// Rules are what classification needs besides one name's desired secret
// and observation: the scope tag value of this configuration, the
// configured metadata of owned secrets, the replicas they must have, and
// the names the configuration allows to adopt.
type Rules struct {
	ScopeDigest string
	Metadata    model.Metadata
	// Replicas are the configured replica Regions (replica-regions,
	// sorted by Region); nil = replicas are not managed.
	Replicas []model.Replica
	// Region is the scope's own Region (where its port's calls go); ""
	// = unknown, and then no observation is taken for a replica of another
	// Region's secret.
	Region string
	// Adopt holds the names listed in adopt (SPEC §11): a desired secret of
	// that name without any sops-aws-sync: tag may be adopted. Nil = none:
	// a same-name secret without our tags is an ownership conflict.
	Adopt map[string]bool
	// AdoptRequireMatch: an adoption whose live value differs from the
	// document's is conflict adopt-mismatch (adopt-require-match).
	AdoptRequireMatch bool
	// Canonical is the canonical form of JSON plaintext (the engine passes
	// canonical.Unbounded: no size rule, since a merge past the target's
	// limit is Oversized's gate:value-too-large, not a conflict; a pure
	// function, kept out of this package's imports to keep the planner
	// small): under AdoptRequireMatch a live
	// SecretString whose canonical form is the document's value matches
	// (sameContent). Nil = bytes only.
	Canonical func(plain []byte) ([]byte, error)
	// AWSOwned maps a desired name to the aws-owned entry that matches it
	// (SPEC §13, AWSOwnedSet): its keys are AWS's, never compared or
	// written once the secret exists. Nil = none.
	AWSOwned map[string]model.AWSOwned
	// MaxValueBytes is the largest value the scope's target stores in one
	// write (model.ValueLimit of its target and tier); 0 = not checked.
	// Oversized holds to it the values of secrets with keys owned by AWS.
	MaxValueBytes int
}

// Classify decides what to do with one name (SPEC §4.1 and the table of
// §5). want is nil when the name is not desired.
//
// Rules, in order:
//   - absent: create if desired, else none;
//   - not owned (managed-by or scope tag differs): ownership conflict if
//     desired, else none (a foreign secret that is not desired is simply not
//     ours; it never blocks the plan); except for a desired name listed in
//     rules.Adopt, which is judged by the adoption rules (classifyAdopt);
//   - owned, not desired, scheduled for deletion: unchanged (left alone);
//   - source tag not a 64-hex digest (also when missing): source-tag;
//     desired and source tag another document's: source;
//   - a replica of a secret whose primary is in another Region
//     (PrimaryRegion is set and not rules.Region): unchanged (replica) if
//     desired and owned, else none (SPEC §12: never a candidate, conflict
//     or orphan here; a desired name held by a foreign replica is an
//     ownership conflict like any foreign secret);
//   - OwningService set: service-owned; rotation enabled or an AWSPENDING
//     version: rotation (rotationConflict: plannable when aws-owned lists
//     the secret's keys and no rotation is in flight); replica Regions
//     while replicas are not managed: replication; more than one
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
//     rides along an update, or plans one with reason metadata;
//   - an existing secret that the planned write would take past AWS's 50
//     tags (an adoption's three ownership tags, configured tags it lacks;
//     overTagLimit) is conflict tag-limit;
//   - with replicas managed (withReplicas): a create carries every
//     configured replica, an active desired secret the missing and
//     dropped ones (an otherwise unchanged one is an update with reason
//     replicas), a schedule-delete removes every replica first; a Region
//     to add that holds a same-name secret (obs.Clashes) is conflict
//     replica-clash.
//
// For a desired, owned, active, conflict-free secret with one AWSCURRENT,
// obs.Current must hold the read value (see NeedsValue); nil is treated as
// Missing, which plans a harmless rewrite rather than a wrong "unchanged".
func Classify(rules Rules, want *model.Secret, obs ObservedSecret) Decision {
	d, needsValue := classifyMeta(rules, want, obs)
	if needsValue {
		if e, ok := rules.awsOwned(want); ok {
			d = classifyOwned(rules, want, obs, e)
		} else {
			d = classifyValue(want, obs)
		}
		if !obs.Owned(rules.ScopeDigest) {
			d = adoptValue(rules, d, sameContent(rules.Canonical, want, obs.Current))
		}
	}
	if want != nil && obs.Exists && !obs.Deleted && (d.Action == vocab.ActionUnchanged || d.Action == vocab.ActionUpdate || d.Action == vocab.ActionAdopt) && d.Reason != vocab.ReasonReplica {
		d.Metadata = DiffMetadata(rules.Metadata, obs)
		if d.Action == vocab.ActionUnchanged && d.Metadata.Any() {
			d.Action, d.Reason = vocab.ActionUpdate, vocab.ReasonMetadata
		}
		if overTagLimit(obs, d) {
			c, _ := conflict(vocab.ConflictTagLimit)
			return c
		}
	}
	return withReplicas(rules, want, obs, d)
}

// NeedsValue reports whether the decision for this name depends on the
// current value, i.e. whether the observer must read it (SPEC §4: only for
// owned, active, conflict-free desired names; SPEC §11: and for a name
// listed in adopt that the adoption rules do not refuse by metadata).
func NeedsValue(rules Rules, want *model.Secret, obs ObservedSecret) bool {
	_, needs := classifyMeta(rules, want, obs)
	return needs
}

func conflict(c vocab.ConflictClass) (Decision, bool) {
	return Decision{Action: vocab.ActionConflict, Reason: c.Reason(), Conflict: c}, false
}

// rotationConflict is the rotation conflict of a secret that rotates
// (RotationEnabled, or a version labelled AWSPENDING), if it has one
// (SPEC §13), with its case (Decision.Case):
//   - a document no aws-owned entry matches (awsOwned false): keys-not-listed,
//     also while a rotation is in flight (listing the keys is needed
//     either way);
//   - a rotation in flight (rotationInFlight): rotation-in-flight; a
//     write now would be dropped when the rotation finishes;
//   - a secret without a document, not in flight: the class alone (""):
//     no aws-owned entry can match it;
//   - otherwise none: aws-owned lists the keys the rotation changes (the
//     operator asserts this by listing) and no rotation is in flight, so
//     the secret is plannable, owned or adopted (SPEC §11, §13).
func rotationConflict(want *model.Secret, awsOwned bool, obs ObservedSecret) (Decision, bool) {
	if !obs.RotationEnabled && !obs.hasPending() {
		return Decision{}, false
	}
	d, _ := conflict(vocab.ConflictRotation)
	switch {
	case want != nil && !awsOwned:
		d.Case = vocab.CaseRotationKeysNotListed
	case obs.rotationInFlight():
		d.Case = vocab.CaseRotationInFlight
	case want == nil:
	default:
		return Decision{}, false
	}
	return d, true
}

// classifyMeta decides from metadata alone. It returns an empty Decision and
// needsValue=true when the value must be compared.
func classifyMeta(rules Rules, want *model.Secret, obs ObservedSecret) (Decision, bool) {
	scopeDigest := rules.ScopeDigest
	if !obs.Exists {
		if want != nil {
			return Decision{Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent}, false
		}
		return Decision{Action: vocab.ActionNone}, false
	}
	if rules.replicaOfElsewhere(obs) && (want == nil || obs.Owned(scopeDigest)) {
		if want != nil {
			return Decision{Action: vocab.ActionUnchanged, Reason: vocab.ReasonReplica}, false
		}
		return Decision{Action: vocab.ActionNone}, false
	}
	if !obs.Owned(scopeDigest) {
		switch {
		case want == nil:
			return Decision{Action: vocab.ActionNone}, false
		case rules.Adopt[want.Name]:
			return classifyAdopt(rules, want, obs)
		}
		return conflict(vocab.ConflictOwnership)
	}
	if want == nil && obs.Deleted {
		return Decision{Action: vocab.ActionUnchanged, Reason: vocab.ReasonScheduledForDeletion}, false
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
	if obs.Shape != "" {
		return conflict(vocab.ConflictParameterShape)
	}
	_, awsOwned := rules.awsOwned(want)
	if c, ok := rotationConflict(want, awsOwned, obs); ok {
		return c, false
	}
	if len(obs.ReplicaRegions) > 0 && !rules.managesReplicas() {
		return conflict(vocab.ConflictReplication)
	}
	current := obs.CurrentVersionIDs()
	if len(current) > 1 {
		return conflict(vocab.ConflictStaging)
	}
	if want == nil {
		return Decision{Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired}, false
	}
	if obs.Deleted {
		return Decision{Action: vocab.ActionRestore, Reason: vocab.ReasonScheduledForDeletion}, false
	}
	if len(current) == 0 && awsOwned {
		return conflict(vocab.ConflictAWSOwnedMissing)
	}
	if len(current) == 0 {
		return Decision{Action: vocab.ActionUpdate, Reason: vocab.ReasonNoCurrentVersion}, false
	}
	return Decision{}, true
}

// managedElsewhere is the conflict of a secret named in adopt that
// something else manages: OwningService set (service-owned), rotation
// enabled or an AWSPENDING version unless aws-owned lists want's keys and
// no rotation is in flight (rotation, rotationConflict: SPEC §13 allows
// adopting a rotating secret whose rotated keys are listed), a replica in a Region the
// scope's replica-regions does not list (replication; without
// replica-regions every replica is one, SPEC §4.1). Replicas all in listed
// Regions are adopted with the secret and managed from then on (refusing
// them would leave deleting a replica by hand, an outage for its readers,
// as the only way in: docs/migration.md).
func managedElsewhere(rules Rules, want *model.Secret, obs ObservedSecret) (Decision, bool) {
	_, awsOwned := rules.awsOwned(want)
	if obs.OwningService != "" {
		c, _ := conflict(vocab.ConflictServiceOwned)
		return c, true
	}
	if d, ok := rotationConflict(want, awsOwned, obs); ok {
		return d, true
	}
	if len(rules.unlistedReplicas(obs)) > 0 {
		c, _ := conflict(vocab.ConflictReplication)
		return c, true
	}
	return Decision{}, false
}

// classifyAdopt judges by metadata a desired secret that this scope does
// not own and whose name is listed in adopt (SPEC §11). Rules, in order:
//   - any tag key starting with sops-aws-sync: (another scope's, or a
//     half-tagged one): ownership, never adopted;
//   - service-owned and rotation as for an owned secret (a rotating
//     secret whose keys aws-owned lists is adopted unless a rotation is
//     in flight); a replica in a
//     Region replica-regions does not list (any replica without the
//     setting), and a replica of a primary in another Region
//     (PrimaryRegion set and not the Region of its ARN): replication;
//     replicas all in listed Regions are adopted (withReplicas then adds
//     the missing ones);
//   - scheduled for deletion: adopt-deleted (restoring someone else's
//     secret is not ours to decide);
//   - more than one AWSCURRENT: staging; none: payload (there is no one
//     payload to adopt);
//
// otherwise the value decides (needsValue): adoptValue.
func classifyAdopt(rules Rules, want *model.Secret, obs ObservedSecret) (Decision, bool) {
	if obs.hasOurTag() {
		return conflict(vocab.ConflictOwnership)
	}
	if c, ok := managedElsewhere(rules, want, obs); ok {
		return c, false
	}
	if obs.Replica() {
		return conflict(vocab.ConflictReplication)
	}
	if obs.Deleted {
		return conflict(vocab.ConflictAdoptDeleted)
	}
	switch current := obs.CurrentVersionIDs(); {
	case len(current) > 1:
		return conflict(vocab.ConflictStaging)
	case len(current) == 0:
		return conflict(vocab.ConflictPayload)
	}
	return Decision{}, true
}

// adoptValue turns the value decision of an owned secret (classifyValue,
// or classifyOwned for keys owned by AWS) into an adoption's: unchanged
// becomes adopt (value-equal), an update adopt with the same reason and
// value to write (the merge with the live values of keys owned by AWS,
// SPEC §13), or with requireMatch the conflict
// adopt-mismatch unless same (the live value is the document's JSON object
// spelled otherwise, sameContent: it is adopted and rewritten in canonical
// form); a value the read did not find is a payload conflict (no one
// payload to adopt); other conflicts stay.
func adoptValue(rules Rules, d Decision, same bool) Decision {
	switch {
	case d.Action == vocab.ActionUnchanged:
		return Decision{Action: vocab.ActionAdopt, Reason: vocab.ReasonValueEqual}
	case d.Action == vocab.ActionUpdate && d.Reason == vocab.ReasonNoCurrentVersion:
		c, _ := conflict(vocab.ConflictPayload)
		return c
	case d.Action == vocab.ActionUpdate && rules.AdoptRequireMatch && !(d.Reason == vocab.ReasonValueDiffers && same):
		c, _ := conflict(vocab.ConflictAdoptMismatch)
		return c
	case d.Action == vocab.ActionUpdate:
		return Decision{Action: vocab.ActionAdopt, Reason: d.Reason, Value: d.Value}
	}
	return d
}

// sameContent reports whether the live SecretString v holds the same JSON
// object as want's canonical value, spelled otherwise: a secret made by
// hand (the console, the AWS CLI, a script) keeps its own key order and
// whitespace, which RFC 8785 never produces, so a byte comparison alone
// would refuse every such secret under adopt-require-match although its
// content is the document's. The live value must pass the same plaintext
// rules as a JSON document (internal/canonical: UTF-8, one object, no
// duplicate member names, numbers that survive: canon, Rules.Canonical)
// and canonicalize to exactly want.Value; anything else (a duplicate key
// whose first and last values differ, a number that would be rounded) is
// not the same. Whole values (.sops.txt, .sops.bin) are never the same
// unless byte-equal.
func sameContent(canon func([]byte) ([]byte, error), want *model.Secret, v *CurrentValue) bool {
	if canon == nil || want == nil || want.Kind.Whole() || v == nil || !v.HasString || v.HasBinary {
		return false
	}
	c, err := canon(v.String)
	return err == nil && bytes.Equal(c, want.Value)
}

func classifyValue(want *model.Secret, obs ObservedSecret) Decision {
	v := obs.Current
	if v == nil || v.Missing {
		return Decision{Action: vocab.ActionUpdate, Reason: vocab.ReasonNoCurrentVersion}
	}
	if c, ok := currentConflict(obs); ok {
		return c
	}
	stored := v.String
	switch {
	case want.Kind.Binary() && !v.HasBinary:
		return Decision{Action: vocab.ActionUpdate, Reason: vocab.ReasonStoredValueString}
	case !want.Kind.Binary() && v.HasBinary:
		return Decision{Action: vocab.ActionUpdate, Reason: vocab.ReasonStoredValueBinary}
	case want.Kind.Binary():
		stored = v.Binary
	}
	if bytes.Equal(stored, want.Value) {
		return Decision{Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual}
	}
	return Decision{Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers}
}

// currentConflict is the conflict the value read shows, if any: a version
// other than DescribeSecret's AWSCURRENT (staging), both or neither
// payload (payload). obs.Current is not nil.
func currentConflict(obs ObservedSecret) (Decision, bool) {
	v := obs.Current
	if current := obs.CurrentVersionIDs(); v.StageMismatch || len(current) != 1 || v.VersionID != current[0] {
		c, _ := conflict(vocab.ConflictStaging)
		return c, true
	}
	if v.HasString == v.HasBinary {
		c, _ := conflict(vocab.ConflictPayload)
		return c, true
	}
	return Decision{}, false
}

// overTagLimit reports whether the tags d writes to the existing secret obs
// (TagResource: the three ownership tags of an adoption, the configured
// tags d.Metadata lists as missing or different) would leave it with more
// than model.MaxTagsPerSecret tags, AWS's limit per secret, in which tags
// whose key starts with aws: do not count (AWS's tagging rules; the
// emulator's mergeTags). A plan-time fact: the planner knows the live tags,
// so the write that would fail is a conflict (tag-limit) before anything
// is written, instead of an apply failure after other secrets (or other
// scopes) were. The other limits of a write are the configuration's:
// description and KMS key id length, the count and form of configured tags
// and of replica Regions are refused when the settings are resolved
// (model's metadata and replica rules, config:invalid-value), so no other
// write is known to fail from what the plan sees.
func overTagLimit(obs ObservedSecret, d Decision) bool {
	adopting := d.Action == vocab.ActionAdopt
	if !adopting && len(d.Metadata.Tags) == 0 {
		return false
	}
	keys := map[string]bool{}
	for k := range obs.Tags {
		if !strings.HasPrefix(strings.ToLower(k), "aws:") {
			keys[k] = true
		}
	}
	for _, k := range d.Metadata.Tags {
		keys[k] = true
	}
	if adopting {
		keys[model.TagManagedBy], keys[model.TagScope], keys[model.TagSource] = true, true, true
	}
	return len(keys) > model.MaxTagsPerSecret
}
