package plan

import (
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Staging labels with a meaning to the planner (AWS API: version stages).
const (
	StageCurrent = "AWSCURRENT"
	StagePending = "AWSPENDING"
)

// CurrentValue is the value read for a secret's current version
// (GetSecretValue or BatchGetSecretValue, SPEC §4). It is only read for
// owned, active, conflict-free desired secrets with exactly one AWSCURRENT.
type CurrentValue struct {
	// VersionID is the id of the version the value was read from.
	VersionID string
	// HasString and String: SecretString was present, and its bytes.
	HasString bool
	String    []byte
	// HasBinary and Binary: SecretBinary was present, and its bytes.
	HasBinary bool
	Binary    []byte
	// Missing: the read found no current version (no AWSCURRENT, or the
	// secret went away between DescribeSecret and the read). It plans an
	// update; the apply precondition then sees the real state.
	Missing bool
	// StageMismatch: the version read is not the one DescribeSecret reported
	// as AWSCURRENT (a staging conflict, SPEC §4.1).
	StageMismatch bool
}

// ObservedSecret is what a direct DescribeSecret (plus, where needed, the
// current value) showed about one name. The zero value means "absent".
type ObservedSecret struct {
	Exists bool
	// ARN is the full ARN; the engine addresses the secret by it once known.
	ARN string
	// NamedARN: ARN follows from the name (and the Region and account), as
	// a Parameter Store parameter's does, where a secret's carries a
	// random suffix. Such an ARN tells the resource from nothing its name
	// does not, and anyone with a guess of the name can compute it, so a
	// plan file's keyed digests leave it out, and the source tag with it
	// (planview.Observed; docs/security.md).
	NamedARN bool
	Name     string
	Tags     map[string]string
	// KMSKeyID is DescribeSecret's KmsKeyId ("" = the AWS managed key
	// aws/secretsmanager); Description its Description.
	KMSKeyID    string
	Description string
	// Deleted: scheduled for deletion (DescribeSecret returned DeletedDate).
	Deleted         bool
	OwningService   string
	RotationEnabled bool
	// ReplicaRegions are the Regions of the secret's replicas (a primary's
	// ReplicationStatus), sorted; Replicas the same with their key and
	// status, in the same order (nil when only the Regions are known).
	ReplicaRegions []string
	Replicas       []ObservedReplica
	// PrimaryRegion is DescribeSecret's PrimaryRegion: "" for a secret that
	// was never replicated, its own Region for a primary, the primary's
	// Region for a replica (SPEC §12).
	PrimaryRegion string
	// Clashes are the Regions, of those ReplicaTargets named, where a
	// secret of this name exists that is not this secret's replica
	// (filled by the engine's observation; conflict replica-clash).
	Clashes []string
	// Versions are DescribeSecret's VersionIdsToStages, one entry per
	// labelled version, in any order (a list, not a map: a map per secret
	// cost about 380 bytes for the usual single version, 17 MiB of live heap
	// at 50,000 secrets; docs/benchmarks.md).
	Versions []Version
	// Current is the value read for the current version; nil when not read.
	Current *CurrentValue
	// Shape is set by a target whose resources come in shapes the tool
	// does not write (SPEC §16, docs/parameter-store.md): for a Parameter
	// Store parameter "type" (String or StringList, not SecureString),
	// "policy" (parameter policies attached) or "data-type" (a data type
	// other than text); "" for any resource the tool may write. An owned
	// one is conflict parameter-shape.
	Shape string
}

// Version is one labelled version of a secret: its version id and its
// staging labels (DescribeSecret's VersionIdsToStages entry; AWS API
// reference).
type Version struct {
	ID     string
	Stages []string
}

// ObservedReplica is one entry of a primary's ReplicationStatus: the
// Region, the replica's KMS key and its status (model.ReplicaInSync,
// ReplicaInProgress, ReplicaFailed). AWS's status message is never kept:
// it is provider text.
type ObservedReplica struct {
	Region   string
	KMSKeyID string
	Status   string
}

// replicaStatus is the status of the replica in region ("" when the
// observation has no status for it).
func (o ObservedSecret) replicaStatus(region string) string {
	for _, r := range o.Replicas {
		if r.Region == region {
			return r.Status
		}
	}
	return ""
}

// Owned reports whether the managed-by and scope tags both match
// (SPEC §4: owned = managed-by and scope both match).
func (o ObservedSecret) Owned(scopeDigest string) bool {
	return o.Exists && o.Tags[model.TagManagedBy] == model.ManagedByValue && o.Tags[model.TagScope] == scopeDigest
}

// Replica reports whether obs is a replica of a secret whose primary is in
// another Region: PrimaryRegion is set and is not the Region of the ARN it
// was observed under (SPEC §11: adopted only when PrimaryRegion is absent
// or the scope's Region).
func (o ObservedSecret) Replica() bool {
	return o.PrimaryRegion != "" && o.PrimaryRegion != arnRegion(o.ARN)
}

// arnRegion is the Region field of an ARN (arn:partition:service:region:…);
// "" when arn has fewer fields.
func arnRegion(arn string) string {
	f := strings.SplitN(arn, ":", 5)
	if len(f) < 5 {
		return ""
	}
	return f[3]
}

// hasOurTag reports whether any tag key starts with model.TagPrefix: a
// secret that carries one was made by this tool (for another scope or
// once, half-tagged) and is never adopted.
func (o ObservedSecret) hasOurTag() bool {
	for k := range o.Tags {
		if strings.HasPrefix(strings.ToLower(k), model.TagPrefix) {
			return true
		}
	}
	return false
}

// CurrentVersionIDs returns, sorted, the ids of the versions labelled
// AWSCURRENT. More than one is a staging conflict; none plans an update.
func (o ObservedSecret) CurrentVersionIDs() []string {
	var ids []string
	for _, v := range o.Versions {
		if slices.Contains(v.Stages, StageCurrent) {
			ids = append(ids, v.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func (o ObservedSecret) hasPending() bool {
	for _, v := range o.Versions {
		if slices.Contains(v.Stages, StagePending) {
			return true
		}
	}
	return false
}

// rotationInFlight reports whether a rotation has begun and not finished:
// a version holds AWSPENDING and not AWSCURRENT (SPEC §13; a finished
// rotation moves AWSCURRENT to the pending version and removes
// AWSPENDING, and a label left on the current version is no rotation).
func (o ObservedSecret) rotationInFlight() bool {
	for _, v := range o.Versions {
		if slices.Contains(v.Stages, StagePending) && !slices.Contains(v.Stages, StageCurrent) {
			return true
		}
	}
	return false
}
