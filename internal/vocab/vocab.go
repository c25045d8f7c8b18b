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
)

// Statuses lists every status in the order of SPEC §7.1: the one set the
// report, the logs and the Action accept.
var Statuses = []Status{
	StatusConverged, StatusDrift, StatusInvalid, StatusConflict, StatusApplyFailed,
	StatusObservationFailed, StatusVerificationFailed, StatusVerificationInconclusive, StatusInterrupted,
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
	case StatusApplyFailed, StatusObservationFailed:
		return ExitApply
	case StatusVerificationFailed, StatusVerificationInconclusive:
		return ExitVerify
	case StatusInterrupted:
		return ExitInterrupted
	}
	return ExitInvalid
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
	ConflictStaging      ConflictClass = "staging"
	ConflictPayload      ConflictClass = "payload"
)

// ConflictClasses lists every class in the order of SPEC §4.1.
var ConflictClasses = []ConflictClass{
	ConflictOwnership, ConflictSource, ConflictSourceTag, ConflictServiceOwned,
	ConflictRotation, ConflictReplication, ConflictStaging, ConflictPayload,
}

// Counts is the per-kind tally reported in the report's "counts" object
// (SPEC §7.2). JSON keys are part of the report schema.
type Counts struct {
	Create         int `json:"create"`
	Update         int `json:"update"`
	Restore        int `json:"restore"`
	ScheduleDelete int `json:"schedule_delete"`
	Unchanged      int `json:"unchanged"`
	Conflicts      int `json:"conflicts"`
}

// Operations returns the number of operations counted (create + update +
// restore + schedule-delete): the count of every Action whose IsOperation
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
)
