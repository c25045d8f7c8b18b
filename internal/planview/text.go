package planview

import "strings"

// Text renders v for a terminal, in the spirit of Terraform's plan: a
// header with the run's verdict (status, verification, scopes), the run's
// own errors and warnings, then one section per scope headed by its name,
// Region and status: its errors, conflicts and warnings first (class and
// what to do), then one line per operation grouped by apply phase
// (restore, create, update, schedule-delete; unchanged secrets are only
// counted), then its closing "Plan: …" line; with several scopes a last
// line sums them. The scopes with nothing to show but unchanged secrets
// (Folded) have no section: one line before the sections counts and
// names them. Every line ends in "\n".
func Text(v View) string {
	var b strings.Builder
	b.WriteString(title(v) + " " + commitLine(v) + "\n")
	b.WriteString(namesLine(v) + "\n")
	b.WriteString(runLine(v) + "\n")
	if l := reviewedLine(v); l != "" {
		b.WriteString(l + "\n")
	}
	writeSections(&b, blocking(part{diags: v.Diagnostics}))
	f := foldScopes(v)
	if l := f.line(q); l != "" {
		b.WriteString("\n" + l + "\n")
	}
	for _, s := range f.shown {
		p := scopePart(v, s)
		b.WriteString("\n" + scopeTitle(s) + "\n")
		writeSections(&b, append(blocking(p), phases(p.ops, p.words)...))
		b.WriteString("\n")
		if l := verdict(p); l != "" {
			b.WriteString(l + "\n")
		}
		b.WriteString(closing(p.counts, p.words) + "\n")
		if l := immediateLine(p); l != "" {
			b.WriteString(l + "\n")
		}
		if l := keptLine(p.ops); l != "" {
			b.WriteString(l + "\n")
		}
	}
	if len(v.Scopes) > 1 {
		b.WriteString("\nAll scopes: " + closing(v.Counts(), runWords(v)) + "\n")
	}
	return b.String()
}

func writeSections(b *strings.Builder, ss []section) {
	for _, s := range ss {
		b.WriteString("\n")
		for _, l := range s.all() {
			b.WriteString(l + "\n")
		}
	}
}
