package command

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
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
	// sourceRoots is validate's --source-roots-file (nil: not asked for).
	sourceRoots *fileOutput
	// changes is sync's --changes-file (nil: not asked for), written
	// between the plan file and the report (withChanges).
	changes *fileOutput
	// log is the run's logger; nil when nothing may be logged (a usage
	// error or a rejected configuration: the log settings may be the
	// invalid ones).
	log *slog.Logger
	// text receives the text rendering (--log-format text); nil: none.
	text io.Writer
	// pointer: a plan run whose logs are JSON (no text rendering) logs one
	// record saying where its plan can be read (PlanNotRendered).
	pointer   bool
	showNames bool
	// scopes name the run's scopes in the plan file (configuration
	// order; their name and aws-region, "" when the SDK's chain chooses
	// it) when the run stopped before they ran; nil while the run has not
	// resolved them (a usage error or a rejected configuration: the plan
	// file then has no scope).
	scopes []config.Scope
	// command is "plan" or "sync" ("" before it is known) and
	// repositoryID the run's repository-id: what the plan file binds
	// (SPEC §14), with a salt drawn for the file.
	command, repositoryID string
}

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
				r := report.New(version, e.revision, e.status, e.verification, e.counts, e.durationMS)
				r.Scopes = o.reportScopes(e)
				return r
			}}
	}
	return o
}

func (o *outputs) files() []*fileOutput {
	var fs []*fileOutput
	for _, f := range []*fileOutput{o.sourceRoots, o.planFile, o.changes, o.report} {
		if f != nil {
			fs = append(fs, f)
		}
	}
	return fs
}

// withChanges adds sync's changes file at path ("" = not asked for): every
// operation of the run that took effect with its ARN and version, and each
// scope's state digest (internal/changes). Its failure is a report:*
// class, and like the plan file it is written before the report, so the
// report and the exit code tell that it failed.
func (o *outputs) withChanges(version, path string) *outputs {
	if path == "" {
		return o
	}
	o.changes = &fileOutput{path: path, file: changes.File, done: "changes file written", failure: ChangesFailure,
		value: func(e ending) wirefile.Value { return changesOf(version, e, o.scopes) }}
	return o
}

// changesOf is the changes file of e: the scopes in configuration order,
// each scope's changes (engine order: name, then apply phase) and its
// state digest when it converged. A run that stopped before its scopes
// ran (the AWS set-up, the revision, an interruption) lists the scopes
// the configuration named (configured) with the run's status, as the
// report does (reportScopes); none when the configuration was never
// resolved.
func changesOf(version string, e ending, configured []config.Scope) changes.Changes {
	var scopes []changes.Scope
	var cs []changes.Change
	if e.scopes == nil {
		for _, s := range configured {
			scopes = append(scopes, changes.Scope{Name: s.Name, Region: s.AWS.Region, Status: e.status})
		}
	}
	for _, s := range e.scopes {
		digest := s.StateDigest
		if s.Status != vocab.StatusConverged {
			digest = ""
		}
		scopes = append(scopes, changes.Scope{Name: s.Name, Region: s.Region, Status: s.Status, StateDigest: digest})
		for _, c := range s.Changes {
			cs = append(cs, changes.Change{Scope: s.Name, Action: c.Action, Name: c.Name, ARN: c.ARN, VersionID: c.VersionID})
		}
	}
	return changes.New(version, e.revision, e.status, scopes, cs)
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
	if o.changes != nil && (o.report != nil && wirefile.SameTarget(o.changes.path, o.report.path) ||
		o.planFile != nil && wirefile.SameTarget(o.changes.path, o.planFile.path)) {
		o.changes.refused = true
		ds = append(ds, o.logFailure(diag.New(diag.ReportChangesSameFile, diag.Subject{}), "probe-target"))
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
	if o.pointer && o.log != nil && o.text == nil {
		o.log.Info(PlanNotRendered, slog.String(vocab.FieldPhase, vocab.PhaseComplete))
	}
	o.finalRecord(e)
	if o.text != nil {
		// The human rendering follows the text log; the JSON log stream
		// stays pure JSON records.
		_, _ = io.WriteString(o.text, "\n"+planview.Text(o.view(e)))
	}
	return e.err(o.log != nil)
}

// PlanNotRendered is the message of the one record a plan with JSON logs
// (the default) writes before "run finished": the human rendering of the
// plan is only written beside text logs, so the record says where to read
// it (docs/results.md).
const PlanNotRendered = "plan not rendered in JSON logs: re-run with --log-format text to print it, " +
	"or give --plan-file FILE and read it with sops-aws-sync show FILE"

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
	if len(e.scopes) > 1 {
		for _, s := range e.scopes {
			o.log.Log(context.Background(), levelOf(s.Status, e.detailed), "scope finished",
				slog.String(vocab.FieldPhase, vocab.PhaseComplete), slog.String(vocab.FieldScope, s.Name),
				slog.String(vocab.FieldStatus, string(s.Status)),
				slog.String(vocab.FieldVerification, string(s.Verification)),
				slog.Int(vocab.FieldCount, s.Counts.Operations()))
		}
	}
	o.log.Log(context.Background(), levelOf(e.status, e.detailed), "run finished",
		slog.String(vocab.FieldPhase, vocab.PhaseComplete),
		slog.String(vocab.FieldStatus, string(e.status)),
		slog.String(vocab.FieldVerification, string(e.verification)),
		slog.Int(vocab.FieldCount, e.counts.Operations()),
		slog.Int64(vocab.FieldDurationMS, e.durationMS))
}

// levelOf is the level of a final record of status s: ERROR when its exit
// code is not 0, drift excepted.
func levelOf(s vocab.Status, detailed bool) slog.Level {
	if vocab.ExitCode(s, detailed) != vocab.ExitOK && s != vocab.StatusDrift {
		return slog.LevelError
	}
	return slog.LevelInfo
}

// view is the plan view of e, redacted by planview.Build: one section per
// scope (SPEC §10) with its plan, status, verification and diagnostics, and
// the run's own diagnostics. A run that stopped before its scopes ran (the
// AWS set-up, the revision, an output probe) still has a section for each
// scope the configuration named, with the run's status; a diagnostic
// about one scope (run.ScopeOf: a setting scopes.<name>.<key>, or anything but
// the run's own when there is one scope) is in that scope's section.
func (o *outputs) view(e ending) planview.View {
	r := model.Redaction{ShowNames: o.showNames}
	in := planview.Input{Command: o.command, Salt: newSalt(), RepositoryID: o.repositoryID, GitRevision: e.revision, Reviewed: e.reviewed}
	targets := map[string]model.Target{}
	for _, s := range o.scopes {
		targets[s.Name] = s.Target()
	}
	if e.scopes != nil {
		for _, s := range e.scopes {
			sc := s.Input()
			sc.Target = targets[s.Name]
			in.Scopes = append(in.Scopes, sc)
		}
		in.Diagnostics = append(in.Diagnostics, e.diags...)
		return planview.Build(in, r)
	}
	names := make([]string, len(o.scopes))
	for i, s := range o.scopes {
		names[i] = s.Name
	}
	byScope := map[string]diag.Diagnostics{}
	for _, d := range e.diags {
		if name := run.ScopeOf(d, names); name != "" {
			byScope[name] = append(byScope[name], d)
		} else {
			in.Diagnostics = append(in.Diagnostics, d)
		}
	}
	for _, s := range o.scopes {
		in.Scopes = append(in.Scopes, planview.ScopeInput{Name: s.Name, Region: s.AWS.Region, Status: e.status,
			Verification: e.verification, Diagnostics: byScope[s.Name], Target: s.Target()})
	}
	return planview.Build(in, r)
}

// newSalt draws a plan file's digest salt (planview.SaltBytes random
// bytes, crypto/rand).
func newSalt() []byte {
	b := make([]byte, planview.SaltBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return b
}

// reportScopes are the report's scopes line for line with the plan view's
// sections (view): each scope's own outcome and counts; a run that stopped
// before its scopes ran lists every scope the configuration named with the
// run's status and verification and zero counts; nil (no key) when the
// configuration was never resolved.
func (o *outputs) reportScopes(e ending) []report.Scope {
	var out []report.Scope
	if e.scopes != nil {
		for _, s := range e.scopes {
			out = append(out, report.NewScope(s.Name, s.Region, s.Status, s.Verification, s.Counts))
		}
		return out
	}
	for _, s := range o.scopes {
		out = append(out, report.NewScope(s.Name, s.AWS.Region, e.status, e.verification, vocab.Counts{}))
	}
	return out
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

// ChangesFailure is the diagnostic of a changes-file write or probe
// error: report:changes-not-regular-file for an existing target that is
// not a regular file, else report:changes-write-failed naming the failed
// step; never the path.
func ChangesFailure(err error) diag.Diagnostic {
	if errors.Is(err, wirefile.ErrNotRegular) {
		return diag.New(diag.ReportChangesNotRegularFile, diag.Subject{})
	}
	return diag.New(diag.ReportChangesWriteFailed, diag.Subject{}).WithSummary("the changes file could not be written (step " + wirefile.StepOf(err) + ")")
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
