package config

import (
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Options are the resolved, validated options of one plan or sync run,
// grouped by the consumer that takes them. Every field is filled by exactly
// one setting declaration (Settings) and validated there; consumers never
// re-validate or re-default it.
type Options struct {
	// Desired is what the desired-state loader (internal/desired) takes.
	Desired Desired
	// Engine is what the engine (internal/engine) takes.
	Engine Engine
	// AWS is what the AWS client and adapter (internal/awssm) take.
	AWS AWS
	// Output is what the CLI's logs and report take.
	Output Output
	// Run bounds and shapes the command itself.
	Run Run
	// Sources records where each setting's value came from, by name.
	Sources map[string]Source
	// Scopes are the scopes this run syncs, in config-file order, never
	// empty after a successful Resolve: the entries of the config file's
	// scopes: (those --scope names, when given), or else one scope named
	// model.DefaultScopeName whose sub-structs are Desired, Engine and AWS above.
	// With scopes: set, Desired, Engine and AWS above hold the top-level
	// settings (the defaults of every scope) and only Scopes is what a
	// consumer takes.
	Scopes []Scope
	// Configured are every scope of the configuration, in config-file
	// order, whether --scope selected it or not (equal to Scopes without
	// --scope). A scope's run takes the others' ownership identities from
	// here: their secrets are live scopes of this configuration, never
	// orphans of a renamed scope.
	Configured []Scope
}

// Scope is one scope of a run (SPEC §10): its name and full copies of the
// run's Desired, Engine and AWS options with the scope's own per-scope
// settings (Setting.PerScope) applied. Its ownership identity,
// model.Scope{RepositoryID, SourceRoot, Prefix} from Desired, is exactly
// the one a single-scope run with the same settings has.
type Scope struct {
	// Name is the scope's name (model.ValidateScopeName), unique in the
	// run; model.DefaultScopeName for a run without scopes:.
	Name    string
	Desired Desired
	Engine  Engine
	AWS     AWS
	// Listed is true for an entry of the config file's scopes:, false for
	// the default scope built from the top-level settings.
	Listed bool
	// Overrides holds the per-scope settings given for this run only as a
	// flag or environment variable beside --scope NAME (docs/configuration.md,
	// one-off overrides), by setting name, with where each came from; nil
	// when none was.
	Overrides map[string]Source
	// Sources is, for the default scope (not Listed), where each of its
	// settings came from (Options.Sources), so its diagnostics name the
	// flag, variable or config key; nil for a listed scope.
	Sources map[string]Source
}

// SettingSubject is the diagnostic subject naming setting key of this
// scope where it came from (SettingName, SettingSource): "flag
// --replica-regions", "environment variable SOPS_AWS_SYNC_REPLICA_REGIONS",
// "config file key scopes.prod.replica-regions".
func (s Scope) SettingSubject(key string) diag.Subject {
	return diag.Subject{Setting: s.SettingName(key), Origin: s.SettingSource(key).Origin()}
}

// SettingName is how a diagnostic names setting key of this scope: the
// flag or variable of a one-off override (Overrides), else the config-file
// path scopes.<name>.<key> for a listed scope, else for the default scope
// the setting's name (its variable's when it came from one).
func (s Scope) SettingName(key string) string {
	if src, ok := s.Overrides[key]; ok {
		return settingLabel(key, src)
	}
	if s.Listed {
		return "scopes." + s.Name + "." + key
	}
	return settingLabel(key, s.Sources[key])
}

// SettingSource is where setting key of this scope came from as far as the
// scope knows: the override's flag or variable, else the file for a listed
// scope, else the default scope's Sources, else SourceDefault.
func (s Scope) SettingSource(key string) Source {
	if src, ok := s.Overrides[key]; ok {
		return src
	}
	if s.Listed {
		return SourceFile
	}
	if src, ok := s.Sources[key]; ok {
		return src
	}
	return SourceDefault
}

// OneOff is the command-line arguments that give flags (per-scope flags,
// "--allow-empty") to this scope for one run only: flags for the default
// scope, "--scope NAME " and flags for a scope of the config file's
// scopes:, where a per-scope flag applies only beside --scope selecting one
// scope (docs/configuration.md, one-off overrides). The gates' next
// actions are written with it.
func (s Scope) OneOff(flags string) string {
	if s.Listed {
		return OneOffArgs(s.Name, flags)
	}
	return flags
}

// OneOffArgs is Scope.OneOff for a scope known by its name: listed is the
// name of a listed scope, "" for the default one.
func OneOffArgs(listed, flags string) string {
	if listed == "" {
		return flags
	}
	return "--" + ScopeFilter + " " + listed + " " + flags
}

// Identity is the scope's ownership identity (SPEC §4): the same value a
// single-scope run with these settings derives, so its scope digest and
// tags are the same.
func (s Scope) Identity() model.Scope {
	return model.Scope{RepositoryID: s.Desired.RepositoryID, SourceRoot: s.Desired.SourceRoot, Prefix: s.Desired.SecretPrefix, Target: s.Desired.Target}
}

// Target is the scope's target (SPEC §16): the one setting's value,
// Desired.Target, "" read as the default.
func (s Scope) Target() model.Target { return s.Desired.Target.Resolved() }

// Desired says where the desired state is and how to read it (SPEC §3).
type Desired struct {
	// RepoPath is the repository (work tree root, bare repository or
	// linked worktree): --repository.
	RepoPath string
	// Revision is any commit-ish, resolved once: --revision.
	Revision string
	// RepositoryID (e.g. "owner/repo") is part of the scope identity.
	RepositoryID string
	// SourceRoot is clean and repo-relative, "." for the whole repository
	// (model.CleanSourceRoot).
	SourceRoot string
	// SecretPrefix is trimmed and valid (model.CleanPrefix).
	SecretPrefix string
	// MaxEncryptedBytes bounds each committed blob, in bytes; > 0.
	MaxEncryptedBytes int64
	// Concurrency bounds parallel decryptions; 1..64.
	Concurrency int
	// ShowResourceNames lets diagnostics name a document's path.
	ShowResourceNames bool
	// KeyServiceTimeout bounds each key-service call of a decryption (AWS
	// KMS and the other remote SOPS key services; they are AWS calls too):
	// --operation-timeout. 0 means no bound of its own.
	KeyServiceTimeout time.Duration
	// KeyServices are the SOPS master keys a decryption may use
	// (--key-services, model.ParseKeyServices); a key outside it is never
	// contacted. The zero value allows none.
	KeyServices model.KeyServices
	// Target is the target setting (SPEC §16), its one home: the loader
	// applies the target's name rule, value kinds and limits
	// (model.Target.CheckName, StoresBinary, ValueLimit of ParameterTier),
	// the port is the target's adapter (Scope.Target), and the scope's
	// identity carries it (Scope.Identity).
	Target model.Target
	// ParameterTier is parameter-tier: model.TierStandard or
	// model.TierAdvanced (read for target parameter-store only).
	ParameterTier string
	// AllowEmpty is the allow-empty setting (Engine.AllowEmpty too): with
	// it, a source root absent from the commit is an empty desired set
	// (a retired scope whose directory Git dropped) instead of
	// source:missing-root; the empty-scope gate then lets its secrets be
	// scheduled for deletion, within --max-deletions.
	AllowEmpty bool
	// AllowTree lets Revision name a tree object by its full id as well
	// (validate only, set by the command, never by a setting: the
	// pre-commit hook validates the index through `git write-tree`).
	AllowTree bool
}

// Engine is what one run of the engine needs from the settings (SPEC §5,
// §6).
type Engine struct {
	// ParameterTier is parameter-tier (Desired.ParameterTier): with the
	// scope's target (the desired state's model.Scope.Target), the largest
	// value a write may store (model.Target.ValueLimit).
	ParameterTier string
	// RecoveryWindowDays is passed to DeleteSecret; 7..30.
	RecoveryWindowDays int
	// AllowEmpty authorizes schedule-deletes when the desired set is empty
	// (the empty-scope gate).
	AllowEmpty bool
	// Concurrency bounds parallel AWS calls inside one phase; 1..64, 1 is
	// sequential.
	Concurrency int
	// VerificationTimeout bounds the post-apply verification; > 0.
	VerificationTimeout time.Duration
	// ShowResourceNames logs real secret names instead of resource-NNNN.
	ShowResourceNames bool
	// Metadata is the KMS key, description and tags every owned secret
	// must carry (--kms-key-id, --description, --tag); zero
	// fields are not managed.
	Metadata model.Metadata
	// MaxDeletions is --max-deletions: the most schedule-deletes one plan
	// may hold; nil = no limit.
	MaxDeletions *int
	// Replicas are the replica Regions owned secrets must have
	// (replica-regions, model.ParseReplicaRegions: sorted by Region, valid,
	// one partition, not aws-region when that is given); nil = replicas are
	// not managed (any replica is conflict replication, SPEC §12).
	Replicas []model.Replica
	// Adopt is --adopt: full names of secrets made outside this tool that
	// the run may take ownership of (SPEC §11), each valid and listed once;
	// nil = none (a same-name secret without our tags stays an ownership
	// conflict).
	Adopt []string
	// AdoptRequireMatch is --adopt-require-match: an adoption whose live
	// value differs from the document's is conflict adopt-mismatch.
	AdoptRequireMatch bool
	// AWSOwned is aws-owned (SPEC §13): the keys of matching secrets AWS
	// owns, each entry valid (model.ValidateAWSOwned); nil = none. Whether
	// each entry matches a document is checked once the desired state's
	// outline is known (model.ValidateAWSOwnedState, config:aws-owned).
	AWSOwned []model.AWSOwned
}

// AWS configures the SDK client and the adapter (SPEC §2.1).
type AWS struct {
	Region  string // "" = the SDK's chain
	Profile string // "" = the SDK's chain
	// RoleARN is the IAM role this command assumes for the scope's calls
	// (model.ValidateRoleARN); "" = the SDK chain's credentials. Resolve
	// chooses it: role-arn, or for plan plan-role-arn when that is given
	// (chooseRoles); RoleSetting names which.
	RoleARN string
	// RoleSetting is the setting RoleARN came from: RoleARN (role-arn) or
	// PlanRoleARN; "" when no role is assumed.
	RoleSetting string
	// PlanRoleARN is plan-role-arn as given (model.ValidateRoleARN; in the
	// account of role-arn when both are given); "" = plan assumes role-arn.
	PlanRoleARN string
	// MaxAttempts and MaxBackoff override the SDK retryer when > 0.
	MaxAttempts int
	MaxBackoff  time.Duration
	// OperationTimeout bounds each AWS call (each page); > 0.
	OperationTimeout time.Duration
	// Concurrency is the run's --concurrency: the HTTP client keeps a
	// connection per concurrent call.
	Concurrency int
	// ParameterTier is parameter-tier (Desired.ParameterTier): the Tier a
	// parameter-store scope's PutParameter asks for.
	ParameterTier string
}

// Output selects the CLI's log records and report (SPEC §7).
type Output struct {
	LogLevel          string // debug, info, warn, error
	LogFormat         string // json, text
	ShowResourceNames bool
	ReportFile        string // "" = no report
	PlanFile          string // "" = no plan file
}

// Run bounds and shapes the command itself.
type Run struct {
	// Timeout bounds the whole command: --run-timeout.
	Timeout time.Duration
	// ConfigFile is --config ("" = none).
	ConfigFile string
	// DetailedExitCode is plan's --detailed-exit-code.
	DetailedExitCode bool
	// ScopeNames is --scope: the scopes to run (nil = every scope); each
	// names a scope of the configuration (checked by Resolve).
	ScopeNames []string
	// MaxUnreachable is --max-unreachable-scopes: how many scopes whose
	// account cannot be reached a run may skip (SPEC §17); 0 = none, the
	// run is all or nothing.
	MaxUnreachable int
	// Policy is plan's --policy: a directory (or file) of Rego policies
	// the plan is checked with ("" = none; docs/policy-checks.md).
	Policy string
	// PolicyLabels are plan's --policy-labels: the labels of the change
	// under review, given to the policies (nil = none).
	PolicyLabels []string
	// ParallelScopes is --parallel-scopes resolved: how many (account,
	// Region) buckets of a run are worked on at once (SPEC §17), ≥ 1
	// (0 given = DefaultParallelScopes()).
	ParallelScopes int
}

// Defaults returns the options every declared default gives, with the
// required settings left empty: the starting point for tests and for
// programs that call a consumer directly.
func Defaults() Options {
	o := Options{Sources: map[string]Source{}}
	for _, s := range Settings {
		if s.Default == "" {
			continue
		}
		if _, ok := s.set(&o, s.Default); !ok {
			panic("config: the default of " + s.Name + " breaks its own rule")
		}
	}
	return o
}
