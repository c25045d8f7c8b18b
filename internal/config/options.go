package config

import (
	"time"

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
}

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
}

// Engine is what one run of the engine needs from the settings (SPEC §5,
// §6).
type Engine struct {
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
}

// AWS configures the SDK client and the adapter (SPEC §2.1).
type AWS struct {
	Region  string // "" = the SDK's chain
	Profile string // "" = the SDK's chain
	// MaxAttempts and MaxBackoff override the SDK retryer when > 0.
	MaxAttempts int
	MaxBackoff  time.Duration
	// OperationTimeout bounds each AWS call (each page); > 0.
	OperationTimeout time.Duration
	// Concurrency is the run's --concurrency: the HTTP client keeps a
	// connection per concurrent call.
	Concurrency int
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
