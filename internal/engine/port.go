package engine

import (
	"context"
	"fmt"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// MaxValueBatch is the most values one GetCurrentValues call may request:
// BatchGetSecretValue accepts 1..20 ids (AWS API reference).
const MaxValueBatch = 20

// Candidate is one secret nominated by discovery (ListSecrets). The list is
// eventually consistent: a candidate is only a name to observe directly.
type Candidate struct {
	Name string
	ARN  string
	// Tags and Deleted are what the list entry said (eventually
	// consistent): used to tell this scope's entries from another scope's
	// when the list covers every managed secret, never as ownership.
	Tags    map[string]string
	Deleted bool
	// PrimaryRegion is the entry's PrimaryRegion: a replica of a secret
	// whose primary is in another Region is never a candidate there
	// (SPEC §12).
	PrimaryRegion string
	// Listed is the entry's observation as the listing answered it, set
	// only by a Surveyor (nil otherwise): the metadata the same API
	// answers for one name, with Tags holding only what the listing's
	// filters proved (the managed-by and scope tags), never the source
	// tag. The observer takes it instead of describing the name and
	// describes the name after all when the name's decision is anything
	// but unchanged (discovery_survey.go, confirm).
	Listed *plan.ObservedSecret
}

// Surveyor is a Port whose discovery listing carries each entry's
// metadata (Parameter Store: DescribeParameters answers a page of 50 with
// what it answers for one name; SPEC §16, observation in the fewest calls
// the API allows): the observer waits for discovery and describes only
// the names the listing does not settle, instead of one Describe per name.
type Surveyor interface {
	// Present lists every name under the scope's prefix whatever its tags
	// (one listing), so that the desired names discovery did not list are
	// told absent or present without one call per name.
	Present(ctx context.Context) (map[string]bool, error)
	// ListScope is ListCandidates with this scope's digest that hands
	// each entry to each as its page arrives (from the calling goroutine,
	// in order), then returns them all.
	ListScope(ctx context.Context, each func(Candidate)) ([]Candidate, error)
	// Others lists the entries under the prefix that the tool manages,
	// less the names in own (this scope's, as ListCandidates with the
	// scope digest returned them), with their tags: ListCandidates("")
	// less own, listed apart so that the orphan check runs beside the
	// observation of the scope's own entries.
	Others(ctx context.Context, own map[string]bool) ([]Candidate, error)
}

// ValueRequest asks for the current value of one secret.
type ValueRequest struct {
	// ID is the full ARN (or the name when no ARN is known).
	ID string
	// Name is the secret's name (to match batch answers).
	Name string
	// CurrentVersionID is the version DescribeSecret reported as AWSCURRENT;
	// the read is cross-checked against it (SPEC §4.1 staging).
	CurrentVersionID string
}

// CreateRequest is one CreateSecret call: the value, the three reserved
// tags, the configured tags, KMS key and description go in the same
// request (SPEC §4).
type CreateRequest struct {
	Name  string
	Value []byte
	// Kind says which field holds Value: SecretBinary for
	// model.KindBinary, SecretString otherwise (SPEC §3.1).
	Kind model.ValueKind
	Tags map[string]string
	// KMSKeyID and Description: "" = not given (the AWS managed key, no
	// description).
	KMSKeyID    string
	Description string
	// Token is the ClientRequestToken (32..64 chars); it becomes the
	// version id of the first version.
	Token string
	// Replicas are the replica Regions created with the secret
	// (AddReplicaRegions; never ForceOverwriteReplicaSecret, SPEC §12).
	Replicas []model.Replica
}

// WriteResult is what a successful create or update reported.
type WriteResult struct {
	ARN       string
	VersionID string
}

// Port is the engine's view of AWS Secrets Manager (SPEC §4, §6). The
// adapter in internal/awssm implements it with aws-sdk-go-v2.
//
// Error contract: every method returns either nil, the parent context's
// error (the run was cancelled: ctx.Err() is non-nil), or a *Error that
// holds no provider text. A missing secret is an observation (Describe
// returns Exists=false), not an error.
type Port interface {
	// ListCandidates pages through ListSecrets (IncludePlannedDeletion,
	// filtered on the managed-by tag key and the scope digest tag value,
	// MaxResults 100), sequentially, and returns every entry with its tags.
	// scopeDigest "" drops the scope filter: every secret the tool manages
	// in the account and Region, in every scope (the first observation of a
	// run, which also looks for orphans). Tags are not ownership:
	// the engine keeps entries of its scope whose name is under the prefix
	// (SPEC §9) before it describes anything.
	ListCandidates(ctx context.Context, scopeDigest string) ([]Candidate, error)
	// Describe observes one secret by name or full ARN (DescribeSecret).
	// The result's Current is nil.
	Describe(ctx context.Context, id string) (plan.ObservedSecret, error)
	// GetCurrentValues reads the AWSCURRENT values of up to MaxValueBatch
	// secrets, in request order. A version that is not the one the request
	// names as current is reported as StageMismatch; a secret or version
	// that is gone as Missing.
	GetCurrentValues(ctx context.Context, reqs []ValueRequest) ([]plan.CurrentValue, error)
	// Create calls CreateSecret with the value, tags and token.
	Create(ctx context.Context, req CreateRequest) (WriteResult, error)
	// PutValue calls PutSecretValue (a new AWSCURRENT version) with token,
	// the value in SecretBinary for model.KindBinary, else in SecretString.
	PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (WriteResult, error)
	// ScheduleDelete calls DeleteSecret with RecoveryWindowInDays; never
	// ForceDeleteWithoutRecovery (SPEC §5).
	ScheduleDelete(ctx context.Context, id string, recoveryWindowDays int) error
	// Restore calls RestoreSecret (cancels a scheduled deletion).
	Restore(ctx context.Context, id string) error
	// UpdateMetadata calls UpdateSecret without a value, setting the KMS
	// key and/or the description (nil = leave as it is). It creates no
	// version (AWS API reference, UpdateSecret) and is safe to resend.
	UpdateMetadata(ctx context.Context, id string, kmsKeyID, description *string) error
	// Tag calls TagResource: the given keys are added or overwritten,
	// every other tag stays. Safe to resend.
	Tag(ctx context.Context, id string, tags map[string]string) error
	// MoveStage calls UpdateSecretVersionStage: the staging label stage
	// is removed from version removeFrom and, unless moveTo is "", put on
	// version moveTo (moving AWSCURRENT moves AWSPREVIOUS to removeFrom).
	// AWS refuses the call (InvalidParameterException) when removeFrom
	// does not hold the label, so it changes nothing but the version the
	// caller saw: a compare-and-swap on the label (AWS API reference,
	// UpdateSecretVersionStage; SPEC §13). Parameter Store has no staging
	// labels: never called there.
	MoveStage(ctx context.Context, id, stage, moveTo, removeFrom string) error

	// Region is the Region the port's calls are signed for: the scope's
	// own Region, a primary's (SPEC §12).
	Region() string
	// DescribeIn observes the secret named name in another Region of the
	// same account and credentials (DescribeSecret there): a replica
	// target must not hold a secret of that name (conflict replica-clash).
	DescribeIn(ctx context.Context, region, name string) (plan.ObservedSecret, error)
	// Replicate calls ReplicateSecretToRegions with the replicas (Region
	// and KMS key each), never ForceOverwriteReplicaSecret. A Region that
	// already holds the secret's replica is left as it is (AWS API
	// reference), so it is safe to resend.
	Replicate(ctx context.Context, id string, replicas []model.Replica) error
	// RemoveReplicas calls RemoveRegionsFromReplication: the replicas in
	// regions are deleted at once, with no recovery window. A Region
	// without a replica is ignored, so it is safe to resend.
	RemoveReplicas(ctx context.Context, id string, regions []string) error
}

// Fault classes of an *Error (SPEC §7.3).
const (
	FaultClient = "client"
	FaultServer = "server"
)

// Error is an AWS failure reduced to what may be logged and reasoned on
// (SPEC §7.3): never the provider's message text.
type Error struct {
	// Operation is the AWS operation name, e.g. "CreateSecret".
	Operation string
	// Code is the modelled AWS error code (e.g. "ThrottlingException"), or
	// one of our own tokens for failures without a service answer:
	// "Timeout", "ConnectionError", "ClientValidation", "UnknownError".
	Code string
	// Fault is FaultClient or FaultServer.
	Fault string
	// RequestID is the service's request id ("" when no answer came).
	RequestID string
	// NotFound: the resource is not there (ResourceNotFoundException,
	// Parameter Store's ParameterNotFound).
	NotFound bool
	// Exists: a create met an existing name (ResourceExistsException,
	// Parameter Store's ParameterAlreadyExists).
	Exists bool
	// AccessDenied: the caller may not do this (an observation failure,
	// never a conflict, SPEC §4.1).
	AccessDenied bool
	// Ambiguous: the request may or may not have taken effect (timeout,
	// connection lost, server fault) (SPEC §6).
	Ambiguous bool
	// Throttled: the quota refused the request (ThrottlingException), or
	// the service refused it for a reason that passes the same way
	// (Parameter Store's TooManyUpdates: a concurrent update of the same
	// parameter); it was not executed, so it is never ambiguous and is
	// safe to resend for every operation kind.
	Throttled bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("aws %s failed: %s (%s fault)", e.Operation, e.Code, e.Fault)
}
