package planview

import (
	"cmp"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// View is the view model of one plan and, field for field, the content of
// the plan file (schema sops-aws-sync/plan/v1). Field order is key order.
type View struct {
	SchemaVersion string `json:"schema_version"`
	// GitRevision is the 40-hex commit or "".
	GitRevision string `json:"git_revision"`
	// NamesShown is --show-resource-names: resources are secret names and
	// create/update carry KeyPaths.
	NamesShown bool `json:"names_shown"`
	// Operations: conflicts, then restore, create, update, schedule-delete
	// (apply phase order), then unchanged; ordinals ascending within each.
	Operations []Op `json:"operations"`
	// Summary is derived from Operations (same keys as the report's counts).
	Summary vocab.Counts `json:"summary"`
	// Diagnostics are the problems that stopped or limited the run, then
	// the warnings (IsWarning), in the order the run met them.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Op is one operation of a View: one secret.
type Op struct {
	// Resource is "resource-0003", or the secret name when names are shown.
	Resource string       `json:"resource"`
	Action   vocab.Action `json:"action"`
	// Reason is one of Action.Reasons() (a conflict's class).
	Reason vocab.Reason `json:"reason"`
	// Keys counts the key-level changes of a create or update.
	Keys *KeyCounts `json:"keys,omitempty"`
	// KeyPaths names the desired-side paths of Keys; only when names are
	// shown. Removed may be shorter than Keys.Removed: paths that exist only
	// in the observed value are counted, never named.
	KeyPaths *KeyPaths `json:"key_paths,omitempty"`
	// KeysUnavailable replaces Keys when the stored value is not a JSON
	// object, or the document is a whole value (whole-value, the one token
	// a create may carry).
	KeysUnavailable vocab.KeysUnavailable `json:"keys_unavailable,omitempty"`
	// Metadata lists the kinds of configured metadata an update changes
	// (kms-key, description, tags; vocab.MetadataKinds order), never their
	// values or tag keys; absent when none changes and for other actions.
	Metadata []vocab.MetadataKind `json:"metadata,omitempty"`
}

// KeyCounts are the numbers of leaf paths added, removed and changed.
type KeyCounts struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

// KeyPaths are RFC 6901 JSON Pointers of the desired document, sorted.
type KeyPaths struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// Unnamed returns how many removed paths are counted but not named (they
// exist only in the observed AWS value).
func (o Op) Unnamed() int {
	if o.Keys == nil {
		return 0
	}
	if o.KeyPaths == nil {
		return o.Keys.Removed
	}
	return o.Keys.Removed - len(o.KeyPaths.Removed)
}

// rank orders actions as views show them (vocab.Actions).
func rank(a vocab.Action) int {
	if i := slices.Index(vocab.Actions, a); i >= 0 {
		return i
	}
	return len(vocab.Actions)
}

// Build redacts in into a View: the one place where names, key paths and
// the redaction setting meet (SPEC §7.4). Operations are ordered as View
// documents; invalid input (an unknown action, a create without Keys) gives
// a View that Validate rejects, never a panic.
func Build(in Input, r model.Redaction) View {
	ops := slices.Clone(in.Operations)
	slices.SortStableFunc(ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(rank(a.Action), rank(b.Action)), cmp.Compare(a.Ordinal, b.Ordinal))
	})
	rev := in.GitRevision
	if !model.IsRevision(rev) {
		rev = "" // as in the report: a revision is 40 hex or empty
	}
	v := View{
		SchemaVersion: vocab.PlanSchema,
		GitRevision:   rev,
		NamesShown:    r.ShowNames,
		Operations:    make([]Op, 0, len(ops)),
		Diagnostics:   append([]Diagnostic{}, in.Diagnostics...),
	}
	for _, o := range ops {
		v.Operations = append(v.Operations, buildOp(o, r))
	}
	v.Summary = Count(v.Operations)
	return v
}

func buildOp(o Operation, r model.Redaction) Op {
	op := Op{Resource: r.Label(o.Ordinal, o.Name), Action: o.Action, Reason: o.Reason}
	if o.Action == vocab.ActionConflict {
		op.Reason = o.Conflict.Reason()
	}
	if o.Action == vocab.ActionUpdate && len(o.Metadata) > 0 {
		op.Metadata = slices.Clone(o.Metadata)
	}
	if !hasKeys(o.Action) || o.Keys == nil {
		return op
	}
	s := o.Keys
	if !s.Comparable() {
		op.KeysUnavailable = s.Unavailable
		return op
	}
	added, removed, changed := s.Counts()
	op.Keys = &KeyCounts{Added: added, Removed: removed, Changed: changed}
	if r.ShowNames {
		op.KeyPaths = &KeyPaths{Added: desiredSide(s.Added), Removed: desiredSide(s.Removed), Changed: desiredSide(s.Changed)}
	}
	return op
}

// desiredSide keeps the pointers of the desired document: the redaction
// rule's one filter.
func desiredSide(ps []keydiff.Path) []string {
	out := []string{}
	for _, p := range ps {
		if p.InDesired {
			out = append(out, p.Pointer)
		}
	}
	slices.Sort(out)
	return out
}

func hasKeys(a vocab.Action) bool { return a == vocab.ActionCreate || a == vocab.ActionUpdate }

// Count derives the summary from operations: each counted once by its
// action (vocab.Counts.Add, the one count of an action).
func Count(ops []Op) vocab.Counts {
	var c vocab.Counts
	for _, o := range ops {
		c.Add(o.Action)
	}
	return c
}
