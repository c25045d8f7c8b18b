package secretsmanager

import "time"

// SecretDump is one secret in a StateDump.
type SecretDump struct {
	// Account and Region are where the secret lives (its ARN says the same).
	Account         string            `json:"account"`
	Region          string            `json:"region"`
	Name            string            `json:"name"`
	ARN             string            `json:"arn"`
	Description     string            `json:"description"`
	KmsKeyID        string            `json:"kms_key_id"` // as DescribeSecret shows it; "" when left out (no key, or "", given)
	Tags            map[string]string `json:"tags"`
	DeletedDate     *time.Time        `json:"deleted_date"`
	RotationEnabled bool              `json:"rotation_enabled"`
	// LastRotatedDate is when the last rotation finished (nil: never;
	// POST /_emulator/rotation step "finish").
	LastRotatedDate *time.Time `json:"last_rotated_date,omitempty"`
	OwningService   string     `json:"owning_service"`
	// ReplicaRegions are a primary's replica Regions (any status);
	// ReplicationStatus their status as DescribeSecret shows it now.
	ReplicaRegions    []string            `json:"replica_regions"`
	ReplicationStatus []ReplicaStatusDump `json:"replication_status,omitempty"`
	// PrimaryRegion is as DescribeSecret shows it: this Region for a
	// primary with replicas, the primary's Region for a replica (Replica
	// true: read-only, written only by replication).
	PrimaryRegion string `json:"primary_region,omitempty"`
	Replica       bool   `json:"replica,omitempty"`
	// ResourcePolicy is the resource policy's JSON text ("" when none).
	ResourcePolicy string        `json:"resource_policy,omitempty"`
	Versions       []VersionDump `json:"versions"`
}

// ReplicaStatusDump is one replica of a primary in a SecretDump: its
// Region, KMS key as given ("" for aws/secretsmanager), Status (InSync,
// InProgress or Failed) and StatusMessage.
type ReplicaStatusDump struct {
	Region        string `json:"region"`
	KmsKeyID      string `json:"kms_key_id"`
	Status        string `json:"status"`
	StatusMessage string `json:"status_message,omitempty"`
}

// VersionDump is one version of a secret, deprecated (label-less) versions
// included, in creation order. SecretString is nil when the version holds
// no string; SecretBinary is nil when it holds no binary (base64 in JSON).
type VersionDump struct {
	VersionID    string    `json:"version_id"`
	Stages       []string  `json:"stages"`
	SecretString *string   `json:"secret_string,omitempty"`
	SecretBinary []byte    `json:"secret_binary,omitempty"`
	CreatedDate  time.Time `json:"created_date"`
	// KmsKeyIDs are the KMS keys that can decrypt this version, oldest
	// first, as ListSecretVersionIds shows them (DefaultEncryptionKey for
	// the AWS managed key).
	KmsKeyIDs []string `json:"kms_key_ids"`
}

// Conditions puts one secret (Name: its name or ARN) into states that the
// tool must refuse to touch (POST /_emulator/conditions). Nil fields are left
// as they are.
type Conditions struct {
	Name string `json:"name"`
	// Account and Region choose the (account, Region) the secret lives in;
	// empty means the ARN's when Name is an ARN, else the default ones.
	Account string `json:"account,omitempty"`
	Region  string `json:"region,omitempty"`
	// RotationEnabled sets RotationEnabled (with a placeholder rotation Lambda
	// ARN and rules when true).
	RotationEnabled *bool `json:"rotation_enabled,omitempty"`
	// PendingVersion true adds a new version labelled AWSPENDING (holding a
	// copy of the current value); false removes AWSPENDING from every version.
	PendingVersion *bool `json:"pending_version,omitempty"`
	// ReplicaRegions, when non-nil, replaces the replica Regions ([] clears
	// them): missing replicas are created InSync at once in those Regions
	// of the secret's account (no lag, no failure fault; a same-name
	// secret there makes the replica Failed), dropped ones are deleted.
	// PrimaryRegion becomes the secret's Region while there are any.
	ReplicaRegions []string `json:"replica_regions"`
	// OwningService sets OwningService ("" clears it).
	OwningService *string `json:"owning_service,omitempty"`
	// ExtraCurrentStage true puts AWSCURRENT on a second version (a new one
	// when the secret has only one), a state AWS never produces; false
	// leaves AWSCURRENT only on the newest version that holds it.
	ExtraCurrentStage *bool `json:"extra_current_stage,omitempty"`
	// CurrentPayload "both" or "neither" adds a new version holding both a
	// string and a binary, or neither, and moves AWSCURRENT to it: payloads
	// AWS never stores (an addition to the list, for SPEC §4.1's
	// payload conflict).
	CurrentPayload *string `json:"current_payload,omitempty"`
}
