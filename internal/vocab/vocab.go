package vocab

// Status is the run status written to the report and the final log record
// (SPEC §7.1).
type Status string

const (
	StatusConverged                Status = "converged"
	StatusDrift                    Status = "drift"
	StatusInvalid                  Status = "invalid"
	StatusConflict                 Status = "conflict"
	StatusApplyFailed              Status = "apply-failed"
	StatusObservationFailed        Status = "observation-failed"
	StatusVerificationFailed       Status = "verification-failed"
	StatusVerificationInconclusive Status = "verification-inconclusive"
	StatusInterrupted              Status = "interrupted"
	// StatusUnreachable: a scope whose account could not be reached (STS
	// AssumeRole refused, or not answered within --operation-timeout) and
	// that the run skipped under --max-unreachable-scopes (SPEC §17): a
	// scope's status only, the run's when it is the most severe; exit 5.
	StatusUnreachable Status = "unreachable"
)

// Statuses lists every status in the order of SPEC §7.1: the one set the
// report, the logs and the Action accept.
var Statuses = []Status{
	StatusConverged, StatusDrift, StatusInvalid, StatusConflict, StatusApplyFailed,
	StatusObservationFailed, StatusVerificationFailed, StatusVerificationInconclusive, StatusInterrupted,
	StatusUnreachable,
}

// Verification is the outcome of the post-apply verification (SPEC §6, §7.1).
type Verification string

const (
	VerificationConverged    Verification = "converged"
	VerificationFailed       Verification = "failed"
	VerificationInconclusive Verification = "inconclusive"
	VerificationNotRun       Verification = "not-run"
)

// Verifications lists every verification outcome (SPEC §7.1).
var Verifications = []Verification{VerificationConverged, VerificationFailed, VerificationInconclusive, VerificationNotRun}

// Process exit codes (SPEC §7.1).
const (
	ExitOK          = 0
	ExitDrift       = 2
	ExitInvalid     = 3
	ExitConflict    = 4
	ExitApply       = 5
	ExitVerify      = 6
	ExitInterrupted = 130
)

// ExitCode maps a final status to the process exit code (SPEC §7.1). Drift
// exits 2 only when detailedExitCode is set (plan --detailed-exit-code);
// otherwise it exits 0.
func ExitCode(s Status, detailedExitCode bool) int {
	switch s {
	case StatusConverged:
		return ExitOK
	case StatusDrift:
		if detailedExitCode {
			return ExitDrift
		}
		return ExitOK
	case StatusInvalid:
		return ExitInvalid
	case StatusConflict:
		return ExitConflict
	case StatusApplyFailed, StatusObservationFailed, StatusUnreachable:
		return ExitApply
	case StatusVerificationFailed, StatusVerificationInconclusive:
		return ExitVerify
	case StatusInterrupted:
		return ExitInterrupted
	}
	return ExitInvalid
}

// severity orders the statuses for a run of several scopes (SPEC §10):
// by exit code 130 > 5 > 6 > 4 > 3 > 2 > 0, and within one exit code the
// status that says more went wrong (apply-failed over observation-failed
// over unreachable, a scope skipped on purpose; verification-failed over
// verification-inconclusive, drift over converged). Higher is more severe.
var severity = map[Status]int{
	StatusConverged: 0, StatusDrift: 1, StatusInvalid: 2, StatusConflict: 3,
	StatusVerificationInconclusive: 4, StatusVerificationFailed: 5, StatusUnreachable: 6,
	StatusObservationFailed: 7, StatusApplyFailed: 8, StatusInterrupted: 9,
}

// MostSevere returns the most severe of statuses by the exit precedence
// 130 > 5 > 6 > 4 > 3 > 2 > 0 (SPEC §10): the status of a run of several
// scopes. An unknown status counts as invalid (ExitCode's fallback); no
// status at all is converged.
func MostSevere(statuses ...Status) Status {
	worst := StatusConverged
	for _, s := range statuses {
		if _, ok := severity[s]; !ok {
			s = StatusInvalid
		}
		if severity[s] > severity[worst] {
			worst = s
		}
	}
	return worst
}

// verificationSeverity orders the verification outcomes: failed >
// inconclusive > not-run > converged, so a run of several scopes claims
// converged only when every scope was verified converged.
var verificationSeverity = map[Verification]int{
	VerificationConverged: 0, VerificationNotRun: 1, VerificationInconclusive: 2, VerificationFailed: 3,
}

// MostSevereVerification returns the most severe of vs (failed >
// inconclusive > not-run > converged; an unknown value counts as not-run);
// none at all is not-run.
func MostSevereVerification(vs ...Verification) Verification {
	if len(vs) == 0 {
		return VerificationNotRun
	}
	worst := VerificationConverged
	for _, v := range vs {
		if _, ok := verificationSeverity[v]; !ok {
			v = VerificationNotRun
		}
		if verificationSeverity[v] > verificationSeverity[worst] {
			worst = v
		}
	}
	return worst
}

// ConflictClass names why an observed secret blocks the whole plan
// (SPEC §4.1). Any conflict means not one mutating call is made (exit 4).
type ConflictClass string

const (
	ConflictOwnership    ConflictClass = "ownership"
	ConflictSource       ConflictClass = "source"
	ConflictSourceTag    ConflictClass = "source-tag"
	ConflictServiceOwned ConflictClass = "service-owned"
	ConflictRotation     ConflictClass = "rotation"
	ConflictReplication  ConflictClass = "replication"
	// ConflictReplicaClash: replica-regions lists a Region where a secret
	// of the same name already exists that is not this secret's replica
	// (SPEC §12): replicating there would fail or, forced, overwrite it.
	ConflictReplicaClash ConflictClass = "replica-clash"
	ConflictStaging      ConflictClass = "staging"
	ConflictPayload      ConflictClass = "payload"
	// ConflictAdoptDeleted: a secret named in adopt is scheduled for
	// deletion; it is not adopted (SPEC §11).
	ConflictAdoptDeleted ConflictClass = "adopt-deleted"
	// ConflictAdoptMismatch: with adopt-require-match, a secret named in
	// adopt holds a value other than the document's (SPEC §11).
	ConflictAdoptMismatch ConflictClass = "adopt-mismatch"
	// ConflictAWSOwnedMissing: a key aws-owned lists is missing from the
	// live value (or there is no current value): the tool does not know
	// its value, so it cannot write the secret (SPEC §13).
	ConflictAWSOwnedMissing ConflictClass = "aws-owned-missing"
	// ConflictTagLimit: the tags the plan would add to an existing secret
	// (the three ownership tags of an adoption, configured tags missing
	// from it) would leave it with more than AWS's 50 tags
	// (model.MaxTagsPerSecret; aws: tags do not count). TagResource would
	// fail after other secrets, or other scopes, were already written, so
	// it is found at planning, where it stops the whole run.
	ConflictTagLimit ConflictClass = "tag-limit"
	// ConflictParameterShape: an owned Parameter Store parameter is not
	// the plain SecureString the tool writes (SPEC §16): its type is
	// String or StringList (someone overwrote it: the value may now be
	// stored unencrypted), it has parameter policies (an expiration would
	// delete it), or a data type other than text.
	ConflictParameterShape ConflictClass = "parameter-shape"
)

// ConflictClasses lists every class in the order of SPEC §4.1.
var ConflictClasses = []ConflictClass{
	ConflictOwnership, ConflictSource, ConflictSourceTag, ConflictServiceOwned,
	ConflictRotation, ConflictReplication, ConflictReplicaClash, ConflictStaging, ConflictPayload,
	ConflictAdoptDeleted, ConflictAdoptMismatch, ConflictAWSOwnedMissing, ConflictTagLimit,
	ConflictParameterShape,
}

// ConflictCase tells which case of a conflict class was found where the
// operator's next action differs between the cases; the class token stays
// the one contract (log conflict_class, the plan file's reason). "" = the
// class alone. It is the plan file's optional conflict_case of a
// conflict entry (SPEC §7.4, docs/results.md).
type ConflictCase string

const (
	// CaseRotationInFlight: conflict rotation while a rotation is in
	// flight (a version labelled AWSPENDING that is not AWSCURRENT): a
	// write now would be dropped when the rotation finishes (SPEC §13);
	// re-run after it finishes.
	CaseRotationInFlight ConflictCase = "rotation-in-flight"
	// CaseRotationKeysNotListed: conflict rotation of a secret with a
	// document that no aws-owned entry matches (rotation on, or a version
	// labelled AWSPENDING): list the keys the rotation changes in
	// aws-owned (SPEC §13), or turn rotation off.
	CaseRotationKeysNotListed ConflictCase = "keys-not-listed"
)

// Cases lists the cases of c, in a fixed order; nil for a class without
// cases.
func (c ConflictClass) Cases() []ConflictCase {
	if c == ConflictRotation {
		return []ConflictCase{CaseRotationInFlight, CaseRotationKeysNotListed}
	}
	return nil
}

// Counts is the per-action tally of a plan or run: the plan file's
// "summary" (SPEC §7.4) and, folded by Report, the report's "counts".
// JSON keys are part of the plan file's schema; "adopt" is written only
// when non-zero, so a plan without adoptions has exactly the report's keys.
type Counts struct {
	Create int `json:"create"`
	Update int `json:"update"`
	// Adopt counts adoptions (SPEC §11); the report counts them as update.
	Adopt          int `json:"adopt,omitempty"`
	Restore        int `json:"restore"`
	ScheduleDelete int `json:"schedule_delete"`
	Unchanged      int `json:"unchanged"`
	Conflicts      int `json:"conflicts"`
}

// Report folds c into the report's counts (SPEC §7.2): an adoption is an
// update there (SPEC §11), so Adopt is 0 and the report's keys stay
// exactly schema v1's.
func (c Counts) Report() Counts {
	c.Update += c.Adopt
	c.Adopt = 0
	return c
}

// Operations returns the number of operations counted (create + adopt +
// update + restore + schedule-delete): the count of every Action whose IsOperation
// holds.
func (c Counts) Operations() int {
	n := 0
	for _, a := range Phases {
		n += *actionInfo(a).count(&c)
	}
	return n
}

// ReportSchema is the report's schema_version value (SPEC §7.2).
const ReportSchema = "sops-aws-sync/report/v1"

// Log phases (SPEC §7.3): the value of the "phase" field.
const (
	PhasePlan     = "plan"
	PhaseApply    = "apply"
	PhaseVerify   = "verify"
	PhaseAWS      = "aws"
	PhaseReport   = "report"
	PhaseComplete = "complete"
)

// Log field keys (SPEC §7.3). No other keys may appear in a log record
// besides slog's own time, level and msg.
const (
	FieldPhase         = "phase"
	FieldStatus        = "status"
	FieldOperation     = "operation"
	FieldCount         = "count"
	FieldDurationMS    = "duration_ms"
	FieldResource      = "resource"
	FieldConflictClass = "conflict_class"
	FieldErrorCode     = "error_code"
	FieldFaultClass    = "fault_class"
	FieldRequestID     = "request_id"
	FieldErrorClass    = "error_class"
	FieldVerification  = "verification"
	// FieldThrottled counts calls AWS throttled (and the tool resent) in a
	// phase, on its summary and progress records.
	FieldThrottled = "throttled"
	// FieldWaitMS is the time a phase's calls waited for their turn of the
	// client-side pace, in milliseconds summed over workers.
	FieldWaitMS = "wait_ms"
	// FieldDone and FieldTotal are a progress record's units done so far
	// and expected (documents, secrets observed, operations).
	FieldDone  = "done"
	FieldTotal = "total"
	// FieldScope is the name of the scope a record is about (SPEC §10:
	// every record of a scope carries it; a run without scopes: is one
	// scope named default).
	FieldScope = "scope"
	// FieldRegion is the Region of a replica a record is about
	// (replica-regions, SPEC §12); a Region code, never an account.
	FieldRegion = "region"
	// FieldIAMActions is, on the record of a failed AWS call, the IAM
	// actions the call needs (vocab.IAMActions), comma-separated.
	FieldIAMActions = "iam_actions"
	// FieldDeletion says, beside operation schedule-delete, what the
	// deletion does in the scope's target (model.Target.Words: "scheduled"
	// in a recovery window, Secrets Manager; "immediate", Parameter Store,
	// SPEC §16).
	FieldDeletion = "deletion"
)
