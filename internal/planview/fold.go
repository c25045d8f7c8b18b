package planview

import (
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// FoldMinScopes is the fewest scopes a run must have for its renderings
// to fold (Folded): below it every scope's section is short enough to
// read, and a small run keeps one section per scope, as before folding.
const FoldMinScopes = 10

// Folded reports whether the renderings of v (Text, Markdown) fold scope
// s into the one line of the scopes with no change instead of its own
// section (SPEC §17: at 200 scopes the text plan, the pull-request comment
// and the job summary stay readable). s is folded when v has at least
// FoldMinScopes scopes, v is not validate's (its scopes read nothing from AWS, so
// none is known to match), and s converged with nothing but its unchanged
// count to show: status converged, no operation, no conflict, no
// diagnostic (warnings included), no failure record, no key owned by AWS
// kept. Every other scope (a change, a conflict, an error, a warning,
// unreachable, invalid, interrupted) keeps its section, so folding never
// hides what a reviewer must read; the plan file keeps every scope.
func Folded(v View, s ScopeView) bool {
	return len(v.Scopes) >= FoldMinScopes && v.Command != CommandValidate &&
		s.Status == vocab.StatusConverged && s.Counts.Operations() == 0 && s.Counts.Conflicts == 0 &&
		len(s.Diagnostics) == 0 && len(s.Failures) == 0 && Kept(s.Operations) == 0
}

// folding is v's scopes split by Folded, each part in v's order: the
// scopes shown in full, and the folded ones with their unchanged counts
// summed.
type folding struct {
	shown     []ScopeView
	folded    []string // names
	unchanged int
}

func foldScopes(v View) folding {
	var f folding
	for _, s := range v.Scopes {
		if Folded(v, s) {
			f.folded = append(f.folded, s.Name)
			f.unchanged += s.Counts.Unchanged
			continue
		}
		f.shown = append(f.shown, s)
	}
	return f
}

// line is the one line of the folded scopes, names written by name (q
// for text, a code span for Markdown): "No changes in 197 scopes
// (converged, folded; 9,850 unchanged): a, b, c." "" when none is folded.
func (f folding) line(name func(string) string) string {
	if len(f.folded) == 0 {
		return ""
	}
	names := make([]string, len(f.folded))
	for i, n := range f.folded {
		names[i] = name(n)
	}
	return "No changes in " + plural(len(f.folded), "scope", "scopes") + " (converged, folded; " +
		itoa(f.unchanged) + " unchanged): " + strings.Join(names, ", ") + "."
}
