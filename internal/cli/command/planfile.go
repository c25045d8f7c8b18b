package command

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
)

var errIsDirectory = errors.New("the path is a directory")

// probe proves, before any AWS call, that an atomic write can succeed at
// path: the target is not a directory, and a temporary file can be created
// (and is removed again) in its directory — the same directory the atomic
// writer uses, with its pattern. It returns the failed step ("probe-target":
// the path is a directory; "probe-create": the directory is missing, not a
// directory, or not writable, e.g. under /proc; "probe-remove") and the
// cause, or "" and nil.
func probe(path, pattern string) (string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "probe-target", errIsDirectory
	}
	f, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return "probe-create", err
	}
	name := f.Name()
	_ = f.Close()
	if err := os.Remove(name); err != nil {
		return "probe-remove", err
	}
	return "", nil
}

// probePlanFile is probe for --plan-file; errors are *planview.WriteError.
func probePlanFile(path string) error {
	if step, err := probe(path, ".sops-aws-sync-plan-*.tmp"); err != nil {
		return &planview.WriteError{Step: step, Err: err}
	}
	return nil
}

// PlanFailure is the planfile:write-failed diagnostic of a WriteFile or
// probe error: it names the failed step, never the path.
func PlanFailure(err error) diag.Diagnostic {
	return diag.New(diag.PlanfileWriteFailed, diag.Subject{}).WithSummary("the plan file could not be written (step " + planStep(err) + ")")
}

// planStep returns the failed step of a plan-file write or probe error.
func planStep(err error) string {
	var we *planview.WriteError
	if errors.As(err, &we) {
		return we.Step
	}
	return "unknown"
}

// planDiagnostics are ds as the plan file writes them: class, the
// registry's (or the site's) fixed sentences, and the subject as its
// producer redacted it (diag.Subject.Name).
func planDiagnostics(ds diag.Diagnostics) []planview.Diagnostic {
	out := make([]planview.Diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, planview.Diagnostic{Class: d.Class, Summary: d.Summary, Next: d.Next, Subject: d.Subject.Name()})
	}
	return out
}

// planView builds the run's plan view: the engine's shown plan (nil when
// none was built) and the run's diagnostics, redacted by planview.Build.
func planView(revision string, ops []planview.Operation, ds diag.Diagnostics, showNames bool) planview.View {
	return planview.Build(planview.Input{GitRevision: revision, Operations: ops, Diagnostics: planDiagnostics(ds)},
		model.Redaction{ShowNames: showNames})
}

// ensure the engine's plan data is planview's input type.
var _ []planview.Operation = engine.Result{}.Plan
