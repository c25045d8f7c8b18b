package exitcode

import (
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// RunError is the outcome of a plan or sync that does not exit 0: the final
// status (mapped by vocab.ExitCode), whether plan --detailed-exit-code was
// given, and the diagnostics for stderr (configuration problems, a report
// write failure). A diagnostic of a family whose exit code is not the
// status's (report:write-failed, SPEC §7.1; planfile:write-failed)
// decides the exit code.
type RunError struct {
	Status      vocab.Status
	Detailed    bool
	Diagnostics diag.Diagnostics
}

func (e *RunError) Error() string {
	if len(e.Diagnostics) > 0 {
		return e.Diagnostics.Error()
	}
	return "run ended with status " + string(e.Status)
}

// Unwrap lets errors.As find the diagnostics.
func (e *RunError) Unwrap() error { return e.Diagnostics.Err() }

// For maps err to the process exit code: nil is 0; a *RunError its status
// (a report or plan-file write failure forces 3); diag.Diagnostics their family's code;
// anything else fails closed as exit 3.
func For(err error) int {
	if err == nil {
		return vocab.ExitOK
	}
	var re *RunError
	if errors.As(err, &re) {
		for _, d := range re.Diagnostics {
			if f := diag.FamilyOf(d.Class); f == diag.FamilyReport || f == diag.FamilyPlanfile {
				return d.ExitCode()
			}
		}
		return vocab.ExitCode(re.Status, re.Detailed)
	}
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		return ds.ExitCode()
	}
	return vocab.ExitInvalid
}

// Lines returns the lines to print on stderr for err: each diagnostic's
// line, then its next action. It is empty when the outcome is fully
// described by the log records on stdout; an error that carries no
// diagnostic gets the internal one.
func Lines(err error) []string {
	if err == nil {
		return nil
	}
	var re *RunError
	if errors.As(err, &re) {
		return re.Diagnostics.Lines()
	}
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		return ds.Lines()
	}
	return diag.Diagnostics{diag.New(diag.Internal, diag.Subject{})}.Lines()
}
