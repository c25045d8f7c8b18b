package run

import (
	"log/slog"
	"slices"
	"strconv"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// MaxStaleDiagnostics is the most plan:stale diagnostics one scope
// reports, one per difference; one more counts the rest.
const MaxStaleDiagnostics = 50

// ReviewedPlan checks that v may be applied as a reviewed plan
// (planview.Reviewable, SPEC §14) and returns the diagnostic that says
// why not (class plan:not-reviewable), nil when it may. It reads nothing
// but v.
func ReviewedPlan(v planview.View) diag.Diagnostics {
	if why := planview.Reviewable(v); why != "" {
		d := diag.New(diag.PlanNotReviewable, diag.Subject{})
		return diag.Diagnostics{d.WithSummary("the reviewed plan file cannot be applied: " + why + "; nothing was written")}
	}
	return nil
}

// checkReviewed compares what a reviewed plan is bound to with the run it
// is given to, before any Sources call: the repository-id (under the
// file's salt; plan:other-repository) and the scopes, by name and in
// order (plan:other-scopes). Each diagnostic is logged; none is returned
// when the plan is this run's.
func checkReviewed(log *slog.Logger, v *planview.View, scopes []config.Scope) diag.Diagnostics {
	var ds diag.Diagnostics
	if !planview.SameRepository(*v, scopes[0].Desired.RepositoryID) {
		ds = append(ds, diag.New(diag.PlanOtherRepository, diag.Subject{}))
	}
	names := func(n int, name func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = name(i)
		}
		return out
	}
	if !slices.Equal(names(len(v.Scopes), func(i int) string { return v.Scopes[i].Name }),
		names(len(scopes), func(i int) string { return scopes[i].Name })) {
		ds = append(ds, diag.New(diag.PlanOtherScopes, diag.Subject{}))
	}
	for _, d := range ds {
		log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid))}, d.Attrs()...)...)
	}
	return ds
}

// scopeReview is the reviewed plan of one scope as the engine asks it
// (engine.Reviewer, engine.ScopeRun.Reviewed): the reviewed file's scope,
// its salt and names setting, the scope as the run resolved it, and the
// run's own --show-resource-names (a resource is named in a diagnostic
// only when both the file and the run show names).
type scopeReview struct {
	reviewed   planview.ScopeView
	salt       []byte
	namesShown bool
	scope      ScopeOutcome
	showNames  bool
	// commit is the reviewed plan's git_revision; tally counts the run's
	// reviews (shared by its scopes).
	commit string
	tally  *reviewTally
	// skipped names the run's scopes skipped as unreachable.
	skipped []string
}

// reviewTally counts the reviews of one run's scopes as the engine asks
// them (engine.RunScopes asks every scope, one after another, only when
// none is blocked): how many were asked, how many differed, and the
// operations the scopes planned.
type reviewTally struct {
	asked, differed, operations int
}

// applied is the reviewed plan the run applies, nil unless every one of
// the scopes it ran (scopes: those not skipped as unreachable) was
// reviewed and none differed.
func (t *reviewTally) applied(scopes int, commit string) *planview.Reviewed {
	if t.asked != scopes || t.differed > 0 {
		return nil
	}
	return &planview.Reviewed{GitRevision: commit, Operations: t.operations}
}

// Commit is the commit the reviewed plan was made at (engine.Reviewer).
func (v scopeReview) Commit() string { return v.commit }

// Skipped names the run's scopes skipped as unreachable (engine.Reviewer).
func (v scopeReview) Skipped() []string { return v.skipped }

// Review builds the scope's view as planned with the reviewed file's salt
// and names setting (so digests and resources compare) and returns one
// plan:stale diagnostic per difference from the reviewed scope
// (planview.CompareScope), none when they are equal. A scope planned
// converged is never stale: it writes nothing, and "the reviewed plan or
// nothing" holds (docs/results.md, "Applying the reviewed plan").
func (v scopeReview) Review(r engine.Result) (ds diag.Diagnostics) {
	if v.tally != nil {
		defer v.tally.count(r, &ds)
	}
	if r.Status == vocab.StatusConverged {
		return nil
	}
	sc := v.scope
	sc.Result = r
	in := planview.Input{Salt: v.salt, Scopes: []planview.ScopeInput{sc.Input()}}
	current := planview.Build(in, model.Redaction{ShowNames: v.namesShown}).Scopes[0]
	diffs := planview.CompareScope(v.reviewed, current)
	label := resourceLabels(r.Plan, v.namesShown, v.showNames)
	for i, d := range diffs {
		if i == MaxStaleDiagnostics {
			ds = append(ds, diag.New(diag.PlanStale, diag.Subject{}).WithSummary("scope "+sc.Name+": "+
				strconv.Itoa(len(diffs)-i)+" more differences from the reviewed plan; nothing was written"))
			break
		}
		ds = append(ds, diag.New(diag.PlanStale, diag.Subject{}).WithSummary(staleSummary(d, label(d.Resource))))
	}
	return ds
}

// count records one review: r as planned and its differences ds.
func (t *reviewTally) count(r engine.Result, ds *diag.Diagnostics) {
	t.asked++
	if len(*ds) > 0 {
		t.differed++
	}
	for _, o := range r.Plan {
		if o.Action.IsOperation() {
			t.operations++
		}
	}
}

// resourceLabels returns how a diagnostic names a resource of the
// compared views: as the views name it (a resource-NNNN label, or a name
// when the reviewed file shows names and so does the run), else the
// run's label of the named secret, else "" (a name only the reviewed file
// holds is not repeated by a run that hides names).
func resourceLabels(ops []planview.Operation, namesShown, showNames bool) func(string) string {
	if !namesShown || showNames {
		return func(res string) string { return res }
	}
	byName := make(map[string]string, len(ops))
	for _, o := range ops {
		byName[model.Redaction{ShowNames: true}.Label(o.Ordinal, o.Name)] = model.ResourceLabel(o.Ordinal)
	}
	return func(res string) string { return byName[res] }
}

// staleSummary is the sentence of one difference: the scope, what
// differs, the resource when there is one ("" hides it), and that
// nothing was written.
func staleSummary(d planview.Difference, resource string) string {
	var what string
	switch d.Kind {
	case planview.DiffSource:
		what = "source changed: the documents under the source root differ from the reviewed commit's"
	case planview.DiffSettings:
		what = "settings changed: a setting that shapes the plan, or the Region, differs from the reviewed plan's"
	case planview.DiffAdded:
		what = "operation added: the plan now holds an operation the reviewed plan did not"
	case planview.DiffRemoved:
		what = "operation removed: an operation of the reviewed plan is no longer planned"
	case planview.DiffChanged:
		what = "operation changed: its action, reason, key changes, metadata or replicas differ from the reviewed plan's"
	case planview.DiffAWS:
		what = "AWS changed since review: the secret was written, deleted or re-tagged after the plan was made"
	default:
		what = "the scopes differ from the reviewed plan's"
	}
	if resource != "" {
		what += " (" + resource + ")"
	}
	return "scope " + d.Scope + ": " + what + "; nothing was written"
}
