package diag

import (
	"sort"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Family groups class tokens; the family decides the exit code when a
// diagnostic ends the run (FamilyExitCode).
type Family string

// The families. Families lists them in order.
const (
	FamilyUsage       Family = "usage"       // the command line could not be parsed
	FamilyConfig      Family = "config"      // a setting was rejected
	FamilyGit         Family = "git"         // the repository or revision cannot be read
	FamilySource      Family = "source"      // the committed tree breaks a source rule
	FamilyName        Family = "name"        // a derived secret name breaks the name rule
	FamilyDecrypt     Family = "decrypt"     // a document cannot be decrypted
	FamilyPlaintext   Family = "plaintext"   // a decrypted document breaks a plaintext rule
	FamilyDesired     Family = "desired"     // the loader failed unexpectedly
	FamilyAWS         Family = "aws"         // the SDK client could not be configured
	FamilyCredentials Family = "credentials" // a scope's credentials could not be obtained from STS
	FamilyReport      Family = "report"      // the report file cannot be written
	FamilyPlanfile    Family = "planfile"    // a plan file cannot be read, is not a v2 or v1 plan, or cannot be written
	FamilyPlan        Family = "plan"        // the reviewed plan cannot be applied: it is stale or not this run's; nothing was changed
	FamilyGate        Family = "gate"        // a safety gate blocked the plan; nothing was changed
	FamilyObserve     Family = "observe"     // the scope could not be read from AWS
	FamilyApply       Family = "apply"       // applying stopped before the plan was done
	FamilyConflict    Family = "conflict"    // a secret became a conflict after planning, while applying
	FamilyVerify      Family = "verify"      // verification found what this run wrote changed by another writer
	FamilyInterrupted Family = "interrupted" // a signal or the run timeout
	FamilyImport      Family = "import"      // import could not write or prove its documents; nothing it wrote was kept
	FamilyInternal    Family = "internal"    // an unexpected failure
	FamilyWarning     Family = "warning"     // a finding that neither stops nor limits the run
)

// Families lists every family in the order of the registry's golden file
// (Entries sorts by it).
var Families = []Family{
	FamilyUsage, FamilyConfig, FamilyGit, FamilySource, FamilyName, FamilyDecrypt, FamilyPlaintext,
	FamilyDesired, FamilyAWS, FamilyCredentials, FamilyReport, FamilyPlanfile, FamilyPlan, FamilyGate, FamilyObserve, FamilyApply, FamilyConflict, FamilyVerify, FamilyInterrupted,
	FamilyImport, FamilyInternal, FamilyWarning,
}

// familyExit is the one table from class family to exit code (SPEC §7.1,
// docs/results.md). Every family but observe (apply-failed), verify
// (verification-failed), interrupted and warning is "invalid": the run is
// refused before (or, for report, regardless of) any change it made. A
// warning never ends a run.
var familyExit = map[Family]int{
	FamilyUsage: vocab.ExitInvalid, FamilyConfig: vocab.ExitInvalid, FamilyGit: vocab.ExitInvalid,
	FamilySource: vocab.ExitInvalid, FamilyName: vocab.ExitInvalid, FamilyDecrypt: vocab.ExitInvalid,
	FamilyPlaintext: vocab.ExitInvalid, FamilyDesired: vocab.ExitInvalid, FamilyAWS: vocab.ExitInvalid,
	FamilyCredentials: vocab.ExitApply, // AWS answered (or failed to): as an observation that failed (SPEC §10)
	FamilyReport:      vocab.ExitInvalid, FamilyPlanfile: vocab.ExitInvalid, FamilyPlan: vocab.ExitInvalid, FamilyGate: vocab.ExitInvalid, FamilyObserve: vocab.ExitApply, FamilyApply: vocab.ExitApply, FamilyConflict: vocab.ExitConflict, FamilyVerify: vocab.ExitVerify, FamilyInterrupted: vocab.ExitInterrupted, FamilyImport: vocab.ExitInvalid, FamilyInternal: vocab.ExitInvalid,
	FamilyWarning: vocab.ExitOK, // never ends a run: the status decides the exit code
}

// FamilyExitCode is the exit code of a run ended by a diagnostic of
// family f; ExitInvalid for an unknown family.
func FamilyExitCode(f Family) int {
	if c, ok := familyExit[f]; ok {
		return c
	}
	return vocab.ExitInvalid
}

// ExitCodeOf is the exit code of class's family (ExitInvalid when class is
// not registered).
func ExitCodeOf(class string) int {
	e, ok := Lookup(class)
	if !ok {
		return vocab.ExitInvalid
	}
	return FamilyExitCode(e.Family)
}

// Class tokens (SPEC §3, §7; docs/results.md). They are part of the public
// contract: users, the recovery guide and the Action key on them.
const (
	UsageUnknownFlag    = "usage:unknown-flag"
	UsageFlagArgument   = "usage:flag-argument"
	UsageBadFlag        = "usage:bad-flag"
	UsageRepeatedFlag   = "usage:repeated-flag"
	UsageStrayArgument  = "usage:stray-argument"
	UsageUnknownCommand = "usage:unknown-command"
	UsageInvalid        = "usage:invalid"

	ConfigUnknownKey   = "config:unknown-key"
	ConfigUnknownEnv   = "config:unknown-env"
	ConfigFlagOnly     = "config:flag-only"
	ConfigWrongType    = "config:wrong-type"
	ConfigInvalidValue = "config:invalid-value"
	ConfigRequired     = "config:required"
	ConfigFile         = "config:file"
	// ConfigTemplate: scopes generate's --template file, --regions,
	// --role-name or --plan-role-name breaks its rule (SPEC §17).
	ConfigTemplate = "config:template"
	// ConfigUnknownOU: an --ou of scopes generate names no root or OU of
	// the organization.
	ConfigUnknownOU = "config:unknown-ou"
	// ConfigScopesFile: scopes generate --check cannot read the committed
	// scopes file (--output) as a scopes config (SPEC §17).
	ConfigScopesFile = "config:scopes-file"
	// ConfigGeneratedName: scopes generate would give two scopes one name,
	// or a name that is not a scope name.
	ConfigGeneratedName = "config:generated-name"
	// ConfigReplicaRegion: replica-regions lists the scope's own Region,
	// or a Region of another partition, where that Region is only known
	// once the SDK resolved it (aws-region not given).
	ConfigReplicaRegion = "config:replica-region"
	// ConfigScopeAmbiguous: a per-scope setting given as a flag or an
	// environment variable while the config file lists scopes (SPEC §10).
	ConfigScopeAmbiguous = "config:scope-ambiguous"
	// ConfigNotPerScope: a scope entry sets a setting that is the same for
	// every scope of a run.
	ConfigNotPerScope = "config:not-per-scope"
	// ConfigScopeOverlap: two scopes that write in one (account, Region),
	// their own or a replica Region, have secret prefixes that can name one
	// secret (model.PrefixesOverlap).
	ConfigScopeOverlap = "config:scope-overlap"
	// ConfigAdoptNotDesired: an adopt entry names a secret that no
	// document of this commit maps to (SPEC §11); found before any AWS
	// call.
	ConfigAdoptNotDesired = "config:adopt-not-desired"
	// ConfigAWSOwned: an aws-owned entry does not fit this commit's
	// documents (SPEC §13): it matches none, two entries match one
	// document, a whole-value document lists a key other than "", or a
	// create lacks a listed key without generate; found before any write.
	ConfigAWSOwned = "config:aws-owned"

	GitRepository = "git:repository"
	GitRevision   = "git:revision"
	GitRead       = "git:read"
	// GitObjectMissing: an object the commit needs is absent from the clone
	// (a partial clone's filtered blob), as opposed to present but
	// unreadable (GitRead); emitted by the loader, whose next action differs
	// (fetch the objects rather than repair the repository).
	GitObjectMissing = "git:object-missing"

	SourceMissingRoot = "source:missing-root"
	SourceNotRegular  = "source:not-regular-file"
	SourceTooLarge    = "source:too-large"
	// SourceLFSPointer: a committed document is a Git LFS pointer, not the
	// SOPS file itself (the checkout did not run git lfs).
	SourceLFSPointer = "source:lfs-pointer"
	// SourceBinaryForTarget: a .sops.bin document in a scope whose target
	// is parameter-store (SPEC §16): a parameter value is text.
	SourceBinaryForTarget = "source:binary-for-target"

	NameInvalid   = "name:invalid"
	NameCollision = "name:collision"

	DecryptNoKey        = "decrypt:no-key"
	DecryptMACMismatch  = "decrypt:mac-mismatch"
	DecryptMalformed    = "decrypt:malformed"
	DecryptKeyService   = "decrypt:key-service"
	DecryptNotEncrypted = "decrypt:not-encrypted"
	// DecryptKeyFile: SOPS_AGE_KEY_FILE is set but names no readable file
	// (missing, a directory, unreadable): not decrypt:no-key, whose next
	// action would send the operator after the wrong key.
	DecryptKeyFile = "decrypt:key-file"
	// DecryptCleartextValue: a whole-value document (.sops.txt, .sops.bin)
	// whose data field is not SOPS ciphertext: SOPS left the value in
	// clear text (getsops/sops#986, #1822). Never uploaded.
	DecryptCleartextValue = "decrypt:cleartext-value"
	// DecryptKeyNotAllowed: every key that could open the document is of a
	// key service --key-services does not allow (never contacted).
	DecryptKeyNotAllowed = "decrypt:key-not-allowed"

	// The plaintext:* tokens are declared by internal/canonical (below
	// diag); these are the same constants.
	PlaintextNotUTF8           = canonical.ClassNotUTF8
	PlaintextBOM               = canonical.ClassBOM
	PlaintextNotObject         = canonical.ClassNotObject
	PlaintextDuplicateKey      = canonical.ClassDuplicateKey
	PlaintextMultiDocument     = canonical.ClassMultiDocument
	PlaintextAnchorOrAlias     = canonical.ClassAnchorOrAlias
	PlaintextNonStringKey      = canonical.ClassNonStringKey
	PlaintextUnsupportedScalar = canonical.ClassUnsupportedScalar
	PlaintextNonFiniteNumber   = canonical.ClassNonFiniteNumber
	PlaintextNumberPrecision   = canonical.ClassNumberPrecision
	PlaintextTooLarge          = canonical.ClassTooLarge
	PlaintextEmpty             = canonical.ClassEmpty
	PlaintextSyntax            = canonical.ClassSyntax
	// PlaintextTooDeep: objects and arrays nested deeper than
	// canonical.MaxDepth.
	PlaintextTooDeep = canonical.ClassTooDeep

	DesiredInternal = "desired:internal"
	// DesiredMoreInvalid closes a list of invalid documents cut at the
	// loader's cap (50): its summary says how many more are invalid.
	DesiredMoreInvalid = "desired:more-invalid"

	AWSConfig   = "aws:config"
	AWSNoRegion = "aws:no-region"

	// CredentialsAssumeRole: STS refused or failed the AssumeRole of a
	// scope's role-arn at set-up; the subject names the scope's setting.
	CredentialsAssumeRole = "credentials:assume-role"
	// CredentialsScopeUnreachable: a scope skipped under
	// --max-unreachable-scopes (SPEC §17): STS refused its role
	// (AccessDenied: the role's trust, or its account suspended or
	// closed) or did not answer within --operation-timeout; nothing of
	// the scope was read or changed, the other scopes ran.
	CredentialsScopeUnreachable = "credentials:scope-unreachable"
	// CredentialsCallerIdentity: STS GetCallerIdentity of the base
	// credentials failed (the account of scopes without a role is needed
	// to group them by account and Region).
	CredentialsCallerIdentity = "credentials:caller-identity"

	ReportWriteFailed = "report:write-failed"
	// ReportNotRegularFile: --report-file names an existing directory
	// entry that is not a regular file (a FIFO, a device node, a socket, a
	// symbolic link); the atomic write would replace it, so it is refused.
	ReportNotRegularFile = "report:not-regular-file"
	// ReportSourceRootsWriteFailed: validate's --source-roots-file (the
	// listing of each scope's source root the GitHub Action reads) could
	// not be written.
	ReportSourceRootsWriteFailed = "report:source-roots-write-failed"
	// ReportScopesWriteFailed: scopes generate's --output could not be
	// probed or written.
	ReportScopesWriteFailed = "report:scopes-write-failed"
	// ReportChangesWriteFailed: sync's --changes-file could not be
	// written (the run's writes took effect; the file does not list them).
	ReportChangesWriteFailed = "report:changes-write-failed"
	// ReportChangesNotRegularFile: --changes-file names an existing
	// directory entry that is not a regular file.
	ReportChangesNotRegularFile = "report:changes-not-regular-file"
	// ReportChangesSameFile: --changes-file names the file of
	// --report-file or --plan-file; the changes file is not written.
	ReportChangesSameFile = "report:changes-same-file"

	// GateMaxDeletions: the plan would make more deletions than
	// --max-deletions allows.
	GateMaxDeletions = "gate:max-deletions"
	// GatePolicyDenied: plan --policy: a deny or violation rule of the
	// operator's policies denied the plan (docs/policy-checks.md); one
	// diagnostic per message, its summary the policy's message.
	GatePolicyDenied = "gate:policy-denied"
	// GatePolicyUnusable: plan --policy names policies that cannot be
	// read, do not compile (a builtin that is not deterministic or
	// reaches the network included) or failed while evaluating.
	GatePolicyUnusable = "gate:policy-unusable"
	// GateEmptyScope: the desired set is empty, owned secrets exist, and
	// --allow-empty was not given (SPEC §5).
	GateEmptyScope = "gate:empty-scope"
	// GateValueTooLarge: a write the plan holds would store a value
	// larger than the target's limit once the keys owned by AWS are in it
	// (a create's generated keys at their configured length, an update's
	// or adoption's merge; SPEC §13, model.ValueLimit); found at planning,
	// nothing was changed. One per secret, its subject the document.
	GateValueTooLarge = "gate:value-too-large"
	// ObserveFailed: observing the scope failed (access denied, a fault
	// that outlived the retries); the log record has the error_code.
	ObserveFailed = "observe:failed"
	// ObserveOrganizations: scopes generate could not list the
	// organization through AWS Organizations (SPEC §17).
	ObserveOrganizations = "observe:organizations"
	// ApplyHalted: in a run of several scopes (SPEC §10), another scope
	// failed while this one had operations left; none of them was started
	// (apply-failed, exit 5).
	ApplyHalted = "apply:halted"
	// ApplyFailed: one operation failed closed (AWS refused a call, or its
	// outcome could not be proven); the plan file's failure record names
	// the AWS error code and the IAM actions the call needs
	// (apply-failed, exit 5).
	ApplyFailed = "apply:failed"
	// ObserveHalted: in a run of several scopes (SPEC §10), another scope's
	// AWS set-up failed, so this scope was not read (exit 5).
	ObserveHalted = "observe:halted"
	// VerifyNotConverged: a resource still differed from the commit when
	// the verification timeout passed; its failure record says what
	// differs (the operation a plan would still make, and why) (exit 6).
	VerifyNotConverged = "verify:not-converged"
	// VerifySecondWriter: AWS refused a create because the secret exists,
	// yet a direct observation still showed none: another writer is active
	// in the scope (verification-failed, exit 6).
	VerifySecondWriter = "verify:second-writer"
	// VerifyRotationRaced: a rotation finished between the read of a
	// secret with keys owned by AWS and the write of its merge, and the
	// tool could not put the rotated version back and write the merge
	// again within the run (SPEC §13, "Writes race rotation";
	// verification-failed, exit 6).
	VerifyRotationRaced = "verify:rotation-raced"
	// VerifyChangedElsewhere: verification observed managed metadata that
	// is neither what this run wrote nor what planning saw: another writer
	// changed it during the run (verification-failed, exit 6).
	VerifyChangedElsewhere = "verify:changed-elsewhere"
	// VerifyReplicaFailed: a replica in a configured Region reports
	// Failed (SPEC §12; AWS's status message is never shown).
	VerifyReplicaFailed = "verify:replica-failed"
	// VerifyReplicaInProgress: a replica in a configured Region was still
	// InProgress when the verification timeout passed (inconclusive).
	VerifyReplicaInProgress = "verify:replica-in-progress"
	// VerifyConflict: verification observed a conflict on a secret of the
	// scope after the writes (replication added, rotation turned on,
	// another owner's tag …): its failure record's reason is the conflict
	// class (verification-failed, exit 6).
	VerifyConflict = "verify:conflict"
	// VerifyUnobserved: verification could not observe the scope before
	// its timeout passed (every observation failed or was cut off), so
	// nothing is proven either way; the failure record carries the last
	// read's error_code and IAM actions (inconclusive, exit 6).
	VerifyUnobserved = "verify:unobserved"
	// ConflictLate: a secret became a conflict between planning and its
	// write (its precondition, a create that met an existing secret, the
	// sighting after a restore), so no new operation was started; the
	// failure record's reason is the conflict class (conflict, exit 4).
	ConflictLate = "conflict:late"

	// The planfile:* tokens (SPEC §7.4): internal/planview's *Error carries
	// these (it defines no token of its own); the command writes the write
	// failures (PlanFailure).
	PlanfileUnknownSchema = "planfile:unknown-schema"
	PlanfileMalformed     = "planfile:malformed"
	PlanfileUnreadable    = "planfile:unreadable"
	PlanfileWriteFailed   = "planfile:write-failed"
	// PlanfileNotRegularFile: the plan file (show's argument, or
	// --plan-file) names an existing directory entry that is not a
	// regular file.
	PlanfileNotRegularFile = "planfile:not-regular-file"
	// PlanfileSameFile: --plan-file and --report-file name one file; the
	// report is written, the plan file is not.
	PlanfileSameFile = "planfile:same-file"

	// The plan:* tokens: a reviewed plan (--reviewed-plan, SPEC §14) that
	// cannot be applied; nothing is written (exit 3).
	//
	// PlanStale: the run's plan differs from the reviewed one (source,
	// settings, an operation, or AWS since review); one per difference.
	PlanStale = "plan:stale"
	// PlanNotReviewable: the file is a valid plan file but no reviewed
	// plan: not v3, not written by plan, binding nothing, or of a plan
	// that did not end drift or converged in every scope.
	PlanNotReviewable = "plan:not-reviewable"
	// PlanOtherRepository: the reviewed plan is of another repository-id.
	PlanOtherRepository = "plan:other-repository"
	// PlanOtherScopes: the reviewed plan is of other scopes than the run's.
	PlanOtherScopes = "plan:other-scopes"

	// Interrupted marks work cut short by cancellation (the loader's
	// error, the engine's record of an AWS call cut short).
	Interrupted        = "interrupted"
	InterruptedSignal  = "interrupted:signal"
	InterruptedTimeout = "interrupted:run-timeout"

	// WarningOrphans: secrets this tool owns in another scope hold
	// documents of this commit (a change of --secret-prefix,
	// --repository-id or --source-root left them); the run never touches
	// them. The plan file and its renderings carry it as a warning.
	WarningOrphans = "warning:orphans"
	// WarningAdoptOwned: an adopt entry names a secret this scope already
	// owns; it is planned like every owned secret and the entry does
	// nothing (SPEC §11).
	WarningAdoptOwned = "warning:adopt-owned"
	// WarningNotApplied: a sync of several scopes (SPEC §10) planned
	// operations in this scope, but another scope was blocked at planning
	// (a conflict, a gate, a failed observation, a stale reviewed plan), so
	// nothing was applied anywhere; the summary names that scope. The
	// scope's own status stays drift.
	WarningNotApplied = "warning:not-applied"
	// WarningReplicasNotInSync: plan found configured replicas (SPEC §12)
	// that are InProgress or Failed; a sync would wait for them or end
	// verification-failed. Plan's status does not change.
	WarningReplicasNotInSync = "warning:replicas-not-in-sync"
	// WarningNotPlanned: validate (SPEC §15) checked the documents
	// without AWS; no plan was computed, so its status says nothing about
	// the secrets in AWS. Every validate run carries it.
	WarningNotPlanned = "warning:not-planned"
	// WarningChecksSkipped: validate ran the structural checks only
	// (--no-decrypt, or no key could decrypt any document); the summary
	// lists the checks skipped and why.
	WarningChecksSkipped = "warning:checks-skipped"
	// WarningOverlapNotJudged: validate could not tell without AWS
	// whether a scope's secret prefix overlaps another's in one (account,
	// Region): one has role-arn and the other the base identity, or a
	// Region is unknown (SPEC §10, §15).
	WarningOverlapNotJudged = "warning:overlap-not-judged"

	// The warnings of import (SPEC §18): a secret under the prefix that
	// import leaves alone, and why. Names only with --show-resource-names.
	//
	// WarningImportManaged: it carries a sops-aws-sync: tag (another
	// scope's, or half-tagged): never adopted.
	WarningImportManaged = "warning:import-managed"
	// WarningImportServiceOwned: another AWS service owns it
	// (OwningService).
	WarningImportServiceOwned = "warning:import-service-owned"
	// WarningImportUnadoptable: adoption would refuse it by its state
	// (scheduled for deletion, a replica of another Region's primary, a
	// rotation in flight, not one AWSCURRENT version, a parameter that is
	// not a plain SecureString, or its current version changed while
	// import read it).
	WarningImportUnadoptable = "warning:import-unadoptable"
	// WarningImportReplicated: it has replicas in Regions the scope's
	// replica-regions does not list.
	WarningImportReplicated = "warning:import-replicated"
	// WarningImportName: its name does not map back to a document path
	// (SPEC §3.4 inverted: an empty, "." or ".." segment, a path into
	// .git, a name the target's rule refuses).
	WarningImportName = "warning:import-name"
	// WarningImportCollision: a file already exists at its document's
	// path (any suffix), or another imported name maps to the same path
	// on a case-insensitive file system.
	WarningImportCollision = "warning:import-collision"
	// WarningImportValue: its value is neither clean text nor binary a
	// document can hold byte for byte (both or neither payload, empty,
	// not UTF-8, a byte-order mark, too large, binary for Parameter
	// Store; or a key aws-owned lists is not in it).
	WarningImportValue = "warning:import-value"
	// WarningImportInClear: the creation rule for its document's path
	// would leave part of the value unencrypted (unencrypted_suffix,
	// unencrypted_regex, encrypted_regex, encrypted_suffix).
	WarningImportInClear = "warning:import-in-clear"

	// ImportNoCreationRule: no creation rule of the .sops.yaml that
	// applies to a document's path matches it (or no .sops.yaml applies);
	// nothing was written.
	ImportNoCreationRule = "import:no-creation-rule"
	// ImportSOPS: the sops CLI is missing or older than 3.10.
	ImportSOPS = "import:sops"
	// ImportEncrypt: the sops CLI failed to encrypt a document; nothing
	// was written.
	ImportEncrypt = "import:encrypt"
	// ImportWrite: a document could not be written; what was written is
	// removed.
	ImportWrite = "import:write"
	// ImportGit: staging the documents or writing the index as a tree
	// failed; what was written is removed.
	ImportGit = "import:git"
	// ImportNotAdopted: a written document did not plan adopt with value
	// equal; every document written is removed and unstaged.
	ImportNotAdopted = "import:not-adopted"
	// ImportScope: import takes exactly one scope.
	ImportScope = "import:scope"
	// ImportConfigFile: the --config file could not be rewritten with
	// the new adopt and aws-owned entries.
	ImportConfigFile = "import:config-file"

	// Internal is an unexpected failure (an engine record of a call that
	// failed without a modelled AWS error; the CLI's last-resort line).
	Internal = "internal"
)

// Entry is one registered class token.
type Entry struct {
	Class   string
	Family  Family
	Summary string // what is wrong, when the finder knows nothing more precise
	Next    string // the operator's next action
}

// Next actions shared by a whole family.
const (
	nextUsage  = "run 'sops-aws-sync <command> --help' for the accepted flags; nothing was read from Git or AWS"
	nextConfig = "fix the named setting (see docs/configuration.md) and re-run; nothing was read from Git or AWS"
	nextRerun  = "re-run to finish (nothing is rolled back, the next run resumes from observed state)"
	nextBug    = "re-run; if it persists, report a bug with the log records from stdout"
)

// entries is the registry. Add a class here (and to the golden file with
// go test ./internal/diag -update) before any code emits it.
var entries = []Entry{
	{UsageUnknownFlag, FamilyUsage, "unknown flag", nextUsage},
	{UsageFlagArgument, FamilyUsage, "a flag needs a value", nextUsage},
	{UsageBadFlag, FamilyUsage, "malformed flag syntax", nextUsage},
	{UsageRepeatedFlag, FamilyUsage, "a flag is given more than once", nextUsage},
	{UsageStrayArgument, FamilyUsage, "the command takes no positional arguments; every option is a --flag", nextUsage},
	{UsageUnknownCommand, FamilyUsage, "unknown command; the commands are plan, sync, show and version", nextUsage},
	{UsageInvalid, FamilyUsage, "the command line could not be parsed", nextUsage},

	{ConfigUnknownKey, FamilyConfig, "is not a sops-aws-sync setting", nextConfig},
	{ConfigUnknownEnv, FamilyConfig, "is not a sops-aws-sync setting", nextConfig},
	{ConfigFlagOnly, FamilyConfig, "may only be given as a command-line flag", nextConfig},
	{ConfigWrongType, FamilyConfig, "has the wrong type", nextConfig},
	{ConfigInvalidValue, FamilyConfig, "is out of its rule", nextConfig},
	{ConfigRequired, FamilyConfig, "is required", nextConfig},
	{ConfigFile, FamilyConfig, "cannot be read or is not a YAML mapping", nextConfig},
	{ConfigTemplate, FamilyConfig, "the scopes template, --regions, --role-name or --plan-role-name breaks its rule",
		"fix the template file or the flag (docs/many-accounts.md lists the template's keys and placeholders), then re-run scopes generate; nothing was written"},
	{ConfigUnknownOU, FamilyConfig, "an --ou names no root or organizational unit of the organization",
		"give an OU id (ou-…, r-…) or a path of OU names from the root (platform/prod) that the organization has (aws organizations list-organizational-units-for-parent), then re-run; nothing was written"},
	{ConfigScopesFile, FamilyConfig, "the committed scopes file (--output) cannot be read as a scopes config",
		"give --output the committed file that scopes generate wrote (a regular file of at most 1 MiB with a scopes list), then re-run scopes generate --check; nothing was written"},
	{ConfigGeneratedName, FamilyConfig, "two generated scopes would share one name, or a generated name is not a scope name",
		"put {account-id} in the template's name (or shorten it to 32 characters of a-z, 0-9 and -), then re-run scopes generate; nothing was written"},
	{ConfigReplicaRegion, FamilyConfig, "lists the scope's own Region (as the SDK resolved it) or a Region of another partition",
		"list only other Regions of the scope's partition in replica-regions, or give --aws-region; nothing was read or changed"},
	{ConfigScopeAmbiguous, FamilyConfig, "is a per-scope setting and the config file lists scopes, but --scope does not select exactly one, so it is unclear which scopes it is meant for",
		"for one run of one scope add --scope NAME (the value then applies to that scope only); to keep it, set it in the config file: at the top level for every scope, or in the scope entries it is meant for; nothing was read from Git or AWS"},
	{ConfigNotPerScope, FamilyConfig, "is the same for every scope of a run and may not be set in a scope entry",
		"move it to the top level of the config file (docs/configuration.md lists the per-scope settings); nothing was read from Git or AWS"},
	{ConfigScopeOverlap, FamilyConfig, "two scopes that write in one account and Region (a scope's own Region or one of its replica-regions) have secret prefixes that can name the same secret (one equals the other or lies under it at a '/')",
		"give each scope of an account and Region its own prefix that does not contain another's, or put the scopes in different accounts or Regions that no replica-regions of the other lists; nothing was read from Git or Secrets Manager"},
	{ConfigAdoptNotDesired, FamilyConfig, "an adopt entry names a secret that no document of this commit maps to; nothing was read from Secrets Manager",
		"list in adopt only the full names (secret prefix, then the document path without its .sops suffix) of documents of this commit: add the document or remove the entry, then re-run"},
	{ConfigAWSOwned, FamilyConfig, "an aws-owned entry does not fit this commit's documents; nothing was written to Secrets Manager",
		"make every aws-owned entry match at least one document (its secret pattern is relative to the secret prefix), match each document with one entry only, list only \"\" for a .sops.txt or .sops.bin document, and give generate (or the key in the document) for a key a new secret needs; then re-run"},

	{GitRepository, FamilyGit, "the repository path is not a readable Git repository",
		"point --repository at the root of a Git clone (the directory holding .git) that this process may read"},
	{GitRevision, FamilyGit, "the revision does not resolve to a commit in this repository",
		"pass --revision a branch, tag or commit SHA that this clone contains (shallow clones must include the commit)"},
	{GitRead, FamilyGit, "a committed Git object could not be read (missing or corrupt; a partial clone without blobs?)",
		"run against a complete clone that contains the commit's trees and blobs (for example: git fetch --depth=1 origin <commit>)"},
	{GitObjectMissing, FamilyGit, "an object the commit needs is not in this clone (a partial clone without that blob)",
		"fetch the blobs (clone without --filter, or run git fetch for the commit without a filter) or include the source root in the sparse-checkout set so that Git fetches its documents"},

	{SourceMissingRoot, FamilySource, "the source root is not a directory in the commit",
		"check --source-root against the committed tree (it is case-sensitive), or use '.' for the whole repository; to retire the scope (every document deleted, so Git dropped the directory), re-run with --allow-empty (with a config file that lists scopes, --scope NAME --allow-empty), or set allow-empty: true: a source root absent from the commit is then an empty scope, whose secrets are scheduled for deletion within --max-deletions"},
	{SourceNotRegular, FamilySource, "the document is not a regular file in the commit (a symlink or a submodule)",
		"commit the encrypted document itself at this path, or rename it so its suffix does not select it"},
	{SourceTooLarge, FamilySource, "the committed document is larger than --max-encrypted-bytes",
		"split the document, or raise --max-encrypted-bytes if the size is expected"},
	{SourceLFSPointer, FamilySource, "the committed document is a Git LFS pointer, not the SOPS file: Git LFS stores the file outside the commit",
		"commit the SOPS file itself, not through LFS (remove its pattern from .gitattributes, then git add --renormalize the file and commit)"},
	{SourceBinaryForTarget, FamilySource, "the document is a .sops.bin whole binary value, and the scope's target parameter-store stores text only",
		"keep binary documents in a scope with target secrets-manager, or commit the value as text (.sops.txt, for example base64) if its readers expect that"},

	{NameInvalid, FamilyName, "the secret name derived from the document's path breaks the name rule (SPEC §3.4)",
		"rename the document (or change the secret prefix) using only those characters"},
	{NameCollision, FamilyName, "the document maps to the same secret name as another document",
		"keep one document per secret name (for example db.sops.json or db.sops.yaml, not both)"},

	{DecryptNoKey, FamilyDecrypt, "no key available to this run could decrypt the document's data key",
		"provide a key the document is encrypted to (age: SOPS_AGE_KEY_FILE or SOPS_AGE_KEY; PGP: the secret key in the keyring), or re-encrypt the document with sops updatekeys for this run's key"},
	{DecryptMACMismatch, FamilyDecrypt, "the document fails SOPS integrity checks (its MAC or an encrypted value does not verify): it was changed after encryption",
		"restore the document from a known-good commit or re-create it with sops; never edit encrypted values by hand"},
	{DecryptMalformed, FamilyDecrypt, "the committed file is not a well-formed SOPS document in the format its suffix names",
		"re-create it with sops encrypt (check that .sops.json/.sops.yaml/.sops.env matches the file's real format)"},
	{DecryptKeyService, FamilyDecrypt, "a key service named in the document's SOPS metadata (AWS KMS, GCP KMS, Azure Key Vault, HashiCorp Vault, HuaweiCloud KMS) could not be reached or refused to decrypt, and no other key could",
		"check network access to that service and that this run's credentials may decrypt with the key (for AWS KMS: kms:Decrypt on the key ARN), then retry"},
	{DecryptNotEncrypted, FamilyDecrypt, "the committed file has no SOPS metadata: it was committed without being encrypted",
		"encrypt it with sops before committing, and rotate every value in it: the plaintext is in the Git history"},
	{DecryptKeyFile, FamilyDecrypt, "SOPS_AGE_KEY_FILE is set but names no readable file (missing, a directory, or unreadable)",
		"set SOPS_AGE_KEY_FILE to the path of a readable age identity file (mode 0600, owned by the runner's user), or unset it and pass the key in SOPS_AGE_KEY"},
	{DecryptKeyNotAllowed, FamilyDecrypt, "no key of the document may be used: every key that could open it is of a key service --key-services does not allow (a Vault or Azure Key Vault address, an AWS KMS key with a role or aws_profile, a GCP or HuaweiCloud KMS key), so none was contacted",
		"re-encrypt the document (sops updatekeys) so that it also has a key this run may use (age, PGP, or an AWS KMS key without role or aws_profile); or, only if that service is the operator's own, allow it with --key-services (for example vault=https://vault.internal:8200; the Action's key-services input)"},

	{DecryptCleartextValue, FamilyDecrypt, "the whole-value document's data field is not SOPS ciphertext: SOPS left the value in clear text (an encrypted_suffix, unencrypted_suffix or regex setting applied to a binary file by a SOPS version that did not ignore it)",
		"treat the value as leaked (it is in the Git history) and replace it at its source; then re-encrypt the file with a current sops (sops encrypt --input-type binary FILE, which ignores those settings for binary files) and commit that"},

	// The plaintext:* classes are added from canonical.Rules (plaintextEntries).

	{DesiredInternal, FamilyDesired, "reading the desired state failed unexpectedly", nextBug},
	{DesiredMoreInvalid, FamilyDesired, "more documents are invalid than are listed",
		"fix the listed documents, then run again to see the rest"},

	{AWSConfig, FamilyAWS, "AWS client not configured: the shared config or profile could not be loaded",
		"check --aws-profile and AWS_CONFIG_FILE"},
	{AWSNoRegion, FamilyAWS, "AWS client not configured: no Region", "pass --aws-region or set AWS_REGION"},

	{CredentialsAssumeRole, FamilyCredentials, "the scope's role (role-arn; for plan, plan-role-arn when given) could not be assumed with the base credentials (STS refused or did not answer)",
		"check that the base identity may call sts:AssumeRole on the scope's role and that the role's trust policy names the base identity (docs/iam-policy.md), then re-run; nothing was read or changed"},
	{CredentialsScopeUnreachable, FamilyCredentials, "the scope's account could not be reached (STS refused the scope's role or did not answer), so the scope was skipped: nothing of it was read or changed, the other scopes ran",
		"check the account's status in AWS Organizations (a suspended or closed account: remove its scope from the config file in a reviewed change) and the role's trust policy (docs/iam-policy.md), then re-run to converge the scope (docs/recovery.md, a scope is unreachable)"},
	{CredentialsCallerIdentity, FamilyCredentials, "the account of the base credentials could not be learned (STS GetCallerIdentity failed)",
		"check the base credentials and network access to STS (AWS_ENDPOINT_URL_STS when set), then re-run; nothing was read or changed"},

	{ReportWriteFailed, FamilyReport, "the report file could not be written",
		"make sure the directory of --report-file exists and is writable, then re-run to see the real outcome"},
	{ReportNotRegularFile, FamilyReport, "--report-file names an existing FIFO, device, socket or symbolic link, which the report would replace",
		"give --report-file a path that does not exist yet or is a regular file, then re-run"},
	{ReportScopesWriteFailed, FamilyReport, "the scopes file (scopes generate --output) could not be written",
		"give --output a path that does not exist yet or is a regular file, in a directory that exists and is writable, then re-run"},
	{ReportSourceRootsWriteFailed, FamilyReport, "the source-roots file (validate --source-roots-file) could not be written",
		"give --source-roots-file a path that does not exist yet or is a regular file, in a directory that exists and is writable, then re-run"},
	{ReportChangesWriteFailed, FamilyReport, "the changes file could not be written; the secrets this sync changed are not listed",
		"make sure the directory of --changes-file exists and is writable; a re-run finds nothing left to change, so restart every service that reads the scope's secrets (or read this run's \"operation applied\" log records)"},
	{ReportChangesNotRegularFile, FamilyReport, "--changes-file names an existing FIFO, device, socket or symbolic link, which the changes file would replace",
		"give --changes-file a path that does not exist yet or is a regular file; if the sync wrote secrets, restart every service that reads the scope's secrets"},
	{ReportChangesSameFile, FamilyReport, "--changes-file names the same file as --report-file or --plan-file; nothing was read or changed",
		"give --changes-file its own path, then re-run"},

	{GateMaxDeletions, FamilyGate, "the plan would make more deletions than --max-deletions allows; nothing was changed",
		"check why the documents are gone (a moved directory, a wrong --source-root, a revert); to authorize them, re-run once with --max-deletions COUNT (with a config file that lists scopes, --scope NAME --max-deletions COUNT; replica removals count as deletions)"},
	{GatePolicyDenied, FamilyGate, "a policy denied the plan (plan --policy); the plan file and the report were written, nothing was changed",
		"read the policy's message: change the commit so that the plan passes, or, if the policy allows it, give the change what it asks for (a label of the pull or merge request) and re-run the plan (docs/policy-checks.md)"},
	{GatePolicyUnusable, FamilyGate, "the policies of plan --policy cannot be used: the path holds no .rego file, a policy does not compile (the builtins that reach the network, the clock, randomness or the environment are not available), or a policy failed while evaluating",
		"fix the policy named in the message (run 'opa check' or 'conftest verify' on the directory), then re-run the plan (docs/policy-checks.md)"},
	{GateValueTooLarge, FamilyGate, "with the keys owned by AWS (aws-owned: generated at their configured length, or the live values merged), the value this secret would store is larger than the target stores; nothing was changed",
		"shorten the document (split it into several documents, each its own secret) or lower generate in its aws-owned entry, so that the document and the keys AWS owns fit the limit (65,536 bytes for Secrets Manager; the tier's for Parameter Store), then re-run; a new secret is not created until then"},
	{GateEmptyScope, FamilyGate, "the commit has no documents, so the plan would delete every resource the scope owns; nothing was changed",
		"if unintended, restore the documents; to empty the scope, re-run with --allow-empty (with a config file that lists scopes, --scope NAME --allow-empty)"},
	{ObserveOrganizations, FamilyObserve, "the organization could not be listed through AWS Organizations",
		"run with credentials of the management account or of a delegated administrator that hold the Organizations read actions (docs/iam-policy.md#reading-the-organization), then re-run; for a throttle or a timeout re-run later; nothing was written"},
	{ObserveFailed, FamilyObserve, "the scope could not be read from AWS",
		"see the failure record's error_code and iam_actions (the plan file, show) or the log record's: re-run for a transient fault; for AccessDeniedException grant the role those IAM actions (docs/iam-policy.md)"},
	{ApplyHalted, FamilyApply, "another scope of the run failed while applying, so this scope's remaining operations were not started",
		"fix the failure of the other scope (its log records and diagnostics), then re-run: the plan resumes from the observed state"},
	{ApplyFailed, FamilyApply, "an operation failed: AWS refused a call, or its outcome could not be proven",
		"read the failure record's error_code: for AccessDeniedException grant the role its iam_actions (docs/iam-policy.md); otherwise see docs/recovery.md (exit 5); then re-run sync"},
	{ObserveHalted, FamilyObserve, "another scope of the run failed before this scope was read, so this scope was not observed",
		"fix the failure of the scope this diagnostic names, then re-run"},
	{VerifyNotConverged, FamilyVerify, "a resource still differed from the commit when the verification timeout passed",
		"read what differs in the failure record: with verification inconclusive re-run (or raise --verification-timeout); with failed, stop the other writer of the scope, then re-run (docs/recovery.md, exit 6)"},
	{VerifySecondWriter, FamilyVerify, "AWS refused a create because the name is taken, yet a direct observation still showed none: another writer is active in the scope",
		"make sure exactly one sync runs per scope at a time (a concurrency group in CI) and stop the other writer, then re-run (docs/recovery.md, exit 6)"},
	{VerifyRotationRaced, FamilyVerify, "a rotation of a secret with keys owned by AWS finished while this run wrote it, and the run could not write the merge again on the rotated value",
		"re-run sync once the rotation is over: it reads the rotated value and writes the merge on it; if the log says the rotated version could not be made current again, rotate the secret once more (rotate-secret) before re-running, so the keys aws-owned lists hold what a rotation set (docs/recovery.md, exit 6)"},
	{VerifyChangedElsewhere, FamilyVerify, "another writer changed the metadata this run wrote (KMS key, description or a configured tag) during the run",
		"find the other writer (a person, a tool or another workflow managing the same metadata) and stop it, or stop managing that metadata here; then re-run"},
	{VerifyReplicaFailed, FamilyVerify, "replication of an owned secret to a configured replica Region failed",
		"read the replica's status message in the Secrets Manager console or with describe-secret in the primary's Region (a missing or unusable KMS key in the replica Region, or a same-name secret there, are the usual causes), fix it, remove the failed Region with remove-regions-from-replication, then re-run (docs/recovery.md)"},
	{VerifyReplicaInProgress, FamilyVerify, "a replica in a configured Region was still being replicated when the verification timeout passed",
		"re-run later, or raise --verification-timeout; the replica is not known to be in sync yet"},
	{VerifyConflict, FamilyVerify, "verification observed a conflict on a secret of the scope after this run's writes",
		"read the conflict class in the failure record's reason and resolve it as a conflict found at planning (docs/recovery.md, exit 4), then re-run sync"},
	{VerifyUnobserved, FamilyVerify, "verification could not observe the scope before the verification timeout passed: nothing is proven either way",
		"read the failure record's error_code: for AccessDeniedException grant the role its iam_actions (docs/iam-policy.md); for a transient fault re-run, or raise --verification-timeout"},
	{ConflictLate, FamilyConflict, "a secret became a conflict between planning and its write, so no new operation was started",
		"read the conflict class in the failure record's reason and resolve it as a conflict found at planning (docs/recovery.md, exit 4), then re-run sync"},

	{PlanfileUnknownSchema, FamilyPlanfile, "the plan file's schema_version is none of sops-aws-sync/plan/v3, v2 and v1",
		"render the file with the sops-aws-sync version that wrote it, or write a new plan with this version"},
	{PlanfileMalformed, FamilyPlanfile, "the plan file breaks the plan schema it names (v3, v2 or v1)",
		"write a new plan with sops-aws-sync plan; never edit a plan file by hand"},
	{PlanfileUnreadable, FamilyPlanfile, "the plan file cannot be opened or read, or is larger than 64 MiB",
		"check the plan file's path and permissions"},
	{PlanfileWriteFailed, FamilyPlanfile, "the plan file could not be written",
		"make sure the plan file's directory exists and is writable, then re-run"},
	{PlanfileNotRegularFile, FamilyPlanfile, "the plan file path names an existing FIFO, device, socket or (for --plan-file) symbolic link, not a regular file",
		"show: name the plan file itself; --plan-file: give a path that does not exist yet or is a regular file, then re-run"},
	{PlanfileSameFile, FamilyPlanfile, "--plan-file and --report-file name the same file; only the report is written",
		"give --plan-file and --report-file two different paths, then re-run"},

	{PlanStale, FamilyPlan, "the plan differs from the reviewed plan; nothing was written",
		"re-run plan on this commit (a new pull request, or the plan job re-run), have the new plan reviewed, then sync with it"},
	{PlanNotReviewable, FamilyPlan, "the reviewed plan file is not a reviewable plan: not written by plan in this schema (v3), binding nothing, or of a plan that did not end drift or converged in every scope; nothing was written",
		"give the plan file that plan --plan-file wrote for the reviewed change"},
	{PlanOtherRepository, FamilyPlan, "the reviewed plan was made for another repository-id; nothing was written",
		"give the plan file of this repository's reviewed change"},
	{PlanOtherScopes, FamilyPlan, "the reviewed plan covers other scopes than this run (names or order); nothing was written",
		"run with the same --config and --scope as the plan that was reviewed, or give the plan of these scopes"},

	{Interrupted, FamilyInterrupted, "the work was cut short by a signal or the run timeout", nextRerun},
	{InterruptedSignal, FamilyInterrupted, "run interrupted", nextRerun},
	{InterruptedTimeout, FamilyInterrupted, "run interrupted", nextRerun},

	{WarningOrphans, FamilyWarning, "secrets this tool owns in another scope hold documents of this commit; they are not touched",
		"if the scope was renamed on purpose, retire the old scope once nothing reads it (docs/recovery.md, retiring an old scope)"},
	{WarningNotApplied, FamilyWarning, "another scope of the run was blocked at planning, so nothing of this scope's plan was applied",
		"resolve the other scope's problem (its diagnostics), then re-run: this scope's plan is applied then"},
	{WarningAdoptOwned, FamilyWarning, "an adopt entry names a secret this scope already owns; the entry does nothing",
		"remove the entry from adopt: the secret is managed like every other owned secret (docs/migration.md)"},
	{WarningReplicasNotInSync, FamilyWarning, "configured replicas of owned secrets are not InSync",
		"a replica InProgress needs time; a Failed one needs the operator before a sync can converge (docs/recovery.md, verify:replica-failed)"},
	{WarningNotPlanned, FamilyWarning, "validate checked the committed documents without AWS: no plan was computed, and the status says nothing about the secrets in AWS",
		"run plan (with AWS credentials) to see what sync would change; a pull request's change is reviewed on that plan"},
	{WarningChecksSkipped, FamilyWarning, "the checks that need a decryption key were skipped: the MAC's value, the data key, and every plaintext rule (UTF-8, the JSON, YAML and dotenv shapes, numbers, the stored value's size)",
		"run validate with the documents' keys (SOPS_AGE_KEY_FILE, or credentials for the KMS key), or plan, to run them"},
	{WarningOverlapNotJudged, FamilyWarning, "whether this scope's secret prefix overlaps another scope's in one account and Region could not be judged without AWS (one scope has role-arn and the other the base identity, or a Region is unknown)",
		"run plan, which judges it with STS; or give both scopes role-arn (the account is in the ARN) and aws-region"},

	{WarningImportManaged, FamilyWarning, "import skipped a secret that carries a sops-aws-sync: tag (another scope's or half-tagged); it is never adopted",
		"leave it to the scope that owns it; to import it here, remove its sops-aws-sync: tags first (docs/migration.md)"},
	{WarningImportServiceOwned, FamilyWarning, "import skipped a secret another AWS service owns (OwningService)",
		"leave it to that service: it is never managed by this tool"},
	{WarningImportUnadoptable, FamilyWarning, "import skipped a secret adoption would refuse in its present state (scheduled for deletion, a replica of another Region's primary, a rotation in flight, not one current version, a parameter that is not a plain SecureString, or changed while it was read)",
		"wait for the rotation or change to finish, or fix the secret's state (a String or StringList parameter: recreate it as a SecureString, as AWS changes no parameter's type in place), then re-run import with --match for it"},
	{WarningImportReplicated, FamilyWarning, "import skipped a secret with replicas in Regions the scope's replica-regions does not list",
		"add those Regions to the scope's replica-regions (docs/configuration.md), then re-run import with --match for it"},
	{WarningImportName, FamilyWarning, "import skipped a secret whose name maps to no document path (an empty, '.' or '..' segment, a path into .git, or a name the target refuses)",
		"rename the secret in AWS (create a copy under a name that maps, move readers, delete the old one), or keep it outside the tool"},
	{WarningImportCollision, FamilyWarning, "import skipped a secret whose document path is already taken (a file with any document suffix, or another imported name on a case-insensitive file system)",
		"if the existing document is that secret's, list the name in adopt and run plan; otherwise move the file, then re-run import with --match for it"},
	{WarningImportValue, FamilyWarning, "import skipped a secret whose value no document can hold byte for byte (both or neither payload, empty, not UTF-8, a byte-order mark, too large, binary for Parameter Store, or a key aws-owned lists is missing)",
		"write its document by hand (docs/migration.md), or fix the value in AWS first"},
	{WarningImportInClear, FamilyWarning, "import skipped a secret because the creation rule for its document would leave part of its value unencrypted (unencrypted_suffix, unencrypted_regex, encrypted_regex or encrypted_suffix)",
		"change the creation rule in .sops.yaml so that every key is encrypted, then re-run import with --match for it"},

	{ImportNoCreationRule, FamilyImport, "no creation rule of .sops.yaml matches the document's path, so it cannot be encrypted; nothing was written",
		"add a creation rule whose path_regex matches the document's path (relative to the .sops.yaml's directory) to the nearest .sops.yaml, or narrow import with --match; then re-run import"},
	{ImportSOPS, FamilyImport, "the sops CLI is missing or older than 3.10, which import needs to encrypt documents",
		"install sops 3.10 or later on PATH (make tools installs the tested version), then re-run import"},
	{ImportEncrypt, FamilyImport, "the sops CLI failed to encrypt a document (a recipient it cannot reach, a key service that refused); nothing was written",
		"run sops encrypt on a test file under the same path to see its own message, fix the creation rule or the key access, then re-run import"},
	{ImportWrite, FamilyImport, "a document could not be written; the documents written before it were removed",
		"check the work tree's permissions and free space, then re-run import"},
	{ImportGit, FamilyImport, "staging the documents or reading the index as a tree failed; the documents written were removed",
		"check that the work tree is a Git repository you can write to (git status) and that no other git command holds the index lock, then re-run import"},
	{ImportNotAdopted, FamilyImport, "a written document did not plan adopt with value equal; every document import wrote was removed and unstaged",
		"read the plan's record for that secret (a conflict class, a value that differs), fix its cause or exclude it with --match, then re-run import"},
	{ImportScope, FamilyImport, "import takes exactly one scope",
		"select one scope with --scope NAME"},
	{ImportConfigFile, FamilyImport, "the --config file could not be rewritten with the imported names; the documents are written and staged",
		"add the imported names (the staged documents' paths give them: docs/recovery.md) to the scope's adopt, and aws-owned entries for rotating secrets, by hand; or unstage and delete the staged documents, fix the file, and re-run import"},

	{Internal, FamilyInternal, "internal error", nextBug},
}

// plaintextEntries are the plaintext:* classes, one per class of
// canonical.Rules with the texts of its first rule: canonical is the one
// source of every plaintext sentence (each site that finds a failure passes
// its own rule's texts; these are the defaults).
func plaintextEntries() []Entry {
	var out []Entry
	seen := map[string]bool{}
	for _, r := range canonical.Rules() {
		if !seen[r.Class] {
			seen[r.Class] = true
			out = append(out, Entry{r.Class, FamilyPlaintext, r.What, r.Next})
		}
	}
	return out
}

var byClass = func() map[string]Entry {
	entries = append(entries, plaintextEntries()...)
	m := make(map[string]Entry, len(entries))
	for _, e := range entries {
		if _, dup := m[e.Class]; dup {
			panic("diag: class registered twice: " + e.Class)
		}
		m[e.Class] = e
	}
	return m
}()

// Lookup returns the registry entry of class.
func Lookup(class string) (Entry, bool) {
	e, ok := byClass[class]
	return e, ok
}

// Entries returns every registered class, sorted by family (in the order
// of Families) then token.
func Entries() []Entry {
	out := append([]Entry(nil), entries...)
	order := map[Family]int{}
	for i, f := range Families {
		order[f] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		if order[out[i].Family] != order[out[j].Family] {
			return order[out[i].Family] < order[out[j].Family]
		}
		return out[i].Class < out[j].Class
	})
	return out
}

// FamilyOf returns the family a token's prefix names ("decrypt" for
// "decrypt:no-key"); the registry's Family agrees (a test checks it).
func FamilyOf(class string) Family {
	f, _, _ := strings.Cut(class, ":")
	return Family(f)
}
