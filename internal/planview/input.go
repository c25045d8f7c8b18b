package planview

import (
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Input is the plan data a view is built from: plain values, unredacted,
// in any order. The engine's plan of each scope (plan.Plan plus the
// per-secret key-level summaries) is turned into a ScopeInput by the
// caller; Build redacts it.
type Input struct {
	// Command is the command that made the plan: "plan" or "sync"; "" when
	// the run ended before it was known.
	Command string
	// Salt keys every digest the view holds (repository_digest,
	// settings_digest, fingerprints; SPEC §14): 16 random bytes chosen per
	// plan file by the caller, or a reviewed file's own when the view is
	// built to be compared with it (DigestSalt). Nil: the view binds
	// nothing (no digest and no fingerprint is written).
	Salt []byte
	// RepositoryID is the run's repository-id ("" when not resolved); the
	// view holds only its keyed digest.
	RepositoryID string
	// GitRevision is the resolved 40-hex commit, or "" when the run ended
	// before it was resolved.
	GitRevision string
	// Reviewed is the reviewed plan a sync applied (--reviewed-plan, its
	// plan equal to the reviewed one; SPEC §14), nil otherwise.
	Reviewed *Reviewed
	// Scopes are the run's scopes in configuration order (SPEC §10): one
	// named "default" for a run without scopes:, none when the run ended
	// before its scopes were known (a usage error or a rejected
	// configuration; Diagnostics then say why).
	Scopes []ScopeInput
	// Diagnostics are the run's own problems, not any one scope's (the
	// command line, the configuration, Git, the outputs, an interruption),
	// and its warnings (diag.IsWarning), each with a subject its producer
	// redacted (diag.Subject: a path only when names are shown). Build
	// writes each as its diag.Record.
	Diagnostics diag.Diagnostics
}

// ScopeInput is the plan data of one scope.
type ScopeInput struct {
	// Name is the scope's name ([a-z0-9-]{1,32}, SPEC §10; "default" for a
	// run without scopes:).
	Name string
	// Region is the scope's AWS Region code, or "" when it was not resolved
	// by the configuration (the SDK's chain chose it, or the run ended
	// first).
	Region string
	// Status and Verification are the scope's own outcome (SPEC §7.1 words).
	Status       vocab.Status
	Verification vocab.Verification
	// SourceTree is the Git tree id of the scope's source root at the
	// commit (model.State.SourceTree), "" when not loaded.
	SourceTree string
	// Settings are the scope's plan-shaping settings
	// (config.Scope.PlanSettings), nil when not resolved; the view holds
	// only their keyed digest.
	Settings []byte
	// Operations holds one entry per secret the scope's plan classified:
	// every operation, conflict and unchanged name (not the foreign names
	// the plan ignores).
	Operations []Operation
	// Diagnostics are the problems that stopped or limited this scope, and
	// its warnings (as Input.Diagnostics).
	Diagnostics diag.Diagnostics
	// Failures are the scope's failure records, in the order the run met
	// them: each operation that failed, an observation that failed, each
	// resource still differing at the verification timeout.
	Failures []Failure
	// Target is the scope's target ("" is the default, Secrets Manager):
	// the view records only another (ScopeView.Target).
	Target model.Target
}

// Failure is one failure record of a scope, unredacted (Build labels
// it): what failed, why, and what the operator grants or looks at. It
// holds no provider text: an AWS error code is a modelled code (or one of
// the tool's own, engine.Error), the IAM actions come from the table
// vocab.IAMActions.
type Failure struct {
	// Ordinal and Name are the secret the record is about (the logs'
	// resource ordinal; the name is shown only when names are shown); 0
	// and "" for a record about the scope as a whole (the observation
	// of its secrets failed).
	Ordinal int
	Name    string
	// Class is a registered diag class: apply:failed, observe:failed,
	// verify:not-converged, verify:changed-elsewhere.
	Class string
	// Action is the operation that failed (apply:failed) or that the scope
	// would still need (verify:not-converged), with its Reason and the
	// kinds of metadata it changes; empty for an observation.
	Action   vocab.Action
	Reason   vocab.Reason
	Metadata []vocab.MetadataKind
	// ErrorCode is the AWS error code of the failed call
	// (AccessDeniedException), "" when none came (an outcome not proven).
	ErrorCode string
	// IAMActions are the IAM actions the failed call needs
	// (vocab.IAMActions), the call's own first; empty when the failure was
	// not a refused call.
	IAMActions []string
}

// Operation is what the plan does with one secret.
type Operation struct {
	// Ordinal is the resource ordinal (model.Secret.Ordinal for a desired
	// secret; the engine's continuing ordinal for one that is not desired).
	Ordinal int
	// Name is the secret name; shown only when names are shown.
	Name string
	// Action is the plan action.
	Action vocab.Action
	// Reason is one of Action.Reasons(); ignored for a conflict, whose
	// reason is its Conflict class.
	Reason vocab.Reason
	// Conflict is set only when Action is vocab.ActionConflict.
	Conflict vocab.ConflictClass
	// Case is which case of Conflict was found (plan.Conflict.Case); ""
	// for none, ignored for other actions.
	Case vocab.ConflictCase
	// Keys is the key-level change summary (internal/keydiff); required for
	// create and update, ignored otherwise.
	Keys *keydiff.Summary
	// Metadata lists the kinds of configured metadata an update changes
	// (--kms-key-id, --description, --tag), in vocab.MetadataKinds order;
	// ignored for other actions.
	Metadata []vocab.MetadataKind
	// ReplicasAdded and ReplicasRemoved are the Regions whose replicas a
	// create or update adds, or an update or schedule-delete removes
	// (replica-regions, SPEC §12); Region codes, never names.
	ReplicasAdded   []string
	ReplicasRemoved []string
	// AWSOwnedKept is the number of the secret's keys owned by AWS
	// (aws-owned, SPEC §13) that the plan kept; ignored on a conflict.
	AWSOwnedKept int
	// Observed is what planning observed of the secret of an operation
	// (nil for conflict and unchanged entries); the view holds only its
	// keyed digests (Fingerprint).
	Observed *Observed
}

// Observed is the observed state an operation was planned from, as plain
// values: the secret's ARN ("" when absent), the ids of its AWSCURRENT
// versions (sorted), and its managed metadata with the change planned
// (canonical bytes chosen by the engine). Never written as such.
type Observed struct {
	ARN      string
	Versions []string
	Metadata []byte
}

// errorCount is how many of ds are errors.
func errorCount(ds []diag.Record) int {
	n := 0
	for _, d := range ds {
		if !diag.IsWarning(d.Class) {
			n++
		}
	}
	return n
}
