package planview

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// DiffKind says what differs between a reviewed plan and the run's own
// (SPEC §14; docs/results.md, "Applying the reviewed plan").
type DiffKind string

// The kinds of difference, in the order Compare reports them within a
// scope.
const (
	// DiffScopes: the two plans do not hold the same scopes in the same
	// order (Difference.Scope names the first that differs).
	DiffScopes DiffKind = "scopes"
	// DiffSource: the scope's source-root tree differs (another document).
	DiffSource DiffKind = "source"
	// DiffSettings: the scope's plan-shaping settings (or its Region)
	// differ.
	DiffSettings DiffKind = "settings"
	// DiffAdded: the run plans for a resource the reviewed plan did not
	// list.
	DiffAdded DiffKind = "operation-added"
	// DiffRemoved: a resource of the reviewed plan is not in the run's.
	DiffRemoved DiffKind = "operation-removed"
	// DiffChanged: a resource's entries differ in action, reason, keys,
	// key paths, metadata or replicas.
	DiffChanged DiffKind = "operation-changed"
	// DiffAWS: a resource's entries are the same but what was observed of
	// its secret is not (a write, a deletion, a re-tag since review).
	DiffAWS DiffKind = "aws-changed"
)

// Difference is one way the run's plan differs from the reviewed one: the
// scope, the kind, and for an operation the resource as both files show
// it (an ordinal label, or a name when names are shown).
type Difference struct {
	Scope    string
	Kind     DiffKind
	Resource string
}

// Reviewable reports why v cannot be applied as a reviewed plan, "" when
// it can: a v3 file written by plan, with a digest salt and a repository
// digest, at least one scope, and every scope drift or converged with its
// source tree and settings digest (a plan that read its documents and
// AWS, with nothing blocking it).
func Reviewable(v View) string {
	switch {
	case v.SchemaVersion != vocab.PlanSchema:
		return "it is not of schema " + vocab.PlanSchema
	case v.Command != CommandPlan:
		return "it was not written by plan"
	case v.Salt() == nil || v.RepositoryDigest == "":
		return "it binds nothing (no digest salt or repository digest)"
	case len(v.Scopes) == 0:
		return "it has no scope"
	}
	for _, s := range v.Scopes {
		if (s.Status != vocab.StatusDrift && s.Status != vocab.StatusConverged) || s.SourceTree == "" || s.SettingsDigest == "" {
			return "scope " + s.Name + " did not end drift or converged with its source and settings bound"
		}
	}
	return ""
}

// SameRepository reports whether the reviewed plan v was made for
// repositoryID (its digest under v's salt).
func SameRepository(v View, repositoryID string) bool {
	k := keyed(v.Salt())
	return k != nil && v.RepositoryDigest == k.digest("repository-id", []byte(repositoryID))
}

// Compare compares a reviewed plan with the run's own by meaning (SPEC
// §14) and returns every difference, none when they are equal. current
// must be built with reviewed's salt and names setting (Input.Salt =
// reviewed.Salt(), model.Redaction{ShowNames: reviewed.NamesShown}), so
// that digests and resources compare. Two plans are equal when they hold
// the same scopes in the same order and, per scope, the same source tree,
// settings digest and Region, and the same entries (Entries compares each
// scope). Statuses, counts, diagnostics, the commit and the salt itself
// are not compared: a merge or squash commit with the same trees is the
// same change. Pure: a function of the two values.
func Compare(reviewed, current View) []Difference {
	names := func(v View) []string {
		out := make([]string, len(v.Scopes))
		for i, s := range v.Scopes {
			out[i] = s.Name
		}
		return out
	}
	rn, cn := names(reviewed), names(current)
	if !slices.Equal(rn, cn) {
		i := 0
		for i < len(rn) && i < len(cn) && rn[i] == cn[i] {
			i++
		}
		name := ""
		if i < len(rn) {
			name = rn[i]
		} else if i < len(cn) {
			name = cn[i]
		}
		return []Difference{{Scope: name, Kind: DiffScopes}}
	}
	var out []Difference
	for i := range reviewed.Scopes {
		out = append(out, CompareScope(reviewed.Scopes[i], current.Scopes[i])...)
	}
	return out
}

// CompareScope compares one scope of a reviewed plan with the run's scope
// of the same name (see Compare): its source tree, its settings digest and
// Region, then its entries by resource: a resource only in current is
// DiffAdded, only in reviewed DiffRemoved; one in both whose entries
// (action, reason, keys, key_paths, keys_unavailable, metadata, replicas)
// differ is DiffChanged, and one whose entries are the same but whose
// fingerprints are not is DiffAWS. Differences come in kind order, then
// by resource.
func CompareScope(reviewed, current ScopeView) []Difference {
	var out []Difference
	if reviewed.SourceTree != current.SourceTree {
		out = append(out, Difference{Scope: reviewed.Name, Kind: DiffSource})
	}
	if reviewed.SettingsDigest != current.SettingsDigest || reviewed.Region != current.Region {
		out = append(out, Difference{Scope: reviewed.Name, Kind: DiffSettings})
	}
	r, c := byResource(reviewed.Operations), byResource(current.Operations)
	var ops []Difference
	for res, ro := range r {
		co, ok := c[res]
		switch {
		case !ok:
			ops = append(ops, Difference{Scope: reviewed.Name, Kind: DiffRemoved, Resource: res})
		case !reflect.DeepEqual(withoutFingerprints(ro), withoutFingerprints(co)):
			ops = append(ops, Difference{Scope: reviewed.Name, Kind: DiffChanged, Resource: res})
		case !reflect.DeepEqual(ro, co):
			ops = append(ops, Difference{Scope: reviewed.Name, Kind: DiffAWS, Resource: res})
		}
	}
	for res := range c {
		if _, ok := r[res]; !ok {
			ops = append(ops, Difference{Scope: reviewed.Name, Kind: DiffAdded, Resource: res})
		}
	}
	order := []DiffKind{DiffAdded, DiffRemoved, DiffChanged, DiffAWS}
	slices.SortFunc(ops, func(a, b Difference) int {
		return cmp.Or(cmp.Compare(slices.Index(order, a.Kind), slices.Index(order, b.Kind)), cmp.Compare(a.Resource, b.Resource))
	})
	return append(out, ops...)
}

// byResource groups a scope's entries by resource, each group in file
// order (a resource has at most one entry per action).
func byResource(ops []Op) map[string][]Op {
	m := make(map[string][]Op, len(ops))
	for _, o := range ops {
		m[o.Resource] = append(m[o.Resource], normal(o))
	}
	return m
}

// normal is o with empty lists as absent (a file read back and a view
// built in memory then compare alike).
func normal(o Op) Op {
	if len(o.Metadata) == 0 {
		o.Metadata = nil
	}
	if len(o.ReplicasAdded) == 0 {
		o.ReplicasAdded = nil
	}
	if len(o.ReplicasRemoved) == 0 {
		o.ReplicasRemoved = nil
	}
	if p := o.KeyPaths; p != nil {
		q := KeyPaths{Added: nonNil(p.Added), Removed: nonNil(p.Removed), Changed: nonNil(p.Changed)}
		o.KeyPaths = &q
	}
	return o
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func withoutFingerprints(ops []Op) []Op {
	out := slices.Clone(ops)
	for i := range out {
		out[i].Fingerprint = nil
	}
	return out
}
