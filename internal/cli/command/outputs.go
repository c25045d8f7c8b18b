package command

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// outputs are where an ending is written, in this order: the plan file,
// the report, the final log record, the text rendering. The plan file comes
// first so that its failure is part of the ending the report and the final
// record tell; a report that fails after the run is in the final record,
// on stderr and in the exit code (the plan file, already written, does not
// list it).
type outputs struct {
	planFile, report *fileOutput // nil: not asked for
	// log is the run's logger; nil when nothing may be logged (a usage
	// error or a rejected configuration: the log settings may be the
	// invalid ones).
	log *slog.Logger
	// text receives the text rendering (--log-format text); nil: none.
	text      io.Writer
	showNames bool
	// scope names the run's one scope in the plan file; nil while the run
	// has not resolved it (a usage error or a rejected configuration: the
	// plan file then has no scope).
	scope *scopeID
}

// scopeID is what the plan file says of a scope besides its plan: its
// name and its Region ("" when the SDK's chain chooses it).
type scopeID struct{ name, region string }

// fileOutput is one wire file of a run: it proves itself writable before
// the run (probe), and after a failed probe it is never written.
type fileOutput struct {
	path    string
	file    wirefile.File
	done    string                      // the debug record after a write
	value   func(ending) wirefile.Value // the file's content for an ending
	failure func(error) diag.Diagnostic // the class of a failed probe or write
	refused bool
}

// newOutputs returns the outputs of the given paths ("" = not asked for).
func newOutputs(version, reportPath, planPath string, showNames bool, log *slog.Logger, text io.Writer) *outputs {
	o := &outputs{log: log, text: text, showNames: showNames}
	if planPath != "" {
		o.planFile = &fileOutput{path: planPath, file: planview.File, done: "plan file written", failure: PlanFailure,
			value: func(e ending) wirefile.Value { return o.view(e) }}
	}
	if reportPath != "" {
		o.report = &fileOutput{path: reportPath, file: report.File, done: "report written", failure: ReportFailure,
			value: func(e ending) wirefile.Value {
				return report.New(version, e.revision, e.status, e.verification, e.counts, e.durationMS)
			}}
	}
	return o
}

func (o *outputs) files() []*fileOutput {
	var fs []*fileOutput
	for _, f := range []*fileOutput{o.planFile, o.report} {
		if f != nil {
			fs = append(fs, f)
		}
	}
	return fs
}

// probe proves, before anything is read from Git or AWS, that every file
// output can be written: two outputs naming one file (planfile:same-file:
// only the report is then written), and each file's own probe
// (wirefile.File.Probe: what the final write will do). It logs and returns
// the diagnostics of the outputs refused; empty when all can be written.
func (o *outputs) probe() diag.Diagnostics {
	var ds diag.Diagnostics
	if o.planFile != nil && o.report != nil && wirefile.SameTarget(o.planFile.path, o.report.path) {
		o.planFile.refused = true
		ds = append(ds, o.logFailure(diag.New(diag.PlanfileSameFile, diag.Subject{}), "probe-target"))
	}
	for _, f := range o.files() {
		if f.refused {
			continue
		}
		if err := f.file.Probe(f.path); err != nil {
			f.refused = true
			ds = append(ds, o.logFailure(f.failure(err), wirefile.StepOf(err)))
		}
	}
	return ds
}

// write writes e to every output and returns the command's error (nil for
// exit 0). A file output that fails makes the ending invalid before the
// next output is written.
func (o *outputs) write(e ending) error {
	for _, f := range o.files() {
		if f.refused {
			continue
		}
		if err := f.file.WriteJSON(f.path, f.value(e)); err != nil {
			e = e.failed(o.logFailure(f.failure(err), wirefile.StepOf(err)))
		} else if o.log != nil {
			o.log.Debug(f.done, slog.String(vocab.FieldPhase, vocab.PhaseReport))
		}
	}
	o.finalRecord(e)
	if o.text != nil {
		// The human rendering follows the text log; the JSON log stream
		// stays pure JSON records.
		_, _ = io.WriteString(o.text, "\n"+planview.Text(o.view(e)))
	}
	return e.err(o.log != nil)
}

// logFailure logs a file output's failure (phase report, the failed step
// as operation) and returns d.
func (o *outputs) logFailure(d diag.Diagnostic, step string) diag.Diagnostic {
	if o.log != nil {
		o.log.Error(d.Sentence(), append(append([]any{slog.String(vocab.FieldPhase, vocab.PhaseReport)}, d.Attrs()...),
			slog.String(vocab.FieldOperation, step))...)
	}
	return d
}

// finalRecord logs what stopped an interrupted run, then "run finished"
// (phase complete): the status, verification, operations counted and
// duration of e, at level ERROR when the exit code is not 0 (drift
// excepted).
func (o *outputs) finalRecord(e ending) {
	if o.log == nil {
		return
	}
	if e.status == vocab.StatusInterrupted {
		for _, d := range e.diags {
			if diag.FamilyOf(d.Class) == diag.FamilyInterrupted {
				o.log.Warn(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhaseComplete)}, d.Attrs()...)...)
			}
		}
	}
	level := slog.LevelInfo
	if e.exitCode() != vocab.ExitOK && e.status != vocab.StatusDrift {
		level = slog.LevelError
	}
	o.log.Log(context.Background(), level, "run finished",
		slog.String(vocab.FieldPhase, vocab.PhaseComplete),
		slog.String(vocab.FieldStatus, string(e.status)),
		slog.String(vocab.FieldVerification, string(e.verification)),
		slog.Int(vocab.FieldCount, e.counts.Operations()),
		slog.Int64(vocab.FieldDurationMS, e.durationMS))
}

// view is the plan view of e: the engine's shown plan and every
// diagnostic so far, redacted by planview.Build. The run's one scope (when
// resolved) holds the plan, the status, the verification and the
// diagnostics about its documents and secrets; the run keeps those of the
// command line, the configuration, Git, the outputs and an interruption
// (runLevel).
func (o *outputs) view(e ending) planview.View {
	in := planview.Input{GitRevision: e.revision, Diagnostics: []planview.Diagnostic{}}
	var scope []planview.Diagnostic
	for _, d := range e.diags {
		pd := planview.Diagnostic{Class: d.Class, Summary: d.Summary, Next: d.Next, Subject: d.Subject.Name()}
		if o.scope == nil || runLevel(d.Class) {
			in.Diagnostics = append(in.Diagnostics, pd)
		} else {
			scope = append(scope, pd)
		}
	}
	if o.scope != nil {
		in.Scopes = []planview.ScopeInput{{Name: o.scope.name, Region: o.scope.region, Status: e.status,
			Verification: e.verification, Operations: e.plan, Diagnostics: scope}}
	}
	return planview.Build(in, model.Redaction{ShowNames: o.showNames})
}

// runLevel reports whether a diagnostic of class is the run's rather than
// a scope's: the command line, the configuration, the commit (one per
// run), the output files and an interruption.
func runLevel(class string) bool {
	switch diag.FamilyOf(class) {
	case diag.FamilyUsage, diag.FamilyConfig, diag.FamilyGit, diag.FamilyReport, diag.FamilyPlanfile, diag.FamilyInterrupted:
		return true
	}
	return false
}

// ReportFailure is the diagnostic of a report write or probe error:
// report:not-regular-file for an existing target that is not a regular
// file, else report:write-failed naming the failed step; never the path.
func ReportFailure(err error) diag.Diagnostic {
	if errors.Is(err, wirefile.ErrNotRegular) {
		return diag.New(diag.ReportNotRegularFile, diag.Subject{})
	}
	return diag.New(diag.ReportWriteFailed, diag.Subject{}).WithSummary("the report file could not be written (step " + wirefile.StepOf(err) + ")")
}

// PlanFailure is the diagnostic of a plan-file write or probe error:
// planfile:not-regular-file for an existing target that is not a regular
// file, else planfile:write-failed naming the failed step; never the path.
func PlanFailure(err error) diag.Diagnostic {
	if errors.Is(err, wirefile.ErrNotRegular) {
		return diag.New(diag.PlanfileNotRegularFile, diag.Subject{})
	}
	return diag.New(diag.PlanfileWriteFailed, diag.Subject{}).WithSummary("the plan file could not be written (step " + wirefile.StepOf(err) + ")")
}
