package exitcode

import (
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// UsageError is a command-line usage problem: an unknown flag or command, a
// missing flag argument, or a stray positional argument. Class is a stable
// token (usage:unknown-flag, usage:flag-argument, usage:stray-argument,
// usage:unknown-command); Message never quotes a value.
type UsageError struct {
	Class   string
	Message string
}

func (e *UsageError) Error() string { return e.Message + " (" + e.Class + ")" }

// RunError is the outcome of a plan or sync that does not exit 0: the final
// status (mapped by vocab.ExitCode), whether plan --detailed-exit-code was
// given, an optional diagnostic for stderr (configuration problems only),
// and a report write failure, which forces exit 3 (SPEC §7.1).
type RunError struct {
	Status     vocab.Status
	Detailed   bool
	Diagnostic error
	ReportErr  error
}

func (e *RunError) Error() string {
	if e.ReportErr != nil {
		return e.ReportErr.Error()
	}
	if e.Diagnostic != nil {
		return e.Diagnostic.Error()
	}
	return "run ended with status " + string(e.Status)
}

func (e *RunError) Unwrap() []error {
	var out []error
	for _, err := range []error{e.Diagnostic, e.ReportErr} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// For maps err to the process exit code.
func For(err error) int {
	if err == nil {
		return vocab.ExitOK
	}
	var re *RunError
	if errors.As(err, &re) {
		if re.ReportErr != nil {
			return vocab.ExitInvalid
		}
		return vocab.ExitCode(re.Status, re.Detailed)
	}
	var ue *UsageError
	var ce *config.Error
	var we *report.WriteError
	switch {
	case errors.As(err, &ue), errors.As(err, &ce), errors.As(err, &we):
		return vocab.ExitInvalid
	}
	return vocab.ExitInvalid
}

// Diagnostic returns the lines to print on stderr for err: what went wrong
// and what to do next. It is empty when the outcome is fully described by
// the log records on stdout.
func Diagnostic(err error) []string {
	if err == nil {
		return nil
	}
	var lines []string
	var ue *UsageError
	var ce *config.Error
	if errors.As(err, &ue) {
		lines = append(lines, "sops-aws-sync: "+ue.Error(), "next: run 'sops-aws-sync <command> --help' for the accepted flags; nothing was read from Git or AWS")
	}
	if errors.As(err, &ce) {
		for _, p := range ce.Problems {
			lines = append(lines, "sops-aws-sync: "+p.String())
		}
		lines = append(lines, "next: "+config.NextAction)
	}
	var we *report.WriteError
	if errors.As(err, &we) {
		lines = append(lines, "sops-aws-sync: the report file could not be written (report:write-failed, step "+we.Step+")",
			"next: make sure the directory of --report-file exists and is writable, then re-run to see the real outcome")
	}
	var re *RunError
	if len(lines) == 0 && !errors.As(err, &re) {
		lines = append(lines, "sops-aws-sync: internal error (internal)", "next: re-run; if it persists, report a bug with the log records from stdout")
	}
	return lines
}
