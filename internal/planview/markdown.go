package planview

import (
	"fmt"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
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
// heading, a table of counts and the closing line, then the errors,
// conflicts and warnings in an open block, then the operations, grouped by apply phase,
// in a collapsed <details> block. Every data string is inside a fenced code
// block (longer than any backtick run in it), so key names cannot inject
// markup, links or mentions. It has the same lines as Text.
func Markdown(v View) string { return render(v, 0) }

// MarkdownCapped is Markdown cut to fewer than limit bytes (so fewer than
// limit characters; limits below 2,048 are raised to it): operation lines
// that do not fit are dropped from the end, the open blocks are closed and
// a note says how many lines are missing and that the plan file holds them
// all. Pass GitHubCommentLimit minus what the caller adds (a hidden
// marker) for a comment, GitHubStepSummaryLimit for a job summary.
func MarkdownCapped(v View, limit int) string {
	return render(v, max(limit, minMarkdownLimit))
}

// truncationNoteMax bounds the note and the closing tag written after a
// cut (the closing fence is counted apart: its length depends on the lines).
const truncationNoteMax = 400

func render(v View, limit int) string {
	block := blocking(v)
	ops := phases(v)
	var all []string
	for _, s := range append(append([]section{}, block...), ops...) {
		all = append(all, s.all()...)
	}
	fence := fenceFor(all)

	var b strings.Builder
	b.WriteString("### sops-aws-sync plan\n\n")
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
	c := v.Summary
	b.WriteString("| create | update | restore | schedule deletion | unchanged | conflicts |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d |\n\n", c.Create, c.Update, c.Restore, c.ScheduleDelete, c.Unchanged, c.Conflicts)
	b.WriteString("**" + closing(c) + "**\n\n")
	if l := verdict(v); l != "" {
		b.WriteString("**" + l + "**\n\n")
	}

	w := &cappedWriter{b: &b, limit: limit, fence: fence, remaining: len(all)}
	if len(block) > 0 {
		w.block(block, "", "")
	}
	if len(ops) > 0 {
		w.block(ops, fmt.Sprintf("<details><summary>Operations (%d)</summary>\n\n", c.Operations()), "</details>\n")
	}
	if w.cut {
		if !strings.HasSuffix(b.String(), "\n\n") {
			// CommonMark ends an HTML block (</details>) only at a blank
			// line: without one, GitHub shows the note as raw text.
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "_Truncated to stay under GitHub's size limit: %s not shown. "+
			"The plan file holds every operation; `sops-aws-sync show PLAN_FILE` renders it in full._\n",
			plural(w.remaining, "line is", "lines are"))
	}
	return b.String()
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

func (w *cappedWriter) block(sections []section, open, closeTag string) {
	if w.cut || !w.fits(len(open)+len(w.fence)+len("text\n")) {
		w.cut = true
		return
	}
	w.b.WriteString(open + w.fence + "text\n")
	for i, s := range sections {
		if i > 0 && !w.line("") {
			break
		}
		for _, l := range s.all() {
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
