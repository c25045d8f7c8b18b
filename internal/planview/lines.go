package planview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func itoa(n int) string { return strconv.Itoa(n) }

// q makes one data string safe to print (model.QuotePath).
func q(s string) string { return model.QuotePath(s) }

// section is a titled list of lines shared by the text and Markdown
// renderers: both print exactly the same lines, so neither can show what
// the other hides.
type section struct {
	title string
	lines []string
}

func (s section) all() []string {
	return append([]string{s.title}, s.lines...)
}

// part is what one section of a rendering shows: a scope's operations,
// counts and diagnostics, or the run's own diagnostics (no operations).
type part struct {
	ops    []Op
	counts vocab.Counts
	diags  []diag.Record
	// failures are the scope's failure records (none for the run's part).
	failures []FailureView
	// status is the scope's status ("" for a v1 file, which records none).
	status vocab.Status
	// immediate: the scope's target deletes at once, with no recovery
	// window (model.Target.DeletionUndoable; Parameter Store, SPEC §16).
	immediate bool
	// words are the scope's target's words (model.Target.Words; the
	// default target's for the run's own part).
	words model.TargetWords
	// validated: the part is of validate's file, which read nothing from
	// AWS (SPEC §15).
	validated bool
}

func scopePart(v View, s ScopeView) part {
	p := part{ops: s.Operations, counts: s.Counts, diags: s.Diagnostics, failures: s.Failures, status: s.Status,
		immediate: !s.Target.DeletionUndoable(), words: s.Target.Words(), validated: v.Command == CommandValidate}
	p.ops = slices.Clone(s.Operations)
	for i := range p.ops {
		p.ops[i].words = &p.words
		p.ops[i].immediate = p.immediate && p.ops[i].Action == vocab.ActionScheduleDelete
	}
	return p
}

// immediateLine is the line under the closing line of a scope whose
// target deletes at once (Parameter Store, SPEC §16) that plans a
// deletion: DeleteParameter has no recovery window, so the deletion is
// immediate and irreversible (Git still holds the value; the parameter's
// history and labels are gone), and it counts against --max-deletions
// like any other. "" otherwise.
func immediateLine(p part) string {
	if !p.immediate || p.counts.ScheduleDelete == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s immediate and cannot be undone (no recovery window; history and labels are lost), counted against --max-deletions.",
		p.words.Service, plural(p.counts.ScheduleDelete, "deletion is", "deletions are"))
}

// runWords are the words of the run's scopes' target when they share one,
// else the default target's with the deletion said of both kinds.
func runWords(v View) model.TargetWords {
	if len(v.Scopes) == 0 {
		return model.Target("").Words()
	}
	w := v.Scopes[0].Target.Words()
	for _, s := range v.Scopes[1:] {
		if s.Target.Words() != w {
			return model.MixedTargetWords()
		}
	}
	return w
}

// blocking returns the sections shown before the operations: the errors
// that stopped or limited the run, then conflicts (each with its class and
// remedy), then warnings.
func blocking(p part) []section {
	var out []section
	if n := errorCount(p.diags); n > 0 {
		out = append(out, diagnostics(p.diags, fmt.Sprintf("Errors (%d):", n), "  x ", false))
	}
	if len(p.failures) > 0 {
		out = append(out, failures(p))
	}
	if n := p.counts.Conflicts; n > 0 {
		which := "each is"
		if n == 1 {
			which = "it is"
		}
		s := section{title: fmt.Sprintf("Conflicts (%d): nothing will be changed until %s resolved.", n, which)}
		for _, o := range p.ops {
			if o.Action != vocab.ActionConflict {
				continue
			}
			s.lines = append(s.lines, "  ! "+q(o.Resource)+" conflict: "+q(string(o.Reason)))
			if t, ok := conflictWords(vocab.ConflictClass(o.Reason), o.Case, p.words, p.immediate); ok {
				s.lines = append(s.lines, "      "+t[0], "      next: "+t[1])
			}
		}
		out = append(out, s)
	}
	if n := len(p.diags) - errorCount(p.diags); n > 0 {
		out = append(out, diagnostics(p.diags, fmt.Sprintf("Warnings (%d):", n), "  * ", true))
	}
	return out
}

// diagnostics is the section of ds's warnings (warnings) or errors, each
// line marked with mark: class, subject, summary, and the next action.
func diagnostics(ds []diag.Record, title, mark string, warnings bool) section {
	s := section{title: title}
	for _, d := range ds {
		if diag.IsWarning(d.Class) != warnings {
			continue
		}
		head := mark + q(d.Class)
		if d.Subject != "" {
			head += " " + q(d.Subject)
		}
		s.lines = append(s.lines, head+": "+q(d.Summary))
		if d.Next != "" {
			s.lines = append(s.lines, "      next: "+q(d.Next))
		}
	}
	return s
}

// failures is the section of a scope's failure records, one line each
// (docs/results.md, failures): what failed or still differs, its class,
// and the AWS error code with the IAM actions the call needs ("grant …"
// when AWS denied it), then the class's next action once per class that
// no diagnostic of the scope (shown above with theirs) has; in the words
// of the scope's target (a conflict's text, conflictWords).
func failures(p part) section {
	fs, ds := p.failures, p.diags
	s := section{title: fmt.Sprintf("Failed (%d):", len(fs))}
	var classes []string
	for _, f := range fs {
		s.lines = append(s.lines, failureLine(f, p))
		if !slices.Contains(classes, f.Class) && !slices.ContainsFunc(ds, func(d diag.Record) bool { return d.Class == f.Class }) {
			classes = append(classes, f.Class)
		}
	}
	for _, c := range classes {
		if e, ok := diag.Lookup(c); ok {
			s.lines = append(s.lines, "      next ("+q(c)+"): "+e.Next)
		}
	}
	return s
}

// failureLine is one failure record: "  x resource-0001 create failed
// (apply:failed): AccessDeniedException: grant secretsmanager:CreateSecret,
// secretsmanager:TagResource", "  x observation failed (observe:failed):
// …", "  ? resource-0003 still differs (verify:not-converged): update
// (value differs)", "  x resource-0002 is a conflict (verify:conflict):
// replication: the secret has a replica …".
func failureLine(f FailureView, p part) string {
	mark, what := "  x ", "observation"
	if f.Resource != "" {
		what = q(f.Resource)
		if f.Action != "" {
			what += " " + string(f.Action)
		}
	}
	head := what + " failed"
	if diag.FamilyOf(f.Class) == diag.FamilyVerify {
		mark, head = "  ? ", what+" still differs"
		if f.Action != "" {
			head = q(f.Resource) + " still differs"
		}
	}
	if f.Class == diag.VerifySecondWriter {
		head = what + " met another writer"
	}
	if f.Action == vocab.ActionConflict {
		mark, head = "  x ", q(f.Resource)+" is a conflict"
	}
	line := mark + head + " (" + q(f.Class) + ")"
	var detail []string
	if f.Action == vocab.ActionConflict {
		detail = append(detail, string(f.Reason))
		if t, ok := conflictWords(vocab.ConflictClass(f.Reason), "", p.words, p.immediate); ok {
			detail[len(detail)-1] += ": " + t[0]
		}
	} else if f.Action != "" && diag.FamilyOf(f.Class) == diag.FamilyVerify && f.Class != diag.VerifySecondWriter {
		detail = append(detail, string(f.Action)+" ("+reasonPhrases[f.Reason]+metadataPhrase(Op{Reason: f.Reason, Metadata: f.Metadata})+")")
	}
	actions := make([]string, len(f.IAMActions))
	for i, a := range f.IAMActions {
		actions[i] = q(a)
	}
	switch {
	case f.ErrorCode == accessDenied && len(actions) > 0:
		detail = append(detail, q(f.ErrorCode)+": grant "+strings.Join(actions, ", "))
	case f.ErrorCode != "" && len(actions) > 0:
		detail = append(detail, q(f.ErrorCode)+" on "+strings.Join(actions, ", "))
	case f.ErrorCode != "":
		detail = append(detail, q(f.ErrorCode))
	case f.Class == diag.ApplyFailed:
		detail = append(detail, "outcome not proven")
	}
	if len(detail) > 0 {
		line += ": " + strings.Join(detail, "; ")
	}
	return line
}

// accessDenied is AWS's error code of a call the role is not allowed.
const accessDenied = "AccessDeniedException"

// phases returns one section per non-empty apply phase, in apply order,
// each titled in the scope's target's words (a Parameter Store deletion
// is "Delete").
func phases(ops []Op, words model.TargetWords) []section {
	var out []section
	for _, a := range vocab.Phases {
		var s section
		n := 0
		for _, o := range ops {
			if o.Action == a {
				n++
				s.lines = append(s.lines, opLines(o)...)
			}
		}
		if n > 0 {
			t := titles[a]
			if a == vocab.ActionScheduleDelete {
				t = words.DeleteTitle
			}
			s.title = fmt.Sprintf("%s (%d):", t, n)
			out = append(out, s)
		}
	}
	return out
}

// opLines is one operation: "  ~ resource-0003 update: ~1 +2 -0 (value
// differs)", then, when names are shown, one line per named key path and
// one for the removed paths that are only counted.
func opLines(o Op) []string {
	verb := string(o.Action)
	if o.Action == vocab.ActionScheduleDelete && o.words != nil {
		verb = o.words.DeleteOperation
	}
	head := "  " + symbols[o.Action] + " " + q(o.Resource) + " " + verb
	reason := "(" + reasonPhrases[o.Reason] + metadataPhrase(o) + ")"
	switch {
	case o.Keys != nil:
		k := o.Keys
		if *k == (KeyCounts{}) && o.Reason == vocab.ReasonValueDiffers {
			// Same keys and values, other bytes: the stored value was
			// written by hand or by another tool.
			reason = "(stored value is not in canonical form)"
		}
		head += fmt.Sprintf(": ~%d +%d -%d %s", k.Changed, k.Added, k.Removed, reason)
	case o.KeysUnavailable == vocab.KeysWholeValue:
		head += wholeValuePhrase(o) + " " + reason
	case o.KeysUnavailable != "":
		head += ": keys not compared"
		if !(o.KeysUnavailable == vocab.KeysStoredValueBinary && o.Reason == vocab.ReasonStoredValueBinary) {
			head += ", " + unavailablePhrases[o.KeysUnavailable]
		}
		head += " " + reason
	default:
		head += " " + reason
	}
	out := []string{head}
	for _, r := range o.ReplicasAdded {
		out = append(out, "      + replica "+q(r))
	}
	for _, r := range o.ReplicasRemoved {
		out = append(out, "      - replica "+q(r)+" removed at once (cannot be undone; counts as a deletion)")
	}
	if o.immediate {
		out = append(out, "      deleted at once from "+o.words.Service+" (no recovery window: cannot be undone; counts as a deletion)")
	}
	if p := o.KeyPaths; p != nil {
		for _, kp := range []struct {
			sym   string
			paths []string
		}{{"~", p.Changed}, {"+", p.Added}, {"-", p.Removed}} {
			for _, ptr := range kp.paths {
				out = append(out, "      "+kp.sym+" "+q(ptr))
			}
		}
		if n := o.Unnamed(); n > 0 {
			out = append(out, "      - "+plural(n, "key", "keys")+" not in the desired document (never named)")
		}
	}
	return out
}

// metadataPhrase names the kinds of metadata an update changes: ": kms-key,
// tags" after reason metadata, "; metadata: description" after another.
func metadataPhrase(o Op) string {
	if len(o.Metadata) == 0 {
		return ""
	}
	ks := make([]string, len(o.Metadata))
	for i, k := range o.Metadata {
		ks[i] = string(k)
	}
	if o.Reason == vocab.ReasonMetadata {
		return ": " + strings.Join(ks, ", ")
	}
	return "; metadata: " + strings.Join(ks, ", ")
}

// closing is Terraform's closing line, the deletions said in the target's
// words ("to schedule for deletion", "to delete"); adoptions are named
// only when the plan holds one.
func closing(c vocab.Counts, words model.TargetWords) string {
	adopt := ""
	if c.Adopt > 0 {
		adopt = fmt.Sprintf(" %d to adopt,", c.Adopt)
	}
	return fmt.Sprintf("Plan: %d to create,%s %d to update, %d to restore, %d %s, %d unchanged.",
		c.Create, adopt, c.Update, c.Restore, c.ScheduleDelete, words.DeletePlanned, c.Unchanged)
}

// keptLine is the line that counts the keys owned by AWS a scope's plan
// kept (SPEC §13: "kept: 1 key owned by AWS"), or "" when none.
func keptLine(ops []Op) string {
	switch n := Kept(ops); n {
	case 0:
		return ""
	case 1:
		return "kept: 1 key owned by AWS"
	default:
		return fmt.Sprintf("kept: %d keys owned by AWS", n)
	}
}

// verdict is the line under a scope's closing line, or "". A scope with no
// operation is said to match the commit only when its status says it was
// observed and planned (converged or drift; a v1 file records no status
// and holds one scope that was): a scope that another scope's invalid
// document, a refused role or an interruption stopped before it was
// observed has no operation either, and a pull request's comment must not
// call it in sync. validate reads nothing from AWS (SPEC §15): its scopes
// are never said to match AWS or not, only that AWS was not read.
func verdict(p part) string {
	switch {
	case p.validated && errorCount(p.diags) > 0:
		return ""
	case p.validated:
		return "AWS was not read: validate checks the commit only, so nothing is known of what AWS holds."
	case p.counts.Conflicts > 0:
		return plural(p.counts.Conflicts, "conflict blocks", "conflicts block") + " the plan: nothing will be changed."
	case errorCount(p.diags) > 0 || p.counts.Operations() > 0:
		return ""
	case p.status == "" || p.status == vocab.StatusConverged || p.status == vocab.StatusDrift:
		return "No changes: " + p.words.Service + " matches the commit."
	}
	return "No operation is listed, but the scope ended " + string(p.status) + ": " + p.words.Service + " is not known to match the commit."
}

// runLine is the run's verdict, shown once at the top: its status and
// verification (View.Outcome) and how many scopes it has; for a v1 file,
// which records neither, only that it is one.
// title names what wrote the file in the first line of a rendering:
// "sops-aws-sync validate" for validate's diagnostics (SPEC §15: no plan
// was computed, so the rendering must not read as one), otherwise
// "sops-aws-sync sync" for a sync's (what it applied), otherwise
// "sops-aws-sync plan" (a plan's, and every v1 or v2 file, which records
// no command).
func title(v View) string {
	switch v.Command {
	case CommandValidate:
		return "sops-aws-sync validate"
	case CommandSync:
		return "sops-aws-sync sync"
	}
	return "sops-aws-sync plan"
}

// reviewedLine says which reviewed plan a sync applied (SPEC §14:
// "applying the reviewed plan (3 operations, reviewed at commit …)"), or
// "" for any other file.
func reviewedLine(v View) string {
	if v.Reviewed == nil {
		return ""
	}
	var skipped []string
	for _, s := range v.Scopes {
		if s.Status == vocab.StatusUnreachable {
			skipped = append(skipped, s.Name)
		}
	}
	if len(skipped) > 0 {
		return "Applying " + ReviewedTally(v.Reviewed.Operations, v.Reviewed.GitRevision, skipped) +
			": this run planned exactly what was reviewed of the scopes it reached."
	}
	return "Applying " + ReviewedTally(v.Reviewed.Operations, v.Reviewed.GitRevision, nil) + ": this run planned exactly what was reviewed."
}

// ReviewedTally is the words of a reviewed plan a sync applies (SPEC §14,
// §17): "the reviewed plan (3 operations, reviewed at commit C)", where
// operations are those of the scopes the run applies, and with the scopes
// skipped as unreachable under --max-unreachable-scopes named after the
// commit ("…; skipped as unreachable: scopes a, b)"). The engine's record
// of applying it and the renderings say the same words.
func ReviewedTally(operations int, commit string, skipped []string) string {
	s := "the reviewed plan (" + plural(operations, "operation", "operations") + ", reviewed at commit " + commit
	if len(skipped) > 0 {
		word := "scope "
		if len(skipped) > 1 {
			word = "scopes "
		}
		s += "; skipped as unreachable: " + word + strings.Join(skipped, ", ")
	}
	return s + ")"
}

func runLine(v View) string {
	st, ver := v.Outcome()
	if st == "" {
		return "Run: status not recorded (a " + vocab.PlanSchemaV1 + " file, shown as one scope)"
	}
	scopes := plural(len(v.Scopes), "scope", "scopes")
	if len(v.Scopes) == 0 {
		scopes = "no scope known (the run ended before its scopes were resolved)"
	}
	return "Run: " + string(st) + ", verification " + string(ver) + ", " + scopes
}

// scopeTitle heads a scope's section: its name, its Region and its status.
func scopeTitle(s ScopeView) string {
	region := s.Region
	if region == "" {
		region = "Region not resolved"
	}
	if s.Status == "" {
		return "Scope " + q(s.Name)
	}
	return "Scope " + q(s.Name) + " · " + q(region) + " · " + string(s.Status)
}

func commitLine(v View) string {
	if !model.IsRevision(v.GitRevision) {
		return "(commit not resolved)"
	}
	return "at commit " + v.GitRevision
}

func namesLine(v View) string {
	if v.NamesShown {
		return "Resource names are shown (--show-resource-names); keys that exist only in AWS are counted, never named."
	}
	return "Resource names are hidden: resources by ordinal, keys by count (--show-resource-names shows names and key paths)."
}
