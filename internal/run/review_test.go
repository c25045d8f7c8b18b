package run

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// reviewSalt is the reviewed file's digest salt in these tests.
var reviewSalt = []byte("0123456789abcdef")

// reviewScope is a scope's outcome as planned: tree, settings and its
// operations (status drift).
func reviewScope(ops ...planview.Operation) ScopeOutcome {
	return ScopeOutcome{Name: "prod", Region: "eu-west-1", SourceTree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		Settings: []byte(`{"prefix":"p"}`), Result: engine.Result{Status: vocab.StatusDrift, Verification: vocab.VerificationNotRun, Plan: ops}}
}

// createOf is a create of secret name (ordinal n) observed absent.
func createOf(n int, name string) planview.Operation {
	return planview.Operation{Ordinal: n, Name: name, Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent,
		Keys: &keydiff.Summary{Added: []keydiff.Path{{Pointer: "/k"}}}, Observed: &planview.Observed{}}
}

// updateOf is an update of secret name (ordinal n) observed at version.
func updateOf(n int, name, version string) planview.Operation {
	return planview.Operation{Ordinal: n, Name: name, Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
		Keys: &keydiff.Summary{Changed: []keydiff.Path{{Pointer: "/k"}}}, Observed: &planview.Observed{ARN: "arn:aws:secretsmanager:eu-west-1:111111111111:secret:" + name + "-AbCdEf", Versions: []string{version}}}
}

// reviewedOf is the scope's view as the reviewed plan file holds it.
func reviewedOf(sc ScopeOutcome, names bool) planview.ScopeView {
	in := planview.Input{Command: planview.CommandPlan, Salt: reviewSalt, Scopes: []planview.ScopeInput{{
		Name: sc.Name, Region: sc.Region, Status: sc.Status, Verification: sc.Verification,
		SourceTree: sc.SourceTree, Settings: sc.Settings, Operations: sc.Plan}}}
	return planview.Build(in, model.Redaction{ShowNames: names}).Scopes[0]
}

// summaries are the diagnostics' classes and summaries.
func summaries(t *testing.T, ds diag.Diagnostics) []string {
	t.Helper()
	out := make([]string, 0, len(ds))
	for _, d := range ds {
		require.Equal(t, diag.PlanStale, d.Class)
		out = append(out, d.Summary)
	}
	return out
}

// TestScopeReview_OneStaleDiagnosticPerDifference (SPEC §14): the Review method
// of a scope returns nothing when the run's plan is the reviewed one, and
// one plan:stale diagnostic per difference otherwise, naming the scope,
// the kind and the resource as the run may show it; a scope planned
// converged is never stale.
func TestScopeReview_OneStaleDiagnosticPerDifference(t *testing.T) {
	const a, b = "p/app/a", "p/app/b"
	reviewed := reviewScope(createOf(1, a), updateOf(2, b, "v1"))
	view := reviewedOf(reviewed, false)
	review := func(now ScopeOutcome, names, showNames bool) []string {
		return summaries(t, scopeReview{reviewed: reviewedOf(reviewed, names), salt: reviewSalt, namesShown: names, scope: now, showNames: showNames}.Review(now.Result))
	}
	nothing := " nothing was written"

	assert.Empty(t, scopeReview{reviewed: view, salt: reviewSalt, scope: reviewed}.Review(reviewed.Result), "the reviewed plan itself")

	t.Run("kinds", func(t *testing.T) {
		for _, c := range []struct {
			name string
			now  ScopeOutcome
			want []string
		}{
			{"AWS changed", reviewScope(createOf(1, a), updateOf(2, b, "v2")),
				[]string{"scope prod: AWS changed since review: the secret was written, deleted or re-tagged after the plan was made (resource-0002);" + nothing}},
			{"operation removed", reviewScope(createOf(1, a)),
				[]string{"scope prod: operation removed: an operation of the reviewed plan is no longer planned (resource-0002);" + nothing}},
			{"operation added", reviewScope(createOf(1, a), updateOf(2, b, "v1"), createOf(3, "p/app/c")),
				[]string{"scope prod: operation added: the plan now holds an operation the reviewed plan did not (resource-0003);" + nothing}},
			{"source", func() ScopeOutcome {
				s := reviewed
				s.SourceTree = "5b825dc642cb6eb9a060e54bf8d69288fbee4904"
				return s
			}(),
				[]string{"scope prod: source changed: the documents under the source root differ from the reviewed commit's;" + nothing}},
			{"settings", func() ScopeOutcome { s := reviewed; s.Settings = []byte(`{"prefix":"q"}`); return s }(),
				[]string{"scope prod: settings changed: a setting that shapes the plan, or the Region, differs from the reviewed plan's;" + nothing}},
		} {
			t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, review(c.now, false, false)) })
		}
	})

	t.Run("converged is never stale", func(t *testing.T) {
		now := reviewScope()
		now.Status = vocab.StatusConverged
		assert.Empty(t, scopeReview{reviewed: view, salt: reviewSalt, scope: now}.Review(now.Result))
	})

	t.Run("names", func(t *testing.T) {
		now := reviewScope(createOf(1, a), updateOf(2, b, "v2"))
		assert.Equal(t, []string{"scope prod: AWS changed since review: the secret was written, deleted or re-tagged after the plan was made (resource-0002);" + nothing},
			review(now, true, false), "the file shows names, the run does not: the run's ordinal, never the name")
		assert.Equal(t, []string{"scope prod: AWS changed since review: the secret was written, deleted or re-tagged after the plan was made (" + b + ");" + nothing},
			review(now, true, true), "both show names")
		removed := review(reviewScope(createOf(1, a)), true, false)
		assert.Equal(t, []string{"scope prod: operation removed: an operation of the reviewed plan is no longer planned;" + nothing}, removed,
			"a name only the file holds is not repeated")
	})

	t.Run("capped", func(t *testing.T) {
		var ops []planview.Operation
		for i := 1; i <= MaxStaleDiagnostics+7; i++ {
			ops = append(ops, createOf(i, "p/many/"+strconv.Itoa(i)))
		}
		got := review(reviewScope(append([]planview.Operation{createOf(1, a), updateOf(2, b, "v1")}, ops[2:]...)...), false, false)
		require.Len(t, got, MaxStaleDiagnostics+1)
		assert.Equal(t, "scope prod: 5 more differences from the reviewed plan; nothing was written", got[MaxStaleDiagnostics])
	})
}
