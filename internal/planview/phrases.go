package planview

import (
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// reasonPhrases are the renderers' words for each reason token.
var reasonPhrases = map[vocab.Reason]string{
	vocab.ReasonAbsent:               "not in AWS",
	vocab.ReasonValueDiffers:         "value differs",
	vocab.ReasonStoredValueBinary:    "stored value is binary",
	vocab.ReasonStoredValueString:    "stored value is a string",
	vocab.ReasonNoCurrentVersion:     "no current version",
	vocab.ReasonRestoreThenUpdate:    "restored, value differs",
	vocab.ReasonMetadata:             "metadata differs",
	vocab.ReasonScheduledForDeletion: "scheduled for deletion",
	vocab.ReasonNotDesired:           "no document in the commit",
	vocab.ReasonValueEqual:           "value equal",
	vocab.ReasonReplicas:             "replica Regions differ",
	vocab.ReasonReplica:              "replica of this secret's primary in another Region",
}

var unavailablePhrases = map[vocab.KeysUnavailable]string{
	vocab.KeysStoredValueBinary:    "stored value is binary",
	vocab.KeysStoredValueNotJSON:   "stored value is not JSON",
	vocab.KeysStoredValueNotObject: "stored value is not a JSON object",
}

// wholeValuePhrase is what a create or update of a whole value
// (.sops.txt, .sops.bin) says instead of key counts: that the value is
// written, never its length or a hash of it (SPEC §3.1). A metadata-only
// update of a whole value says nothing about the value; one that only
// changes the replica Regions (reason replicas: the planner makes it of an
// unchanged secret, plan.withReplicas) says the value is equal, since
// "changed" would read as a replaced certificate.
func wholeValuePhrase(o Op) string {
	switch {
	case o.Action == vocab.ActionCreate:
		return ": whole value"
	case o.Reason == vocab.ReasonMetadata:
		return ""
	case o.Reason == vocab.ReasonReplicas:
		return ": whole value equal"
	case o.Action == vocab.ActionAdopt && o.Reason == vocab.ReasonValueEqual:
		return ": whole value equal"
	}
	return ": whole value changed"
}

// conflictText is, per conflict class, what was found and what to do
// (docs/recovery.md, exit 4). A class every target can meet says
// {resource} (or {a resource}, with its article) for the target's
// resource and {deleted} for what its
// deletion does (conflictWords fills them from model.TargetWords); the
// others are Secrets Manager's own (rotation, replication, staging,
// payload) or Parameter Store's (parameter-shape).
var conflictText = map[vocab.ConflictClass][2]string{
	vocab.ConflictOwnership: {"{a resource} with this name exists and is not owned by this scope",
		"rename the document or choose another --secret-prefix; to take over {a resource} made by hand, name it in adopt (docs/migration.md); {a resource} carrying sops-aws-sync: tags of another scope is never adopted"},
	vocab.ConflictSource: {"owned by this scope, but created from another document",
		"rename the document back, or move it to a fresh name and let the old {resource} be {deleted} first"},
	vocab.ConflictSourceTag: {"the sops-aws-sync:source tag is not a 64-hex digest",
		"someone edited the tag: fix or remove the {resource} in AWS"},
	vocab.ConflictServiceOwned: {"another AWS service owns the secret",
		"move that service off this name, or choose another name"},
	vocab.ConflictRotation: {"rotation is on, or a version is labelled AWSPENDING",
		"let a rotation in flight finish, then re-run; a secret with a document keeps rotating when aws-owned lists the keys the rotation changes (docs/reconciliation.md, keys owned by AWS); otherwise turn rotation off"},
	vocab.ConflictReplication: {"the secret has a replica in a Region replica-regions does not list, or is a replica of a primary in another Region",
		"add each of its replica Regions to replica-regions so this scope manages them (an adopted secret keeps its replicas: docs/migration.md), or remove the unlisted replicas in AWS (remove-regions-from-replication); a replica of a primary in another Region is planned from the primary's Region"},
	vocab.ConflictReplicaClash: {"a Region listed in replica-regions already holds a secret of this name",
		"rename or delete that secret in the replica Region, or drop the Region from replica-regions; the tool never overwrites it"},
	vocab.ConflictStaging: {"more than one AWSCURRENT, or the value read disagrees with the description",
		"make sure only one writer touches the scope, then re-run; if it persists, fix the staging labels in AWS"},
	vocab.ConflictPayload: {"the current version has both or neither of SecretString and SecretBinary",
		"put a clean string version in AWS, or delete the secret"},
	vocab.ConflictAdoptDeleted: {"a secret named in adopt is scheduled for deletion",
		"restore it in AWS (RestoreSecret) if it is still wanted, or remove the adopt entry and let the deletion finish first"},
	vocab.ConflictAdoptMismatch: {"adopt-require-match is set and the live value differs from the document's",
		"make the document hold the live value (or the live value the document's), or drop adopt-require-match to let the commit's value win"},
	vocab.ConflictAWSOwnedMissing: {"a key aws-owned lists is missing from the live value, so the tool does not know it",
		"put the key back in AWS (rotate the secret, or write it once by hand), or drop it from aws-owned so the document's value is written"},
	vocab.ConflictTagLimit: {"the tags this run would add (ownership tags of an adoption, configured tags) would exceed AWS's 50 tags per secret",
		"remove tags from the secret in AWS (untag-resource) or configure fewer tags, then re-run; or adopt elsewhere: drop the adopt entry and let the document create a secret of another name"},
	vocab.ConflictParameterShape: {"the Parameter Store parameter is not a plain SecureString: its type is String or StringList, it has parameter policies, or its data type is not text",
		"find who changed it (a String parameter stores the value unencrypted: rotate the value), then delete the parameter in AWS so the next sync creates it as a SecureString, or remove its policies; docs/parameter-store.md"},
}

// caseText is, per conflict case (vocab.ConflictClass.Cases), what was
// found and what to do, where it differs from the class's conflictText
// (docs/recovery.md, exit 4).
var caseText = map[vocab.ConflictCase][2]string{
	vocab.CaseRotationInFlight: {"a rotation is in flight: a version is labelled AWSPENDING and not AWSCURRENT, and a write now would be dropped when the rotation finishes",
		"re-run after the rotation finishes (its last step moves AWSCURRENT); if it is stuck, fix or cancel the rotation in AWS first"},
	vocab.CaseRotationKeysNotListed: {"rotation is on (or a version is labelled AWSPENDING) and aws-owned lists none of the secret's keys",
		"list the keys the rotation changes in aws-owned (secret: its name relative to the prefix, keys: [/password]) so Git manages the others and AWS keeps those; or turn rotation off"},
}

// conflictWords is what a conflict of class c, in case k, says it found
// and the next action, in the target's words w: the case's words when it
// has its own, else the class's; ok is false for a class without words.
// immediate: the target deletes at once (model.Target.DeletionUndoable
// false), so an old resource is "deleted", not "scheduled for deletion".
func conflictWords(c vocab.ConflictClass, k vocab.ConflictCase, w model.TargetWords, immediate bool) ([2]string, bool) {
	t, ok := caseText[k]
	if !ok || k == "" {
		t, ok = conflictText[c]
	}
	deleted := "scheduled for deletion"
	if immediate {
		deleted = "deleted"
	}
	article := "a "
	if w.Resource != "" && strings.ContainsRune("aeiou", rune(w.Resource[0])) {
		article = "an "
	}
	in := strings.NewReplacer("{a resource}", article+w.Resource, "{resource}", w.Resource, "{deleted}", deleted)
	return [2]string{in.Replace(t[0]), in.Replace(t[1])}, ok
}

var (
	symbols = map[vocab.Action]string{
		vocab.ActionConflict: "!", vocab.ActionRestore: "^", vocab.ActionCreate: "+",
		vocab.ActionAdopt: "&", vocab.ActionUpdate: "~", vocab.ActionScheduleDelete: "-",
	}
	titles = map[vocab.Action]string{
		vocab.ActionRestore: "Restore", vocab.ActionCreate: "Create", vocab.ActionAdopt: "Adopt",
		vocab.ActionUpdate: "Update", vocab.ActionScheduleDelete: "Schedule deletion",
	}
)

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}
