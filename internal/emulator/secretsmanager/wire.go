package secretsmanager

import (
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Wire shapes of the awsJson1_1 protocol (reference §7). Every member is
// optional on the wire; pointers distinguish "absent" from "zero". Output
// shapes leave out empty fields ("Secrets Manager only returns fields that
// have a value").

// Exact AWS messages (reference §1 "Deleted-secret and state messages").
const (
	msgNotFound          = "Secrets Manager can't find the specified secret."
	msgMarkedForDeletion = "You can't perform this operation on the secret because it was marked for deletion."
	msgCreateScheduled   = "You can't create this secret because a secret with this name is already scheduled for deletion."
	msgInvalidName       = "Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!"
	msgTokenLength       = "ClientRequestToken must be 32-64 characters long."
	msgNeedToken         = "You must provide a ClientRequestToken value. We recommend a UUID-type value."
	msgNeedValue         = "You must provide either SecretString or SecretBinary."
	msgBothValues        = "You can't specify both a binary secret value and a string secret value in the same secret."
)

func errNotFound() *core.Error { return core.Errf("ResourceNotFoundException", msgNotFound) }
func errMarked() *core.Error   { return core.Errf("InvalidRequestException", msgMarkedForDeletion) }

type wireFilter struct {
	Key    *string  `json:"Key"`
	Values []string `json:"Values"`
}

type createSecretIn struct {
	Name                        *string
	ClientRequestToken          *string
	Description                 *string
	KmsKeyID                    *string
	SecretBinary                []byte
	SecretString                *string
	Tags                        []core.Tag
	AddReplicaRegions           []replicaRegionIn
	ForceOverwriteReplicaSecret bool
	Type                        *string
}

type putSecretValueIn struct {
	SecretID           *string
	ClientRequestToken *string
	SecretBinary       []byte
	SecretString       *string
	VersionStages      []string
	RotationToken      *string
}

type updateSecretIn struct {
	SecretID           *string
	ClientRequestToken *string
	Description        *string
	KmsKeyID           *string
	SecretBinary       []byte
	SecretString       *string
	Type               *string
}

type secretIDIn struct {
	SecretID *string
}

type getSecretValueIn struct {
	SecretID     *string
	VersionID    *string
	VersionStage *string
}

type batchGetIn struct {
	SecretIDList []string
	Filters      []wireFilter
	MaxResults   *int64
	NextToken    *string
}

type listSecretsIn struct {
	IncludePlannedDeletion *bool
	MaxResults             *int64
	NextToken              *string
	Filters                []wireFilter
	SortOrder              *string
	SortBy                 *string
}

type listVersionIDsIn struct {
	SecretID          *string
	MaxResults        *int64
	NextToken         *string
	IncludeDeprecated *bool
}

type deleteSecretIn struct {
	SecretID                   *string
	RecoveryWindowInDays       *int64
	ForceDeleteWithoutRecovery *bool
}

type tagResourceIn struct {
	SecretID *string
	Tags     []core.Tag
}

type untagResourceIn struct {
	SecretID *string
	TagKeys  []string
}

type updateStageIn struct {
	SecretID            *string
	VersionStage        *string
	RemoveFromVersionID *string
	MoveToVersionID     *string
}

type putPolicyIn struct {
	SecretID          *string
	ResourcePolicy    *string
	BlockPublicPolicy *bool
}

type policyOut struct {
	ARN            string `json:"ARN"`
	Name           string `json:"Name"`
	ResourcePolicy string `json:"ResourcePolicy,omitempty"`
}

type replicaRegionIn struct {
	Region   *string
	KmsKeyID *string
}

type replicateIn struct {
	SecretID                    *string
	AddReplicaRegions           []replicaRegionIn
	ForceOverwriteReplicaSecret bool
}

type removeRegionsIn struct {
	SecretID             *string
	RemoveReplicaRegions []string
}

type replicationOut struct {
	ARN               string              `json:"ARN"`
	ReplicationStatus []replicationStatus `json:"ReplicationStatus,omitempty"`
}

// replicationStatus is the model's ReplicationStatusType.
type replicationStatus struct {
	Region        string `json:"Region"`
	KmsKeyID      string `json:"KmsKeyId,omitempty"`
	Status        string `json:"Status"`
	StatusMessage string `json:"StatusMessage,omitempty"`
}

type rotationRules struct {
	AutomaticallyAfterDays int64 `json:"AutomaticallyAfterDays,omitempty"`
}

// secretMeta is the body shared by DescribeSecret and a ListSecrets entry;
// the version map's key differs between them (reference §1 "Trap"), so it
// is carried by the two wrappers below.
type secretMeta struct {
	ARN               string              `json:"ARN"`
	Name              string              `json:"Name"`
	Description       string              `json:"Description,omitempty"`
	KmsKeyID          string              `json:"KmsKeyId,omitempty"`
	RotationEnabled   *bool               `json:"RotationEnabled,omitempty"`
	RotationLambdaARN string              `json:"RotationLambdaARN,omitempty"`
	RotationRules     *rotationRules      `json:"RotationRules,omitempty"`
	LastRotatedDate   *core.Epoch         `json:"LastRotatedDate,omitempty"`
	NextRotationDate  *core.Epoch         `json:"NextRotationDate,omitempty"`
	LastChangedDate   *core.Epoch         `json:"LastChangedDate,omitempty"`
	LastAccessedDate  *core.Epoch         `json:"LastAccessedDate,omitempty"`
	DeletedDate       *core.Epoch         `json:"DeletedDate,omitempty"`
	Tags              []core.TagOut       `json:"Tags,omitempty"`
	OwningService     string              `json:"OwningService,omitempty"`
	CreatedDate       *core.Epoch         `json:"CreatedDate,omitempty"`
	PrimaryRegion     string              `json:"PrimaryRegion,omitempty"`
	ReplicationStatus []replicationStatus `json:"ReplicationStatus,omitempty"`
}

type describeOut struct {
	secretMeta
	VersionIdsToStages map[string][]string `json:"VersionIdsToStages,omitempty"`
}

type listEntryOut struct {
	secretMeta
	SecretVersionsToStages map[string][]string `json:"SecretVersionsToStages,omitempty"`
}

type listSecretsOut struct {
	SecretList []listEntryOut `json:"SecretList"`
	NextToken  string         `json:"NextToken,omitempty"`
}

type secretValueOut struct {
	ARN           string      `json:"ARN"`
	Name          string      `json:"Name"`
	VersionID     string      `json:"VersionId"`
	SecretBinary  []byte      `json:"SecretBinary,omitempty"`
	SecretString  *string     `json:"SecretString,omitempty"`
	VersionStages []string    `json:"VersionStages,omitempty"`
	CreatedDate   *core.Epoch `json:"CreatedDate,omitempty"`
}

type batchErrorOut struct {
	SecretID  string `json:"SecretId"`
	ErrorCode string `json:"ErrorCode"`
	Message   string `json:"Message"`
}

type batchGetOut struct {
	SecretValues []secretValueOut `json:"SecretValues"`
	Errors       []batchErrorOut  `json:"Errors,omitempty"`
	NextToken    string           `json:"NextToken,omitempty"`
}

type arnNameVersionOut struct {
	ARN               string              `json:"ARN"`
	Name              string              `json:"Name"`
	VersionID         string              `json:"VersionId,omitempty"`
	VersionStages     []string            `json:"VersionStages,omitempty"`
	ReplicationStatus []replicationStatus `json:"ReplicationStatus,omitempty"`
}

type deleteOut struct {
	ARN          string      `json:"ARN"`
	Name         string      `json:"Name"`
	DeletionDate *core.Epoch `json:"DeletionDate,omitempty"`
}

type versionEntryOut struct {
	VersionID        string      `json:"VersionId"`
	VersionStages    []string    `json:"VersionStages,omitempty"`
	LastAccessedDate *core.Epoch `json:"LastAccessedDate,omitempty"`
	CreatedDate      *core.Epoch `json:"CreatedDate,omitempty"`
	KmsKeyIDs        []string    `json:"KmsKeyIds,omitempty"`
}

type listVersionIDsOut struct {
	Versions  []versionEntryOut `json:"Versions"`
	NextToken string            `json:"NextToken,omitempty"`
	ARN       string            `json:"ARN"`
	Name      string            `json:"Name"`
}

type updateStageOut struct {
	ARN  string `json:"ARN"`
	Name string `json:"Name"`
}
