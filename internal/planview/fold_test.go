package planview

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestFolded: the fold rule (SPEC §17), one row per reason a scope keeps
// its section. Only a converged scope of a run of FoldMinScopes scopes or
// more, with nothing but unchanged secrets, is folded.
func TestFolded(t *testing.T) {
	unchanged := []Op{{Resource: "resource-0001", Action: vocab.ActionUnchanged}}
	quiet := ScopeView{Name: "quiet", Status: vocab.StatusConverged, Counts: vocab.Counts{Unchanged: 1}, Operations: unchanged}
	other := ScopeView{Name: "other", Status: vocab.StatusDrift}
	for _, c := range []struct {
		name string
		edit func(v *View, s *ScopeView)
		want bool
	}{
		{"converged with unchanged secrets only", func(*View, *ScopeView) {}, true},
		{"converged with no secret at all", func(_ *View, s *ScopeView) { s.Operations, s.Counts = nil, vocab.Counts{} }, true},
		{"a sync that changed nothing", func(v *View, _ *ScopeView) { v.Command = CommandSync }, true},
		{"the run's only scope", func(v *View, _ *ScopeView) { v.Scopes = v.Scopes[:1] }, false},
		{"a run of 9 scopes", func(v *View, _ *ScopeView) { v.Scopes = v.Scopes[:FoldMinScopes-1] }, false},
		{"validate's file: nothing read from AWS", func(v *View, _ *ScopeView) { v.Command = CommandValidate }, false},
		{"drift", func(_ *View, s *ScopeView) { s.Status = vocab.StatusDrift }, false},
		{"unreachable", func(_ *View, s *ScopeView) { s.Status = vocab.StatusUnreachable }, false},
		{"invalid", func(_ *View, s *ScopeView) { s.Status = vocab.StatusInvalid }, false},
		{"interrupted", func(_ *View, s *ScopeView) { s.Status = vocab.StatusInterrupted }, false},
		{"status not recorded (v1)", func(_ *View, s *ScopeView) { s.Status = "" }, false},
		{"an operation (a sync that applied it)", func(_ *View, s *ScopeView) {
			s.Operations = append(s.Operations, Op{Resource: "resource-0002", Action: vocab.ActionCreate})
			s.Counts.Create = 1
		}, false},
		{"a conflict", func(_ *View, s *ScopeView) { s.Counts.Conflicts = 1 }, false},
		{"a warning", func(_ *View, s *ScopeView) { s.Diagnostics = []diag.Record{{Class: "warning:orphans"}} }, false},
		{"an error", func(_ *View, s *ScopeView) { s.Diagnostics = []diag.Record{{Class: "observe:failed"}} }, false},
		{"a failure record", func(_ *View, s *ScopeView) { s.Failures = []FailureView{{Resource: "resource-0001"}} }, false},
		{"a key owned by AWS kept", func(_ *View, s *ScopeView) {
			s.Operations = []Op{{Resource: "resource-0001", Action: vocab.ActionUnchanged, AWSOwnedKept: 1}}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := quiet
			s.Operations = append([]Op(nil), quiet.Operations...)
			v := View{Command: CommandPlan, Scopes: []ScopeView{s}}
			for range FoldMinScopes - 1 {
				v.Scopes = append(v.Scopes, other)
			}
			c.edit(&v, &v.Scopes[0])
			assert.Equal(t, c.want, Folded(v, v.Scopes[0]))
		})
	}
}

// manyScopes is a plan of n scopes of secrets unchanged each, but for
// those of changed (by index) planning that many creates.
func manyScopes(t testing.TB, n, secrets int, changed map[int]int) View {
	t.Helper()
	in := Input{Command: CommandPlan, GitRevision: rev}
	for i := range n {
		s := ScopeInput{Name: fmt.Sprintf("acct-%03d-eu-west-1", i), Region: "eu-west-1", Status: vocab.StatusConverged, Verification: vocab.VerificationNotRun}
		for j := range secrets {
			s.Operations = append(s.Operations, Operation{Ordinal: j + 1, Name: "app/s" + itoa(j), Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual})
		}
		for j := range changed[i] {
			s.Status = vocab.StatusDrift
			s.Operations = append(s.Operations, Operation{Ordinal: secrets + j + 1, Name: "app/new" + itoa(j), Action: vocab.ActionCreate,
				Reason: vocab.ReasonAbsent, Keys: summary(t, `{"k":1}`, "")})
		}
		in.Scopes = append(in.Scopes, s)
	}
	v := Build(in, model.Redaction{})
	require.NoError(t, v.Validate())
	return v
}

// At 200 scopes with 3 changed, the text plan and the Markdown (the
// pull-request comment and the job summary) render the 3 scopes' sections
// and one line for the 197 others, with their count; the Markdown table
// has a row per changed scope, one for the folded ones and the sum.
func TestFold_200ScopesWith3ChangedShowThe3AndOneLine(t *testing.T) {
	changed := map[int]int{7: 1, 100: 2, 199: 1}
	v := manyScopes(t, 200, 5, changed)
	text, md := Text(v), Markdown(v)
	for i := range changed {
		name := fmt.Sprintf("acct-%03d-eu-west-1", i)
		assert.Equal(t, 1, strings.Count(text, "\nScope "+name+" · eu-west-1 · drift\n"), name)
		assert.Equal(t, 1, strings.Count(md, "\n#### Scope `"+name+"` · `eu-west-1` · drift\n"), name)
	}
	assert.Equal(t, 3, strings.Count(text, "\nScope "), "only the changed scopes have a section")
	assert.Equal(t, 3, strings.Count(md, "\n#### Scope "))
	fold := "No changes in 197 scopes (converged, folded; 985 unchanged): acct-000-eu-west-1, acct-001-eu-west-1,"
	assert.Equal(t, 1, strings.Count(text, "\n"+fold), "one folded line")
	assert.NotContains(t, text, "acct-007-eu-west-1, ", "a changed scope is not in the folded line")
	assert.Equal(t, 1, strings.Count(md, "\nNo changes in 197 scopes (converged, folded; 985 unchanged): `acct-000-eu-west-1`, `acct-001-eu-west-1`,"))
	assert.Contains(t, md, "| 197 scopes with no change |  | converged | 0 | 0 | 0 | 0 | 985 | 0 |\n")
	assert.Contains(t, md, "| all |  |  | 4 | 0 | 0 | 0 | 1000 | 0 |\n")
	assert.Equal(t, 3+2, strings.Count(md, "\n| `acct-")+strings.Count(md, "\n| 197 scopes")+strings.Count(md, "\n| all |"), "table: 3 changed, the folded row, the sum")
	assert.Contains(t, text, "\nAll scopes: Plan: 4 to create, 0 to update, 0 to restore, 0 to schedule for deletion, 1000 unchanged.\n")
	assert.Less(t, len(md), 16*1024, "200 scopes fit a comment many times over")
}

// The Markdown of any plan, cut for a pull-request comment, stays under
// GitHub's 65,536-character limit (SPEC §17), over scope counts (1 to
// 400), changed scopes and their sizes (0 to 60 operations, names up to
// 200 characters): under the limit in bytes (so in characters), every
// fence and <details> closed, and a plan whose Markdown does not fit says
// what was left out and where the whole plan is.
func TestMarkdownCapped_StaysUnderTheCommentLimit(t *testing.T) {
	keys := summary(t, `{"k":1,"j":2}`, `{"k":2}`)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 400).Draw(t, "scopes")
		long := rapid.IntRange(1, 200).Draw(t, "name length")
		in := Input{Command: CommandPlan, GitRevision: rev}
		for i := range n {
			s := ScopeInput{Name: fmt.Sprintf("s-%d", i), Region: "eu-west-1", Status: vocab.StatusConverged, Verification: vocab.VerificationNotRun}
			s.Operations = append(s.Operations, Operation{Ordinal: 1, Name: "app/kept", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual})
			if rapid.IntRange(0, 9).Draw(t, "changed") == 0 {
				s.Status = vocab.StatusDrift
				for j := range rapid.IntRange(0, 60).Draw(t, "ops") {
					s.Operations = append(s.Operations, Operation{Ordinal: j + 2, Name: "app/" + strings.Repeat("n", long) + itoa(j),
						Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers, Keys: keys})
				}
			}
			in.Scopes = append(in.Scopes, s)
		}
		v := Build(in, model.Redaction{ShowNames: rapid.Bool().Draw(t, "names")})
		require.NoError(t, v.Validate())
		full, got := Markdown(v), MarkdownCapped(v, GitHubCommentLimit)
		require.Less(t, len(got), GitHubCommentLimit)
		require.LessOrEqual(t, utf8.RuneCountInString(got), GitHubCommentLimit)
		require.Equal(t, 0, strings.Count(got, "```")%2, "every fence is closed")
		require.Equal(t, strings.Count(got, "<details>"), strings.Count(got, "</details>"))
		if len(full) >= GitHubCommentLimit {
			require.Contains(t, got, "_Truncated to stay under GitHub's size limit: ")
			require.Contains(t, got, "The plan file holds every operation; `sops-aws-sync show PLAN_FILE` renders it in full._")
		}
		if got != full {
			require.Contains(t, got, " not shown. ")
		}
	})
}
