package planview

import (
	"fmt"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// GitHub's size limits for the two places the Markdown goes.
const (
	// GitHubCommentLimit is the largest body GitHub accepts for an issue or
	// pull-request comment: 65,536 characters.
	GitHubCommentLimit = 65536
	// GitHubStepSummaryLimit is the largest job summary one step may
	// write: 1 MiB.
	GitHubStepSummaryLimit = 1 << 20
)

// minMarkdownLimit is the smallest limit MarkdownCapped honours: the
// header, the table and the truncation note always fit.
const minMarkdownLimit = 2048

// Markdown renders v for a job summary or a pull-request comment: a
// heading, the run's verdict, a table of counts with one row per scope,
// the run's own errors and warnings, then one section per scope headed by
// its name, Region and status: its closing line, its errors, conflicts
// and warnings in an open block, then its operations, grouped by apply
// phase, in a collapsed <details> block. The operations are a ```diff
// block whose lines begin with the operation's symbol, so GitHub colours
// creates and added keys (+) and deletions and removed keys (-); the text
// after the symbol is Text's line. Every data string is inside a fenced
// code block (longer than any backtick run in it), so key names cannot
// inject markup, links or mentions; scope names, Regions and statuses are
// checked words (Validate). It has the same lines as Text. The scopes
// Text folds (Folded) are one row of the table and one line before the
// sections, as in Text.
func Markdown(v View) string { return render(v, 0) }

// MarkdownCapped is Markdown cut to fewer than limit bytes (so fewer than
// limit characters; limits below 2,048 are raised to it): table rows,
// scope sections and operation lines that do not fit are dropped from the
// end, the open blocks are closed and a note says how many lines are
// missing and that the plan file holds them all. Pass GitHubCommentLimit
// minus what the caller adds (a hidden marker) for a comment,
// GitHubStepSummaryLimit for a job summary.
func MarkdownCapped(v View, limit int) string {
	return render(v, max(limit, minMarkdownLimit))
}

// truncationNoteMax bounds the note and the closing tag written after a
// cut (the closing fence is counted apart: its length depends on the lines).
const truncationNoteMax = 400

func render(v View, limit int) string {
	runBlock := blocking(part{diags: v.Diagnostics})
	var all []string
	for _, s := range runBlock {
		all = append(all, s.all()...)
	}
	type scopeSections struct{ block, ops []section }
	f := foldScopes(v)
	scopes := make([]scopeSections, len(f.shown))
	for i, s := range f.shown {
		p := scopePart(v, s)
		scopes[i] = scopeSections{blocking(p), phases(p.ops, p.words)}
		for _, sec := range append(append([]section{}, scopes[i].block...), scopes[i].ops...) {
			all = append(all, sec.all()...)
		}
	}
	fence := fenceFor(all)

	var b strings.Builder
	b.WriteString("### " + title(v) + "\n\n")
	if model.IsRevision(v.GitRevision) {
		b.WriteString("Commit `" + v.GitRevision + "`")
	} else {
		b.WriteString("Commit not resolved")
	}
	if v.NamesShown {
		b.WriteString(" · resource names shown; keys that exist only in AWS are counted, never named\n\n")
	} else {
		b.WriteString(" · resource names hidden (ordinals and key counts only)\n\n")
	}
	b.WriteString("**" + runLine(v) + "**\n\n")
	if l := reviewedLine(v); l != "" {
		b.WriteString(l + "\n\n")
	}

	w := &cappedWriter{b: &b, limit: limit, fence: fence, remaining: len(all)}
	if len(v.Scopes) > 0 {
		// The adopt column only when the run adopts (SPEC §11), so every
		// other plan renders as before.
		adopt := v.Counts().Adopt > 0
		deletion := runWords(v).DeleteColumn
		if adopt {
			b.WriteString("| scope | Region | status | create | adopt | update | restore | " + deletion + " | unchanged | conflicts |\n")
			b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
		} else {
			b.WriteString("| scope | Region | status | create | update | restore | " + deletion + " | unchanged | conflicts |\n")
			b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|\n")
		}
		rows := make([]string, 0, len(f.shown)+2)
		for _, s := range f.shown {
			rows = append(rows, countsRow("`"+s.Name+"`", code(s.Region), string(s.Status), s.Counts, adopt))
		}
		if len(f.folded) > 0 {
			rows = append(rows, countsRow(plural(len(f.folded), "scope", "scopes")+" with no change", "", string(vocab.StatusConverged),
				vocab.Counts{Unchanged: f.unchanged}, adopt))
		}
		if len(v.Scopes) > 1 {
			rows = append(rows, countsRow("all", "", "", v.Counts(), adopt))
		}
		for _, r := range rows {
			if !w.raw(r) {
				break
			}
		}
		b.WriteString("\n")
	}
	if len(runBlock) > 0 {
		w.block(runBlock, "", "", "text", false)
	}
	if l := f.line(func(n string) string { return "`" + n + "`" }); l != "" {
		w.raw(l + "\n\n")
	}
	for i, s := range f.shown {
		p := scopePart(v, s)
		head := "#### " + markdownScopeTitle(s) + "\n\n**" + closing(p.counts, p.words) + "**\n\n"
		if l := verdict(p); l != "" {
			head += "**" + l + "**\n\n"
		}
		if l := immediateLine(p); l != "" {
			head += "**" + l + "**\n\n"
		}
		if l := keptLine(p.ops); l != "" {
			head += l + "\n\n"
		}
		if !w.raw(head) {
			break
		}
		if len(scopes[i].block) > 0 {
			w.block(scopes[i].block, "", "", "text", false)
		}
		if len(scopes[i].ops) > 0 {
			w.block(scopes[i].ops, fmt.Sprintf("<details><summary>Operations (%d)</summary>\n\n", p.counts.Operations()), "</details>\n\n", "diff", true)
		}
	}
	if w.cut {
		if !strings.HasSuffix(b.String(), "\n\n") {
			// CommonMark ends an HTML block (</details>) and a table only
			// at a blank line: without one, GitHub shows the note as raw
			// text.
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "_Truncated to stay under GitHub's size limit: %s not shown. "+
			"The plan file holds every operation; `sops-aws-sync show PLAN_FILE` renders it in full._\n",
			plural(w.remaining, "line is", "lines are"))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// countsRow is one row of the counts table.
func countsRow(name, region, status string, c vocab.Counts, adopt bool) string {
	if adopt {
		return fmt.Sprintf("| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", name, region, status,
			c.Create, c.Adopt, c.Update, c.Restore, c.ScheduleDelete, c.Unchanged, c.Conflicts)
	}
	return fmt.Sprintf("| %s | %s | %s | %d | %d | %d | %d | %d | %d |\n", name, region, status,
		c.Create, c.Update, c.Restore, c.ScheduleDelete, c.Unchanged, c.Conflicts)
}

// code is s as a code span, or "" for "" (a Region not resolved).
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + s + "`"
}

// markdownScopeTitle is scopeTitle with the name and Region as code spans
// (both are checked words without backticks: Validate).
func markdownScopeTitle(s ScopeView) string {
	region := code(s.Region)
	if region == "" {
		region = "Region not resolved"
	}
	if s.Status == "" {
		return "Scope `" + s.Name + "`"
	}
	return "Scope `" + s.Name + "` · " + region + " · " + string(s.Status)
}

// cappedWriter writes fenced blocks of lines until the next line would
// leave no room for the closing fence, the closing tag and the truncation
// note under limit (limit 0: no cap). After a cut nothing more is written
// but the closers of the open block.
type cappedWriter struct {
	b         *strings.Builder
	limit     int
	fence     string
	remaining int // lines not yet written
	cut       bool
}

// fits reports whether n more bytes leave room for the closers and the note.
func (w *cappedWriter) fits(n int) bool {
	return w.limit <= 0 || w.b.Len()+n+len(w.fence)+2+truncationNoteMax < w.limit
}

// block writes sections as one fenced block of language lang (a blank line
// between sections), opened by open and closed by closeTag; with diff,
// each line goes through diffLine.
func (w *cappedWriter) block(sections []section, open, closeTag, lang string, diff bool) {
	if w.cut || !w.fits(len(open)+len(w.fence)+len(lang)+1) {
		w.cut = true
		return
	}
	w.b.WriteString(open + w.fence + lang + "\n")
	for i, s := range sections {
		if i > 0 && !w.line("") {
			break
		}
		for _, l := range s.all() {
			if diff {
				l = diffLine(l)
			}
			if !w.line(l) {
				break
			}
			w.remaining--
		}
		if w.cut {
			break
		}
	}
	w.b.WriteString(w.fence + "\n\n" + closeTag)
}

// raw writes s (Markdown outside any block) unless it does not fit, which
// starts the cut.
func (w *cappedWriter) raw(s string) bool {
	if w.cut || !w.fits(len(s)) {
		w.cut = true
		return false
	}
	w.b.WriteString(s)
	return true
}

// diffLine moves the symbol of an operation or key-path line ("  + x",
// "      - /k") to the first column ("+   x", "-       /k"), where
// GitHub's diff highlighting looks for it; the line keeps its length and
// its text. Other lines (section titles) are returned as they are.
func diffLine(l string) string {
	rest := strings.TrimLeft(l, " ")
	n := len(l) - len(rest)
	if n == 0 || len(rest) < 2 || rest[1] != ' ' || !strings.ContainsRune("+-~^!", rune(rest[0])) {
		return l
	}
	return rest[:1] + strings.Repeat(" ", n) + rest[1:]
}

// line writes l unless it does not fit, which starts the cut.
func (w *cappedWriter) line(l string) bool {
	if w.cut || !w.fits(len(l)+1) {
		w.cut = true
		return false
	}
	w.b.WriteString(l + "\n")
	return true
}

// fenceFor returns a backtick fence longer than any backtick run in lines
// (CommonMark: a fence closes only on at least as many backticks).
func fenceFor(lines []string) string {
	longest := 0
	for _, l := range lines {
		run := 0
		for i := 0; i < len(l); i++ {
			if l[i] == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Formats are the renderings Render knows (show --format).
var Formats = []string{"text", "markdown"}

// Render renders v in format ("text" or "markdown"); ok is false for
// another format.
func Render(v View, format string) (out string, ok bool) {
	switch format {
	case "text":
		return Text(v), true
	case "markdown":
		return Markdown(v), true
	}
	return "", false
}
