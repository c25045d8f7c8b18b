package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// MaxValueBatch is the most values one GetCurrentValues call may request:
// the largest batch a store reads in one call (internal/awssm's; an
// adapter whose store reads fewer at once splits the batch).
const MaxValueBatch = 20

// Candidate is one resource nominated by discovery (ListCandidates). A
// listing is eventually consistent: a candidate is only a name to
// observe directly.
type Candidate struct {
	Name string
	// ARN is the id the store answers the resource by: its ARN, or its
	// name when the listing answers none (every method takes either).
	ARN string
	// Tags and Deleted are what the list entry said (eventually
	// consistent): used to tell this scope's entries from another scope's
	// when the list covers every managed resource, never as ownership.
	Tags    map[string]string
	Deleted bool
	// PrimaryRegion is the entry's primary Region when it is a replica (a
	// Replicator's store): a replica of a resource whose primary is in
	// another Region is never a candidate there (SPEC §12).
	PrimaryRegion string
	// Listed is the entry's observation as the listing answered it, set
	// only by a Surveyor (nil otherwise): the metadata the same store
	// answers for one name, with Tags holding only what the listing's
	// filters proved (the managed-by and scope tags), never the source
	// tag. The observer takes it instead of describing the name and
	// describes the name after all when the name's decision is anything
	// but unchanged (discovery_survey.go, confirm).
	Listed *plan.ObservedSecret
}

// ValueRequest asks for the current value of one resource.
type ValueRequest struct {
	// ID is the resource's ARN (or its name when no ARN is known).
	ID string
	// Name is the resource's name (to match batch answers; a store that
	// reads by name reads by it).
	Name string
	// CurrentVersionID is the version Describe reported current; the read
	// is cross-checked against it (SPEC §4.1 staging).
	CurrentVersionID string
}

// CreateRequest is one create: the value, the three reserved tags, the
// configured tags, KMS key and description go in the same request, so a
// new resource never exists without them (SPEC §4).
type CreateRequest struct {
	Name  string
	Value []byte
	// Kind says what Value is: model.KindBinary bytes, else text (SPEC
	// §3.1; a store that keeps no binary never gets one: the loader
	// refuses .sops.bin for its target, model.Target.StoresBinary).
	Kind model.ValueKind
	Tags map[string]string
	// KMSKeyID and Description: "" = not given (the store's default key,
	// no description).
	KMSKeyID    string
	Description string
	// Token is the logical write's idempotency token (32..64
	// characters): a store that takes one makes it the first version's
	// id and treats a repeat as the same request; a store without one has
	// its unclear outcomes judged by version (SPEC §6, §16).
	Token string
	// Replicas are the replica Regions created with the resource (never
	// overwriting a resource of that name there, SPEC §12); only ever
	// non-empty for a Replicator's store (config refuses replica-regions
	// for a target without replicas).
	Replicas []model.Replica
}

// WriteResult is what a successful create or value write reported.
type WriteResult struct {
	// ARN is the resource's ARN when the store answers it ("" otherwise:
	// the engine addresses the resource by name).
	ARN       string
	VersionID string
}

// Port is the engine's view of a store of values (SPEC §4, §6, §16): the
// core every target has. A store's optional capabilities are interfaces
// of their own (Restorer, Replicator, LabelMover, Surveyor), each asked
// once of the port when the runner is made (newRunner, newDiscovery) and
// held by the target's row (model.Target.Capabilities, CapabilitiesOf).
// Each adapter says which call of its service implements each method:
// internal/awssm (Secrets Manager), internal/awsps (Parameter Store).
//
// Error contract: every method returns either nil, the parent context's
// error (the run was cancelled: ctx.Err() is non-nil), or a *Error that
// holds no provider text. A missing resource is an observation (Describe
// returns Exists=false), not an error.
type Port interface {
	// ListCandidates lists every resource under the scope's prefix that
	// carries the managed-by tag and, unless scopeDigest is "", the scope
	// tag with scopeDigest, with its tags, one page after another. ""
	// lists every resource the tool manages there, in every scope (the
	// first observation of a run, which also looks for orphans). Tags are
	// not ownership: the engine keeps the entries of its scope whose name
	// is under the prefix (SPEC §9) before it describes anything.
	ListCandidates(ctx context.Context, scopeDigest string) ([]Candidate, error)
	// Describe observes one resource by name or ARN: its tags, key,
	// description, versions and which is current, whether its deletion is
	// pending. The result's Current is nil.
	Describe(ctx context.Context, id string) (plan.ObservedSecret, error)
	// GetCurrentValues reads the current values of up to MaxValueBatch
	// resources, in request order. A value of another version than the
	// one the request names as current is reported as StageMismatch; a
	// resource or version that is gone as Missing.
	GetCurrentValues(ctx context.Context, reqs []ValueRequest) ([]plan.CurrentValue, error)
	// Create creates the resource with its first value, tags and metadata
	// in one request (CreateRequest). A name that is taken is a *Error
	// with Exists.
	Create(ctx context.Context, req CreateRequest) (WriteResult, error)
	// PutValue writes value as the resource's new current version; kind
	// and token as in CreateRequest.
	PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (WriteResult, error)
	// Tag adds the given tags or overwrites their values; every other tag
	// stays. Safe to resend.
	Tag(ctx context.Context, id string, tags map[string]string) error
	// UpdateMetadata sets the KMS key and/or the description (nil = leave
	// as it is) and leaves the value as it is. Safe to resend.
	UpdateMetadata(ctx context.Context, id string, kmsKeyID, description *string) error
	// Delete deletes the resource, never beyond recovery when the store
	// can undo a deletion: a Restorer's store keeps it for
	// recoveryWindowDays (SPEC §5); a store without one deletes at once
	// and irreversibly (SPEC §16).
	Delete(ctx context.Context, id string, recoveryWindowDays int) error
}

// Restorer is a store whose deletions can be undone within their recovery
// window (model.CapRestore): the action restore.
type Restorer interface {
	// Restore cancels the resource's pending deletion.
	Restore(ctx context.Context, id string) error
}

// Replicator is a store that keeps copies of a resource in other Regions
// of the same account (model.CapReplicas; replica-regions, SPEC §12).
type Replicator interface {
	// Region is the Region the port's calls are signed for: the scope's
	// own, the primary's.
	Region() string
	// DescribeIn observes the resource named name in another Region of
	// the same account and credentials: a replica target must not hold a
	// resource of that name (conflict replica-clash).
	DescribeIn(ctx context.Context, region, name string) (plan.ObservedSecret, error)
	// Replicate adds replicas (Region and KMS key each), never
	// overwriting a resource of that name there. A Region that already
	// holds the resource's replica is left as it is, so it is safe to
	// resend.
	Replicate(ctx context.Context, id string, replicas []model.Replica) error
	// RemoveReplicas deletes the replicas in regions at once, with no
	// recovery window. A Region without a replica is ignored, so it is
	// safe to resend.
	RemoveReplicas(ctx context.Context, id string, regions []string) error
}

// LabelMover is a store whose versions carry labels that move from one
// version to another, the way AWS's rotation of the keys it owns moves
// them (model.CapLabels; aws-owned, SPEC §13).
type LabelMover interface {
	// MoveLabel removes label from version from and, unless to is "",
	// puts it on version to (moving the current label moves the previous
	// one to from). The store refuses the call when from does not hold
	// the label, so it changes nothing but the version the caller saw: a
	// compare-and-swap on the label (SPEC §13).
	MoveLabel(ctx context.Context, id, label, to, from string) error
}

// Surveyor is a store whose discovery listing carries each entry's
// metadata (model.CapSurvey; SPEC §16, observation in the fewest calls the
// API allows): the observer waits for discovery and describes only the
// names the listing does not settle, instead of one Describe per name.
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

// capabilities are a port's optional interfaces, asked once of it
// (capabilitiesOf, when the runner is made): nil where its store lacks
// the capability.
type capabilities struct {
	restorer   Restorer
	replicator Replicator
	labels     LabelMover
	surveyor   Surveyor
}

// capabilitiesOf asks port for each optional interface.
func capabilitiesOf(port Port) capabilities {
	var c capabilities
	c.restorer, _ = port.(Restorer)
	c.replicator, _ = port.(Replicator)
	c.labels, _ = port.(LabelMover)
	c.surveyor, _ = port.(Surveyor)
	return c
}

// has reports whether the port has capability k (false for one the
// engine does not know).
func (c capabilities) has(k model.Capability) bool {
	switch k {
	case model.CapRestore:
		return c.restorer != nil
	case model.CapReplicas:
		return c.replicator != nil
	case model.CapLabels:
		return c.labels != nil
	case model.CapSurvey:
		return c.surveyor != nil
	}
	return false
}

// CapabilitiesOf lists the capabilities port has beyond the core, in the
// order of model.Capabilities: the optional interfaces it implements. An
// adapter's are its target's (model.Target.Capabilities), which the
// factory's test of every adapter holds.
func CapabilitiesOf(port Port) []model.Capability {
	c := capabilitiesOf(port)
	var out []model.Capability
	for _, k := range model.Capabilities {
		if c.has(k) {
			out = append(out, k)
		}
	}
	return out
}

// errLacking is the error of a call a step or an observation would make
// through a capability the port lacks: never reached while config refuses
// the settings that need it for the target (model.Target.Refuses), so a
// programming error, failed closed (internal).
var errLacking = errors.New("engine: the port lacks the capability this call needs")

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
