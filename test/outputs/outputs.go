// Package outputs is the outputs × results table's judge: given what one
// run wrote (the report, the plan file, show's text and Markdown of it,
// the changes file, the GitLab note's body) and what the run must have
// ended as, it checks that each output was written, is valid against its
// own check (report.Parse, planview.Parse, changes.Parse: the readers
// every consumer uses) and against its published JSON Schema (schemas:
// the one its schema_version names, what a CI tool or policy reads it
// by; a product target's outputs only: the schemas publish the product's
// targets, not a test-only one), and says the right thing: the status, the
// verification, the counts, the class token of what stopped the run, in
// its target's words and forms (model.Target's row: its service, its
// resources, its deletion, its ARNs, its IAM actions) and never in
// another target's.
//
// Two drivers use it: test/e2e's table (the built binary against the
// emulator, for every target the product has) and internal/cli/command's
// (the outputs written in-process, for a test-only target too). The job
// summary is the Action's rendering (action/src/main.ts): its table is
// action/test/unit/summary.test.ts; what the binary gives it (the report
// and show's Markdown) is judged here.
package outputs

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/schemas"
)

// Want is what one cell of the table must say: the run's command, target
// and ending.
type Want struct {
	Target       model.Target
	Command      string // "plan" or "sync"
	Status       vocab.Status
	Verification vocab.Verification
	// Counts are the report's counts (nil: not checked).
	Counts *vocab.Counts
	// Class is the class token the plan file records for what stopped the
	// run (a failure record's, a scope's or the run's diagnostic), and
	// every rendering names; "" for none.
	Class string
	// Conflict is the conflict class the plan holds; "" for none.
	Conflict vocab.ConflictClass
	// Says are more lines every rendering holds (the cell's own).
	Says []string
}

// Got is what one run wrote.
type Got struct {
	Report, Plan []byte
	// Changes is sync's changes file (nil for plan, which has none).
	Changes []byte
	// Text and Markdown are show's renderings of Plan.
	Text, Markdown string
	// Note is the GitLab note's Markdown (the body after its marker); ""
	// when the cell posts none (a sync).
	Note string
}

// Check judges got against want: each output is there, valid, and says
// want in want.Target's words.
func Check(t *testing.T, want Want, got Got) {
	t.Helper()
	rep, err := report.Parse(got.Report)
	require.NoError(t, err, "the report is not valid:\n%s", got.Report)
	published := slices.Contains([]model.Target{model.TargetSecretsManager, model.TargetParameterStore}, want.Target)
	if published {
		assert.NoError(t, schemas.Validate(got.Report), "the report against its schema")
	}
	assert.Equal(t, want.Status, rep.Status, "report status")
	assert.Equal(t, want.Verification, rep.Verification, "report verification")
	if want.Counts != nil {
		assert.Equal(t, *want.Counts, rep.Counts, "report counts")
	}
	require.Len(t, rep.Scopes, 1, "the report's scopes")
	assert.Equal(t, want.Status, rep.Scopes[0].Status, "the report's scope status")

	v, err := planview.Parse(got.Plan)
	require.NoError(t, err, "the plan file is not valid:\n%s", got.Plan)
	if published {
		assert.NoError(t, schemas.Validate(got.Plan), "the plan file against its schema")
	}
	checkPlan(t, want, v)
	checkChanges(t, want, got.Changes, published)

	views := map[string]string{"show (text)": got.Text, "Markdown": got.Markdown}
	if got.Note != "" {
		views["GitLab note"] = got.Note
	}
	for where, text := range views {
		require.NotEmpty(t, text, where)
		Rendered(t, want, where, text)
	}
}

// checkPlan: the plan file's command, its one scope's target, status and
// verification, the class and conflict, and the IAM actions of each
// failure record in the target's prefix.
func checkPlan(t *testing.T, want Want, v planview.View) {
	t.Helper()
	assert.Equal(t, want.Command, v.Command, "the plan file's command")
	require.Len(t, v.Scopes, 1, "the plan file's scopes")
	s := v.Scopes[0]
	assert.Equal(t, want.Target, s.Target.Resolved(), "the plan file's target")
	assert.Equal(t, want.Status, s.Status, "the plan file's scope status")
	assert.Equal(t, want.Verification, s.Verification, "the plan file's scope verification")
	if want.Class != "" {
		assert.Contains(t, ClassesOf(v), want.Class, "the plan file records the class")
	}
	var conflicts []vocab.ConflictClass
	for _, op := range s.Operations {
		if op.Action == vocab.ActionConflict {
			conflicts = append(conflicts, vocab.ConflictClass(op.Reason))
		}
	}
	if want.Conflict != "" {
		assert.Contains(t, conflicts, want.Conflict, "the plan file's conflicts")
	} else {
		assert.Empty(t, conflicts, "the plan file's conflicts")
	}
	for _, f := range s.Failures {
		for _, a := range f.IAMActions {
			assert.True(t, want.Target.ValidIAMAction(a), "failure %s names IAM action %s, not one of %s's", f.Class, a, want.Target)
		}
	}
}

// ClassesOf lists every class token v records: the failure records', the
// scopes' and the run's diagnostics'.
func ClassesOf(v planview.View) []string {
	var out []string
	for _, d := range v.Diagnostics {
		out = append(out, d.Class)
	}
	for _, s := range v.Scopes {
		for _, f := range s.Failures {
			out = append(out, f.Class)
		}
		for _, d := range s.Diagnostics {
			out = append(out, d.Class)
		}
	}
	return out
}

// checkChanges: sync writes a valid changes file of the run's status whose
// every ARN is one of the target's form; plan writes none.
func checkChanges(t *testing.T, want Want, raw []byte, published bool) {
	t.Helper()
	if want.Command != "sync" {
		assert.Nil(t, raw, "a plan writes no changes file")
		return
	}
	require.NotNil(t, raw, "sync wrote no changes file")
	c, err := changes.Parse(raw)
	require.NoError(t, err, "the changes file is not valid:\n%s", raw)
	if published {
		assert.NoError(t, schemas.Validate(raw), "the changes file against its schema")
	}
	assert.Equal(t, want.Status, c.Status, "the changes file's status")
	require.Len(t, c.Scopes, 1, "the changes file's scopes")
	assert.Equal(t, want.Status, c.Scopes[0].Status, "the changes file's scope status")
	assert.Equal(t, want.Status == vocab.StatusConverged, c.Scopes[0].StateDigest != "", "a state digest exactly beside a converged scope")
	for _, ch := range c.Changes {
		assert.True(t, want.Target.ValidARN(ch.ARN, ch.Name), "change %s: %s is not an ARN of %s", ch.Action, ch.ARN, want.Target)
	}
	if want.Counts != nil {
		assert.Len(t, c.Changes, want.Counts.Operations(), "one change per operation that took effect")
	}
}

// Rendered judges one rendering of the plan file (show's text or
// Markdown, the GitLab note): its title is the command's, it says the
// run's status and verification, the class and conflict and the cell's
// own lines, the closing line counts deletions in the target's words, and
// no word or form of another target appears.
func Rendered(t *testing.T, want Want, where, text string) {
	t.Helper()
	assert.Contains(t, text, "sops-aws-sync "+want.Command, "%s: the title", where)
	if where == "show (text)" {
		assert.Contains(t, text, "Run: "+string(want.Status)+", verification "+string(want.Verification), "%s: the run's line", where)
	} else {
		assert.Contains(t, text, string(want.Status), "%s: the status", where)
	}
	if want.Class != "" {
		assert.Contains(t, text, want.Class, "%s: the class", where)
	}
	if want.Conflict != "" {
		assert.Contains(t, text, "conflict: "+string(want.Conflict), "%s: the conflict", where)
	}
	for _, s := range want.Says {
		assert.Contains(t, text, s, "%s", where)
	}
	w := want.Target.Words()
	if where == "show (text)" {
		assert.Regexp(t, `Plan: \d+ to create, \d+ to update, \d+ to restore, \d+ `+regexp.QuoteMeta(w.DeletePlanned)+`, \d+ unchanged\.`, text, "%s: the closing line in %s's words", where, want.Target)
	}
	InWords(t, want.Target, where, text)
	if !want.Target.DeletionUndoable() {
		assert.NotRegexp(t, `(?i)schedul`, text, "%s: a %s deletion is immediate, never scheduled", where, want.Target)
	}
}

// InWords fails when text speaks of another target: its service's name,
// its resource as a word, its deletion's section title and closing
// words, or its IAM actions' prefix, wherever they are not also
// target's own.
func InWords(t *testing.T, target model.Target, where, text string) {
	t.Helper()
	own := target.Words()
	for _, other := range model.Targets {
		if other == target.Resolved() {
			continue
		}
		ow := other.Words()
		if !strings.Contains(own.Service, ow.Service) {
			assert.NotContains(t, text, ow.Service, "%s of a %s scope names %s", where, target, other)
		}
		prose := strings.NewReplacer(sharedPhrases...).Replace(text)
		for _, word := range []string{ow.Resource, ow.Resources} {
			if word != own.Resource && word != own.Resources {
				assert.NotRegexp(t, wordRE(word), prose, "%s of a %s scope says %q", where, target, word)
			}
		}
		if ow.DeletePlanned != own.DeletePlanned {
			assert.NotContains(t, text, "0 "+ow.DeletePlanned+",", "%s of a %s scope counts deletions as %s's", where, target, other)
		}
		if ow.DeleteTitle != own.DeleteTitle {
			assert.NotRegexp(t, `(?m)^(\s*|#+ |<summary>|\*\*)`+regexp.QuoteMeta(ow.DeleteTitle)+` \(\d+\)`, text, "%s of a %s scope titles deletions as %s's", where, target, other)
		}
		if other.Service() != target.Service() {
			assert.NotRegexp(t, `(^|[^A-Za-z0-9_-])`+regexp.QuoteMeta(other.Service())+`:[A-Z]`, text, "%s of a %s scope names an IAM action of %s", where, target, other)
		}
	}
}

// sharedPhrases are phrases every target's views may hold that contain
// another target's word with another meaning (old, new pairs for
// strings.NewReplacer): a PGP secret key.
var sharedPhrases = []string{"secret key", "PGP key"}

// wordRE matches word as a word of prose, either case at its start: not
// inside a longer word, a setting's name (--secret-prefix) or an API name.
func wordRE(word string) *regexp.Regexp {
	first := word[:1]
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-])[` + strings.ToUpper(first) + first + `]` + regexp.QuoteMeta(word[1:]) + `($|[^A-Za-z0-9_-])`)
}
