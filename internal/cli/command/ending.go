package command

import (
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
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
type ending struct {
	status       vocab.Status
	verification vocab.Verification
	counts       vocab.Counts
	// revision is the resolved commit ("" when the run ended before it).
	revision string
	// plan is the engine's shown plan (nil when none was built).
	plan []planview.Operation
	// diags are the run's problems in the order met: those that stopped
	// it (usage, configuration, a file probe, the AWS set-up, the desired
	// state, the engine's stops, the interruption), its warnings, then the
	// outputs that failed.
	diags      diag.Diagnostics
	durationMS int64
	// detailed is plan --detailed-exit-code (drift exits 2).
	detailed bool
}

// how is what conclude needs to know of the run besides what the work
// reached: the mode, --detailed-exit-code, the cancellation cause (nil when
// the run was not cancelled) and the wall time.
type how struct {
	mode       engine.Mode
	detailed   bool
	cause      error
	durationMS int64
}

// stopped is what a run reached when it stopped before the engine: status
// invalid with the diagnostics that stopped it.
func stopped(ds diag.Diagnostics) engine.Result {
	return engine.Result{Status: vocab.StatusInvalid, Diagnostics: ds}
}

// conclude builds the ending from what the work reached (the engine's
// Result, or stopped(...)) and the commit it read. A run that failed while
// it was being cancelled is interrupted (the cancellation is the cause,
// SPEC §7.1), unless it had already reached converged, drift, a conflict or
// an invalid desired state; an interrupted ending carries the class of its
// cause (interrupted:signal or interrupted:run-timeout). Plan never reports
// a verification.
func conclude(got engine.Result, revision string, h how) ending {
	e := ending{status: got.Status, verification: got.Verification, counts: got.Counts, revision: revision,
		plan: got.Plan, diags: got.Diagnostics, durationMS: max(h.durationMS, 0), detailed: h.detailed}
	switch e.status {
	case vocab.StatusConverged, vocab.StatusDrift, vocab.StatusConflict, vocab.StatusInvalid:
	default:
		if h.cause != nil {
			e.status = vocab.StatusInterrupted
		}
	}
	if e.verification == "" || h.mode == engine.ModePlan || e.status == vocab.StatusInterrupted {
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
