package planview

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// genBound draws a bound plan (SPEC §14): genInput's run, written by plan,
// with a salt, a repository-id, and per scope a source tree, settings and
// what each operation observed.
func genBound(t *rapid.T) Input {
	in := genInput(t)
	in.Command, in.RepositoryID = CommandPlan, "example/repo"
	in.Salt = rapid.SliceOfN(rapid.Byte(), SaltBytes, SaltBytes).Draw(t, "salt")
	for i := range in.Scopes {
		sc := &in.Scopes[i]
		sc.SourceTree = fmt.Sprintf("%040x", rapid.Uint64().Draw(t, "tree"))
		sc.Settings = []byte(rapid.StringMatching(`\{"p":"[a-z]{0,4}"\}`).Draw(t, "settings"))
		for j := range sc.Operations {
			if rapid.Bool().Draw(t, "exists") {
				sc.Operations[j].Observed = &Observed{ARN: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:s" + fmt.Sprint(j),
					Versions: []string{rapid.StringMatching(`[a-f0-9]{8}`).Draw(t, "version")}, Metadata: []byte(`{"k":"v"}`)}
			}
		}
	}
	return in
}

// TestCompare_Property: for random plans, a plan file compared with
// itself (in memory, and read back from its bytes) has no difference, and
// any single change to an operation, a fingerprint, a source tree or a
// settings digest is a difference of its scope, of the kind that names it.
func TestCompare_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genBound(t)
		shown := rapid.Bool().Draw(t, "shown")
		v := Build(in, model.Redaction{ShowNames: shown})
		b, err := Marshal(v)
		require.NoError(t, err)
		back, err := Parse(b)
		require.NoError(t, err)
		require.Empty(t, Compare(v, v))
		require.Empty(t, Compare(back, v), "a file read back equals the view it was written from")

		mutated := Build(in, model.Redaction{ShowNames: shown}) // a deep copy
		si := rapid.IntRange(0, len(mutated.Scopes)-1).Draw(t, "scope")
		sc := &mutated.Scopes[si]
		var ops, fps []int
		for i, o := range sc.Operations {
			ops = append(ops, i)
			if o.Fingerprint != nil {
				fps = append(fps, i)
			}
		}
		kinds := []string{"tree", "settings"}
		if len(ops) > 0 {
			kinds = append(kinds, "remove", "action", "reason", "keys", "metadata", "replicas")
		}
		if len(fps) > 0 {
			kinds = append(kinds, "fingerprint-versions", "fingerprint-metadata")
		}
		kinds = append(kinds, "add")
		kind := rapid.SampledFrom(kinds).Draw(t, "change")
		want := DiffChanged
		switch kind {
		case "tree":
			sc.SourceTree = flip(sc.SourceTree)
			want = DiffSource
		case "settings":
			sc.SettingsDigest = flip(sc.SettingsDigest)
			want = DiffSettings
		case "remove":
			i := rapid.SampledFrom(ops).Draw(t, "op")
			res := sc.Operations[i].Resource
			sc.Operations = slices.DeleteFunc(sc.Operations, func(o Op) bool { return o.Resource == res })
			want = DiffAdded // compared the other way round below: the run plans what the file lacks
		case "add":
			sc.Operations = append(sc.Operations, Op{Resource: "resource-9999", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual})
			want = DiffRemoved
		case "action":
			o := &sc.Operations[rapid.SampledFrom(ops).Draw(t, "op")]
			o.Action = rapid.SampledFrom(slices.DeleteFunc(slices.Clone(vocab.Actions), func(a vocab.Action) bool { return a == o.Action })).Draw(t, "to")
		case "reason":
			o := &sc.Operations[rapid.SampledFrom(ops).Draw(t, "op")]
			o.Reason += "-x"
		case "keys":
			o := &sc.Operations[rapid.SampledFrom(ops).Draw(t, "op")]
			if o.Keys == nil {
				o.Keys = &KeyCounts{}
			} else {
				k := *o.Keys
				k.Added++
				o.Keys = &k
			}
		case "metadata":
			o := &sc.Operations[rapid.SampledFrom(ops).Draw(t, "op")]
			if len(o.Metadata) == len(vocab.MetadataKinds) {
				o.Metadata = o.Metadata[1:]
			} else {
				o.Metadata = append(slices.Clone(o.Metadata), "other")
			}
		case "replicas":
			o := &sc.Operations[rapid.SampledFrom(ops).Draw(t, "op")]
			o.ReplicasRemoved = append(slices.Clone(o.ReplicasRemoved), "zz-test-9")
		case "fingerprint-versions", "fingerprint-metadata":
			o := &sc.Operations[rapid.SampledFrom(fps).Draw(t, "op")]
			fp := *o.Fingerprint
			if kind == "fingerprint-versions" {
				fp.Versions = flip(fp.Versions)
			} else {
				fp.Metadata = flip(fp.Metadata)
			}
			o.Fingerprint = &fp
			want = DiffAWS
		}
		diffs := Compare(mutated, v)
		require.NotEmpty(t, diffs, "a %s change must be stale", kind)
		require.Contains(t, kindsOf(diffs), want, "a %s change", kind)
		for _, d := range diffs {
			require.Equal(t, v.Scopes[si].Name, d.Scope)
		}
		require.NotEmpty(t, Compare(v, mutated), "stale either way round")
	})
}

func kindsOf(ds []Difference) []DiffKind {
	out := make([]DiffKind, len(ds))
	for i, d := range ds {
		out[i] = d.Kind
	}
	return out
}

// flip changes the first hex digit of a digest or tree id.
func flip(s string) string {
	if s == "" {
		return "0"
	}
	if s[0] == '0' {
		return "1" + s[1:]
	}
	return "0" + s[1:]
}

// TestCompare_SameTreesAnotherCommitIsEqual: the commit, statuses, counts
// and diagnostics are not compared (a merge commit of the same trees is
// the same change), and scopes in another order are other scopes.
func TestCompare_SameTreesAnotherCommitIsEqual(t *testing.T) {
	in := fixtures(t)["full"]
	v := Build(in, model.Redaction{})
	other := in
	other.GitRevision = "fedcba9876543210fedcba9876543210fedcba98"
	assert.Empty(t, Compare(v, Build(other, model.Redaction{})))

	two := fixtures(t)["scopes"]
	for i := range two.Scopes {
		two.Scopes[i].SourceTree = tree
	}
	two.Salt = fixedSalt
	a := Build(two, model.Redaction{})
	two.Scopes[0], two.Scopes[1] = two.Scopes[1], two.Scopes[0]
	b := Build(two, model.Redaction{})
	assert.Equal(t, []Difference{{Scope: a.Scopes[0].Name, Kind: DiffScopes}}, Compare(a, b))
}

// TestReviewable: only a bound v3 file written by plan whose scopes all
// planned (drift or converged) is a reviewed plan; repository-id is
// checked by its digest.
func TestReviewable(t *testing.T) {
	v := Build(fixtures(t)["full"], model.Redaction{})
	assert.Empty(t, Reviewable(v))
	assert.True(t, SameRepository(v, "example/repo"))
	assert.False(t, SameRepository(v, "example/other"))
	for name, change := range map[string]func(*View){
		"sync":     func(v *View) { v.Command = CommandSync },
		"validate": func(v *View) { v.Command = CommandValidate },
		"v2":       func(v *View) { v.SchemaVersion = vocab.PlanSchemaV2 },
		"unsalted": func(v *View) { v.DigestSalt = "" },
		"conflict": func(v *View) { v.Scopes[0].Status = vocab.StatusConflict },
		"no tree":  func(v *View) { v.Scopes[0].SourceTree = "" },
		"no scope": func(v *View) { v.Scopes = nil },
	} {
		w := Build(fixtures(t)["full"], model.Redaction{})
		change(&w)
		assert.NotEmpty(t, Reviewable(w), name)
	}
}

// TestCompare_ScopesDifferenceNamesTheFirstScopeThatDiffers: when the
// scope lists differ, the one difference names the first scope (in file
// order) where they part: the reviewed one, or the current one when the
// reviewed list ended there (SPEC §14: the refusal says which scope).
func TestCompare_ScopesDifferenceNamesTheFirstScopeThatDiffers(t *testing.T) {
	view := func(names ...string) View {
		v := View{}
		for _, n := range names {
			v.Scopes = append(v.Scopes, ScopeView{Name: n})
		}
		return v
	}
	for _, tc := range []struct {
		reviewed, current []string
		want              string
	}{
		{[]string{"a", "b", "c"}, []string{"a", "x", "c"}, "b"},
		{[]string{"a", "b"}, []string{"a", "b", "c"}, "c"},
		{[]string{"a", "b", "c"}, []string{"a", "b"}, "c"},
		{[]string{"a"}, []string{"b"}, "a"},
		{nil, []string{"z"}, "z"},
	} {
		got := Compare(view(tc.reviewed...), view(tc.current...))
		assert.Equal(t, []Difference{{Scope: tc.want, Kind: DiffScopes}}, got, "reviewed %v, current %v", tc.reviewed, tc.current)
	}
}

// TestCompareScope_ReplicasAndKeyPathsAreCompared: an entry that differs
// only in the replica Regions it adds, or only in the key paths it
// names, is a changed entry; the same lists, empty or absent, are not.
func TestCompareScope_ReplicasAndKeyPathsAreCompared(t *testing.T) {
	scope := func(o Op) ScopeView {
		o.Resource, o.Action = "app/db", vocab.ActionUpdate
		return ScopeView{Name: "main", Operations: []Op{o}}
	}
	changed := []Difference{{Scope: "main", Kind: DiffChanged, Resource: "app/db"}}
	assert.Equal(t, changed, CompareScope(scope(Op{ReplicasAdded: []string{"eu-west-1"}}), scope(Op{ReplicasAdded: []string{"us-west-2"}})))
	assert.Equal(t, changed, CompareScope(scope(Op{KeyPaths: &KeyPaths{Added: []string{"a"}}}), scope(Op{KeyPaths: &KeyPaths{Added: []string{"b"}}})))
	assert.Empty(t, CompareScope(scope(Op{ReplicasAdded: []string{}}), scope(Op{})))
	assert.Empty(t, CompareScope(scope(Op{KeyPaths: &KeyPaths{Added: nil}}), scope(Op{KeyPaths: &KeyPaths{Added: []string{}}})))
}
