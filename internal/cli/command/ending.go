package command

import (
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// errRunTimeout is the cancellation cause of --run-timeout.
var errRunTimeout = errors.New("run timeout")

// ending is how one plan or sync ended: the one value that every output
// writes (the plan file, the report, the final log record, the text
// rendering) and that the exit code follows from (SPEC §7.1). conclude
// builds it on every path: a usage error, a rejected configuration, a file
// probe that failed, an AWS set-up or desired state that was rejected, a
// real run, an interruption. An output that fails to write makes it
// invalid (failed), so the report, the final record and the exit code
// always tell the same story.
//
// A run has one section per scope (SPEC §10; one named default without
// scopes:); status, verification and counts are the run's: the most
// severe status and verification of its scopes and of what stopped the
// run itself (vocab.MostSevere, MostSevereVerification), the counts summed
// (report/v1 for the run).
type ending struct {
	status       vocab.Status
	verification vocab.Verification
	counts       vocab.Counts
	// revision is the resolved commit ("" when the run ended before it).
	revision string
	// reviewed is the reviewed plan a sync applied (run.Outcome.Reviewed).
	reviewed *planview.Reviewed
	// scopes are the sections of the run's scopes in configuration order,
	// each the scope's own outcome as the run reached it (its name and
	// Region, what binds its plan, its engine Result: status, verification,
	// counts, shown plan, diagnostics, failures, changes, state digest),
	// its status and verification settled by the run's cancellation
	// (settle); nil when the run ended before its scopes were known (a
	// usage error, a rejected configuration or AWS set-up, an unreadable
	// revision).
	scopes []run.ScopeOutcome
	// diags are the run's own problems in the order met (not a scope's):
	// those that stopped it before its scopes ran (usage, configuration, a
	// file probe, the AWS set-up, the revision), the interruption, then the
	// outputs that failed.
	diags      diag.Diagnostics
	durationMS int64
	// detailed is plan --detailed-exit-code (drift exits 2).
	detailed bool
}

// how is what conclude needs to know of the run besides what the work
// reached: --detailed-exit-code, the cancellation cause (nil when the run
// was not cancelled) and the wall time.
type how struct {
	detailed   bool
	cause      error
	durationMS int64
}

// conclude builds the ending from what the run reached (run.Outcome: the
// run's own stop, each scope's engine Result, the commit it read). A scope (and the run) that failed while the run was being
// cancelled is interrupted (the cancellation is the cause, SPEC §7.1),
// unless it had already reached converged, drift, a conflict or an invalid
// desired state; an interrupted ending carries the class of its cause
// (interrupted:signal or interrupted:run-timeout). What verification a
// plan implies is the engine's to say (a plan never verifies), not
// conclude's: it takes each scope's verification as the run reached it.
func conclude(got run.Outcome, h how) ending {
	e := ending{revision: got.Revision, reviewed: got.Reviewed, diags: got.Run.Diagnostics, durationMS: max(h.durationMS, 0), detailed: h.detailed}
	var statuses []vocab.Status
	var verifications []vocab.Verification
	if got.Run.Status != "" {
		statuses = append(statuses, got.Run.Status)
	}
	for _, s := range got.Scopes {
		s.Status, s.Verification = settle(s.Status, s.Verification, h.cause)
		e.scopes = append(e.scopes, s)
		statuses = append(statuses, s.Status)
		verifications = append(verifications, s.Verification)
		e.counts = e.counts.Plus(s.Counts)
	}
	e.status, e.verification = settle(vocab.MostSevere(statuses...), vocab.MostSevereVerification(verifications...), h.cause)
	if got.Run.Status != "" {
		e.verification = vocab.VerificationNotRun
	}
	if e.status == vocab.StatusInterrupted {
		class := diag.InterruptedSignal
		if errors.Is(h.cause, errRunTimeout) {
			class = diag.InterruptedTimeout
		}
		e.diags = append(e.diags, diag.New(class, diag.Subject{}))
	}
	return e
}

// settle is a status and verification as the run's cancellation (cause,
// nil when the run was not cancelled) leaves them: interrupted when the
// run was cancelled and the status is not one the work had already
// reached for itself (converged, drift, conflict, invalid); verification
// not-run when none was reported (a run stopped before its scopes, a
// scope the engine never ran) and when interrupted.
func settle(s vocab.Status, v vocab.Verification, cause error) (vocab.Status, vocab.Verification) {
	switch s {
	case vocab.StatusConverged, vocab.StatusDrift, vocab.StatusConflict, vocab.StatusInvalid:
	default:
		if cause != nil {
			s = vocab.StatusInterrupted
		}
	}
	if v == "" || s == vocab.StatusInterrupted {
		v = vocab.VerificationNotRun
	}
	return s, v
}

// failed is e after an output failed with d: invalid (exit 3, SPEC §7.1:
// a report write failure forces exit 3; so does the plan file's), no
// verification claimed, the counts of what the run did kept, d added.
func (e ending) failed(d diag.Diagnostic) ending {
	e.status, e.verification = vocab.StatusInvalid, vocab.VerificationNotRun
	e.diags = append(e.diags[:len(e.diags):len(e.diags)], d)
	return e
}

// exitCode is the process exit code of e.
func (e ending) exitCode() int { return vocab.ExitCode(e.status, e.detailed) }

// err is e as the command's error: nil for exit 0 without a line for
// stderr, else an *exitcode.RunError whose diagnostics are the lines stderr
// carries (docs/results.md, stderr): all of them when nothing was logged
// (a usage error or a rejected configuration: the log settings may be the
// invalid ones), else only the outputs' failures; the log records carry
// the rest.
func (e ending) err(logged bool) error {
	lines := e.diags
	if logged {
		lines = nil
		for _, d := range e.diags {
			if f := diag.FamilyOf(d.Class); f == diag.FamilyReport || f == diag.FamilyPlanfile {
				lines = append(lines, d)
			}
		}
	}
	if e.exitCode() == vocab.ExitOK && len(lines) == 0 {
		return nil
	}
	return &exitcode.RunError{Status: e.status, Detailed: e.detailed, Diagnostics: lines}
}
