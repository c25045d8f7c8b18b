package planview

import "strings"

// Text renders v for a terminal, in the spirit of Terraform's plan: a
// header, the errors, conflicts and warnings first (class and what to do), then one
// line per operation grouped by apply phase (restore, create, update,
// schedule-delete; unchanged secrets are only counted), then the closing
// "Plan: …" line. Every line ends in "\n".
func Text(v View) string {
	var b strings.Builder
	b.WriteString("sops-aws-sync plan " + commitLine(v) + "\n")
	b.WriteString(namesLine(v) + "\n")
	for _, s := range append(blocking(v), phases(v)...) {
		b.WriteString("\n")
		for _, l := range s.all() {
			b.WriteString(l + "\n")
		}
	}
	b.WriteString("\n")
	if l := verdict(v); l != "" {
		b.WriteString(l + "\n")
	}
	b.WriteString(closing(v.Summary) + "\n")
	return b.String()
}
