package planview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func ptrsOf(ps []keydiff.Path) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Pointer)
	}
	return out
}

func TestBuildOrdersConflictsFirstThenPhasesThenUnchanged(t *testing.T) {
	v := Build(fixtures(t)["full"], model.Redaction{}).Scopes[0]
	var got []string
	for _, o := range v.Operations {
		got = append(got, o.Resource+" "+string(o.Action))
	}
	assert.Equal(t, []string{
		"resource-0002 restore", "resource-0001 create",
		"resource-0003 update", "resource-0005 update", "resource-0006 update", "resource-0007 update", "resource-0008 update", "resource-0012 update", "resource-0013 update", "resource-0014 update",
		"resource-0009 schedule-delete",
		"resource-0004 unchanged", "resource-0010 unchanged", "resource-0011 unchanged",
	}, got)
	assert.Equal(t, vocab.Counts{Create: 1, Update: 8, Restore: 1, ScheduleDelete: 1, Unchanged: 3}, v.Counts)

	c := Build(fixtures(t)["conflict"], model.Redaction{}).Scopes[0]
	assert.Equal(t, vocab.ActionConflict, c.Operations[0].Action)
	assert.Equal(t, vocab.Reason("ownership"), c.Operations[0].Reason, "a conflict's reason is its class")
}

func TestBuildRedactsKeysByDefault(t *testing.T) {
	in := single(rev, vocab.StatusDrift, []Operation{{Ordinal: 3, Name: "prod/app/db", Action: vocab.ActionUpdate,
		Reason: vocab.ReasonValueDiffers, Keys: summary(t, `{"a":1,"b":2,"c":3}`, `{"a":2,"oob":1}`)}}, nil)
	hidden := Build(in, model.Redaction{}).Scopes[0].Operations[0]
	assert.Equal(t, "resource-0003", hidden.Resource)
	assert.Equal(t, &KeyCounts{Added: 2, Removed: 1, Changed: 1}, hidden.Keys)
	assert.Nil(t, hidden.KeyPaths)
	assert.Equal(t, "  ~ resource-0003 update: ~1 +2 -1 (value differs)", opLines(hidden)[0], "the issue's line shape")

	shown := Build(in, model.Redaction{ShowNames: true}).Scopes[0].Operations[0]
	assert.Equal(t, "prod/app/db", shown.Resource)
	assert.Equal(t, &KeyPaths{Added: []string{"/b", "/c"}, Removed: []string{}, Changed: []string{"/a"}}, shown.KeyPaths)
	assert.Equal(t, 1, shown.Unnamed(), "the out-of-band key is counted, not named")
}

func TestBuildDropsARevisionThatIsNotACommit(t *testing.T) {
	v := Build(single("main`<b>", vocab.StatusConverged, nil, nil), model.Redaction{})
	assert.Equal(t, "", v.GitRevision)
	assert.NotContains(t, Markdown(v), "<b>")
}

// TestRenderingQuotesCraftedKeyNames: a desired key name holding a
// newline, a terminal escape or a Markdown fence cannot forge a line, an
// escape sequence or close the code block.
func TestRenderingQuotesCraftedKeyNames(t *testing.T) {
	in := single(rev, vocab.StatusDrift, []Operation{{Ordinal: 1, Name: "prod/app/x", Action: vocab.ActionCreate,
		Reason: vocab.ReasonAbsent, Keys: summary(t, "{\"a\\n  + /forged\":1,\"\\u001b[31mred\":2,\"````\\n</details>@org/team\":3}", "")}}, nil)
	v := Build(in, model.Redaction{ShowNames: true})
	text := Text(v)
	assert.NotContains(t, text, "\n  + /forged", "a newline in a key cannot start a line")
	assert.NotContains(t, text, "\x1b", "no terminal escape reaches the output")
	md := Markdown(v)
	assert.Contains(t, md, "`````diff\n", "the fence is longer than any backtick run in the lines")
	assert.Equal(t, 1, strings.Count(md, "</details>"), "only the renderer's own closing tag is outside a code block")
	fmt := strings.Count(md, "`````\n")
	assert.Equal(t, 1, fmt, "one closing fence")
}

func TestMarkdownCappedStaysUnderGitHubsLimit(t *testing.T) {
	in := single("", vocab.StatusDrift, nil, nil)
	in.GitRevision = rev
	doc := `{`
	for i := range 40 {
		if i > 0 {
			doc += ","
		}
		doc += `"dk_key_with_a_long_descriptive_name_` + itoa(i) + `":1`
	}
	doc += `}`
	for i := range 2000 {
		in.Scopes[0].Operations = append(in.Scopes[0].Operations, Operation{Ordinal: i + 1, Name: "prod/app/s" + itoa(i), Action: vocab.ActionCreate,
			Reason: vocab.ReasonAbsent, Keys: summary(t, doc, "")})
	}
	v := Build(in, model.Redaction{ShowNames: true})
	full := Markdown(v)
	require.Greater(t, len(full), GitHubCommentLimit, "the fixture must need a cut")
	limit := GitHubCommentLimit - 100 // the caller's marker
	got := MarkdownCapped(v, limit)
	assert.Less(t, len(got), limit)
	assert.Less(t, len([]rune(got)), limit)
	assert.Contains(t, got, "_Truncated to stay under GitHub's size limit: ")
	assert.Contains(t, got, "lines are not shown")
	assert.Contains(t, got, "</details>", "the collapsed block is closed")
	assert.Equal(t, 0, strings.Count(got, "```")%2, "every fence is closed")
	assert.True(t, strings.HasPrefix(got, full[:strings.Index(full, "<details>")]), "header, table and closing line are kept whole")

	small := Build(fixtures(t)["full"], model.Redaction{ShowNames: true})
	assert.Equal(t, Markdown(small), MarkdownCapped(small, GitHubCommentLimit), "a plan that fits is not cut")
}

// TestRegression_TruncationNoteAfterABlankLine: the note of a cut follows
// a blank line after </details>. CommonMark ends an HTML block only at a
// blank line, so without one GitHub showed the note as raw text inside the
// HTML block.
func TestRegression_TruncationNoteAfterABlankLine(t *testing.T) {
	in := single("", vocab.StatusDrift, nil, nil)
	for i := range 300 {
		in.Scopes[0].Operations = append(in.Scopes[0].Operations, Operation{Ordinal: i + 1, Name: "s" + itoa(i), Action: vocab.ActionRestore,
			Reason: vocab.ReasonScheduledForDeletion})
	}
	got := MarkdownCapped(Build(in, model.Redaction{}), 4096)
	require.Contains(t, got, "_Truncated to stay under")
	assert.Contains(t, got, "</details>\n\n_Truncated")
}

func TestMarkdownCappedCutsInsideTheConflictBlock(t *testing.T) {
	in := single("", vocab.StatusDrift, nil, nil)
	for i := range 300 {
		in.Scopes[0].Operations = append(in.Scopes[0].Operations, Operation{Ordinal: i + 1, Action: vocab.ActionConflict, Conflict: vocab.ConflictOwnership})
	}
	got := MarkdownCapped(Build(in, model.Redaction{}), 4096)
	assert.Less(t, len(got), 4096)
	assert.Contains(t, got, "_Truncated to stay under")
	assert.NotContains(t, got, "<details>", "nothing after a cut")
	assert.Equal(t, 0, strings.Count(got, "```")%2)
}

func TestRenderKnowsTheShowFormats(t *testing.T) {
	v := Build(fixtures(t)["full"], model.Redaction{})
	for _, f := range Formats {
		out, ok := Render(v, f)
		assert.True(t, ok, f)
		assert.NotEmpty(t, out)
	}
	txt, _ := Render(v, "text")
	assert.Equal(t, Text(v), txt)
	md, _ := Render(v, "markdown")
	assert.Equal(t, Markdown(v), md)
	_, ok := Render(v, "html")
	assert.False(t, ok)
}

// TestMarkdownCappedHoldsWithAHugeFence: a desired key made of backticks
// makes the fence long; the cap still holds and every fence is closed.
func TestMarkdownCappedHoldsWithAHugeFence(t *testing.T) {
	v := hugeFencePlan(t, 200)
	for _, limit := range []int{2048, 8000, GitHubCommentLimit} {
		got := MarkdownCapped(v, limit)
		assert.Less(t, len(got), limit)
		assert.Contains(t, got, "_Truncated to stay under")
		fence := strings.Repeat("`", 3001)
		assert.Equal(t, strings.Count(got, fence+"text\n")+strings.Count(got, fence+"diff\n"), strings.Count(got, fence+"\n\n"), "limit %d: every fence opened is closed", limit)
	}
}

// TestMarkdownCappedHoldsWithManyScopes: with more scopes than fit, the
// cap still holds (table rows and scope sections are cut like operation
// lines), every fence and <details> opened is closed, and the note says
// what is missing.
func TestMarkdownCappedHoldsWithManyScopes(t *testing.T) {
	var in Input
	for i := range 80 {
		s := ScopeInput{Name: "scope-" + itoa(i), Region: "eu-west-1", Status: vocab.StatusDrift, Verification: vocab.VerificationNotRun}
		for j := range 20 {
			s.Operations = append(s.Operations, Operation{Ordinal: j + 1, Name: "prod/app/s" + itoa(j), Action: vocab.ActionCreate,
				Reason: vocab.ReasonAbsent, Keys: summary(t, `{"dk_a":1}`, "")})
		}
		in.Scopes = append(in.Scopes, s)
	}
	v := Build(in, model.Redaction{ShowNames: true})
	require.NoError(t, v.Validate())
	full := Markdown(v)
	for _, limit := range []int{2048, 16384, GitHubCommentLimit - 100} {
		got := MarkdownCapped(v, limit)
		require.Less(t, len(full), 10*GitHubCommentLimit)
		assert.Less(t, len(got), limit, "limit %d", limit)
		assert.Contains(t, got, "_Truncated to stay under", "limit %d", limit)
		assert.Equal(t, 0, strings.Count(got, "```")%2, "limit %d: every fence is closed", limit)
		assert.Equal(t, strings.Count(got, "<details>"), strings.Count(got, "</details>"), "limit %d", limit)
		assert.True(t, strings.HasPrefix(full, got[:strings.Index(got, "| scope |")]), "the header is kept whole")
	}
	assert.Contains(t, MarkdownCapped(v, GitHubCommentLimit-100), "#### Scope `scope-1` ·", "scope sections follow the table while they fit")
}

// TestMarkdownCappedNoteCountsTheLinesNotShown: the note of a cut says
// exactly how many lines of the plan's blocks are missing: the lines of
// the fenced blocks of the whole comment less those of the cut one, at
// three limits that each cut inside the operations block (some of its
// lines written).
func TestMarkdownCappedNoteCountsTheLinesNotShown(t *testing.T) {
	in := single("", vocab.StatusDrift, nil, nil)
	for i := range 300 {
		in.Scopes[0].Operations = append(in.Scopes[0].Operations, Operation{Ordinal: i + 1, Name: "s" + itoa(i), Action: vocab.ActionRestore,
			Reason: vocab.ReasonScheduledForDeletion})
	}
	v := Build(in, model.Redaction{})
	blockLines := func(md string) int {
		n, in := 0, false
		for _, l := range strings.Split(md, "\n") {
			switch {
			case strings.HasPrefix(l, "```"):
				in = !in
			case in && l != "":
				n++
			}
		}
		return n
	}
	all := blockLines(Markdown(v))
	require.Greater(t, all, 300)
	for _, limit := range []int{2048, 4096, 8000} {
		got := MarkdownCapped(v, limit)
		shown := blockLines(got)
		require.Less(t, shown, all, "limit %d must cut", limit)
		assert.Contains(t, got, fmt.Sprintf("_Truncated to stay under GitHub's size limit: %d lines are not shown.", all-shown), "limit %d", limit)
	}
}

// TestMarkdownCappedHoldsAtEveryLimitWithAHugeFence: with a fence of 3,001
// backticks, longer than the 400 bytes kept for the note, the cap holds at
// limits every 97 bytes from 2,048 to 20,000: a cut that falls on a block's
// opening line must count both of its fences.
func TestMarkdownCappedHoldsAtEveryLimitWithAHugeFence(t *testing.T) {
	v := hugeFencePlan(t, 40)
	for limit := 2048; limit <= 20000; limit += 97 {
		require.Less(t, len(MarkdownCapped(v, limit)), limit, "limit %d", limit)
	}
}

// hugeFencePlan is a plan of n creates whose documents each have a key of
// 3,000 backticks, so its Markdown fences are 3,001 backticks long; names
// shown.
func hugeFencePlan(t *testing.T, n int) View {
	key := strings.Repeat("`", 3000)
	in := single("", vocab.StatusDrift, nil, nil)
	for i := range n {
		in.Scopes[0].Operations = append(in.Scopes[0].Operations, Operation{Ordinal: i + 1, Name: "prod/app/s" + itoa(i), Action: vocab.ActionCreate,
			Reason: vocab.ReasonAbsent, Keys: summary(t, `{"`+key+`":1,"b":2}`, "")})
	}
	return Build(in, model.Redaction{ShowNames: true})
}
