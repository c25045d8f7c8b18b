package command

import (
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// probePlanFile proves --plan-file writable before any AWS call
// (wirefile.File.Probe: the checks and the directory of the final write).
// Errors are *wirefile.WriteError.
func probePlanFile(path string) error { return planview.File.Probe(path) }

// PlanFailure is the diagnostic of a plan-file write or probe error:
// planfile:not-regular-file for an existing target that is not a regular
// file, else planfile:write-failed naming the failed step; never the path.
func PlanFailure(err error) diag.Diagnostic {
	if errors.Is(err, wirefile.ErrNotRegular) {
		return diag.New(diag.PlanfileNotRegularFile, diag.Subject{})
	}
	return diag.New(diag.PlanfileWriteFailed, diag.Subject{}).WithSummary("the plan file could not be written (step " + wirefile.StepOf(err) + ")")
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
