package engine

import (
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Mode selects what Run may do.
type Mode int

const (
	// ModePlan observes and plans; it never calls a mutating operation.
	ModePlan Mode = iota
	// ModeSync observes, plans, applies and verifies (SPEC §6).
	ModeSync
)

// Config is what one run of the engine needs besides the desired state and
// the AWS port.
type Config struct {
	Mode Mode
	// Engine is the resolved settings (config.Resolve validated every
	// field: recovery window, empty-scope authorisation, concurrency,
	// verification timeout, resource names); Run takes them as they are.
	config.Engine

	// Scope is the scope's name (SPEC §10): a scope whose failure halts
	// the others of its run is named in their apply:halted diagnostic
	// ("halted: scope staging failed"); "" names none.
	Scope string

	// Engine-only knobs, not settings; a zero value selects the default,
	// resolved once when the run starts (newRunner).
	// Pace is the run's rate control per quota family (internal/pace),
	// whose ceilings its creator chose: nil = the port's (Paced), else a
	// new one with pace.DefaultLimits. The engine never changes them.
	Pace *pace.Controller
	// Siblings are the scope digests (model.Scope.Digest) of the
	// configuration's other scopes (SPEC §10), selected by --scope or not:
	// their secrets are never reported as orphans of this scope.
	Siblings []string
	// Listed is the scope's name when it is an entry of the config file's
	// scopes:, "" for a run without scopes:. The gates' next actions give
	// the one-off flag in the form that works there (config.OneOffArgs:
	// "--scope NAME --allow-empty" beside scopes:, "--allow-empty" without).
	Listed string
	// ReplicasSetting names where the scope's replica-regions came from
	// (config.Scope.SettingSubject), the subject of config:replica-region;
	// zero = the setting's name alone.
	ReplicasSetting diag.Subject
	// AdoptSetting names where the scope's adopt list came from
	// (config.Scope.SettingSubject: "config file key scopes.prod.adopt",
	// "flag --adopt"), the subject of warning:adopt-owned and
	// config:adopt-not-desired; zero = the setting's name alone.
	AdoptSetting diag.Subject
	// ProgressInterval is the least time between two progress records of
	// a long phase; 0 = DefaultProgressInterval.
	ProgressInterval time.Duration
	// PollInterval is the fixed verification poll; 0 = DefaultPollInterval.
	PollInterval time.Duration
	// Clock and Tokens are injected for tests; nil = SystemClock and
	// CryptoTokens.
	Clock  Clock
	Tokens TokenSource
	// Generator draws the values of keys owned by AWS that a create
	// generates (aws-owned generate, SPEC §13); nil = CryptoGenerator.
	Generator Generator
}

// Result is the outcome of one run; the CLI maps Status to the exit code
// (vocab.ExitCode) and writes the report from it (SPEC §7).
type Result struct {
	Status       vocab.Status
	Verification vocab.Verification
	// Counts: for plan mode, the planned operations by kind; for sync, the
	// operations that took effect in this run (restore follow-ups and both
	// sides of a rebuild included) plus the unchanged names it did not touch;
	// Conflicts counts conflicting secrets (docs/results.md).
	Counts vocab.Counts
	// Plan is the plan the run shows, as planview's input (unredacted:
	// planview.Build applies the redaction rule): every operation with its
	// reason, key-level summary and metadata kinds, every conflict with its
	// class, every unchanged name, each with its resource ordinal (the
	// logs' label). For sync it is the plan that was applied (after a
	// rebuild, the rebuilt one) plus the follow-up updates after restores.
	// Nil when no plan was built (the first observation failed).
	Plan []planview.Operation
	// Diagnostics say what stopped the run in the engine, for the plan
	// file: gate:empty-scope, gate:max-deletions, observe:failed; and the
	// warnings that stopped nothing: warning:orphans. The log
	// records (with error_code, request_id …) stay the full account.
	Diagnostics diag.Diagnostics
	// Failures are the plan file's failure records of the scope
	// (unredacted, planview.Failure): each operation that failed closed
	// (apply:failed) and each failed observation (observe:failed), with
	// the AWS error code and the IAM actions of the call; at the
	// verification timeout each resource still differing
	// (verify:not-converged) and each whose metadata another writer
	// changed (verify:changed-elsewhere), with what differs.
	Failures []planview.Failure
	// Changes are the operations of this run that took effect (sync only;
	// nil in plan mode and when nothing was written), one per operation,
	// ordered by name then apply phase (a restore before its follow-up
	// update): what a redeploy needs (--changes-file, docs/results.md).
	// They name secrets: only an output the operator asked for carries
	// them.
	Changes []Change
	// StateDigest is the value-free digest of the scope's state as the
	// observation that proved convergence saw it (StateDigestOf); "" when
	// the sync did not end converged, and in plan mode.
	StateDigest string
}

// Change is one operation of a sync that took effect: its action, the
// secret's name and full ARN, and the id of the version it wrote ("" for
// an operation that writes no version: restore, schedule-delete, an update
// of metadata, tags or replicas alone, an adoption whose value already
// matched). A create's or update's version id is the ClientRequestToken
// the write carried, which AWS makes the new version's VersionId
// (Secrets Manager API reference, PutSecretValue and CreateSecret,
// ClientRequestToken); once written it is the version's public id.
type Change struct {
	Action    vocab.Action
	Name, ARN string
	VersionID string
}
