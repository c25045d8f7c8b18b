package keydiff

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pgregory.net/rapid"
)

// memberNames includes the RFC 6901 special characters and the empty name.
var memberNames = []string{"a", "b", "db", "~", "/", "a/b", "~1", "", "é"}

func genValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := []string{"string", "int", "bool", "null", "array", "empty"}
		if depth > 0 {
			kinds = append(kinds, "object", "object")
		}
		switch rapid.SampledFrom(kinds).Draw(t, "kind") {
		case "string":
			return rapid.SampledFrom([]string{"x", "y", ""}).Draw(t, "s")
		case "int":
			return rapid.IntRange(-2, 2).Draw(t, "i")
		case "bool":
			return rapid.Bool().Draw(t, "b")
		case "null":
			return nil
		case "array":
			return rapid.SliceOfN(rapid.IntRange(0, 1), 0, 2).Draw(t, "arr")
		case "empty":
			return map[string]any{}
		}
		return genObject(depth-1).Draw(t, "obj")
	})
}

func genObject(depth int) *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		keys := rapid.SliceOfNDistinct(rapid.SampledFrom(memberNames), 0, 4, rapid.ID[string]).Draw(t, "keys")
		m := map[string]any{}
		for _, k := range keys {
			m[k] = genValue(depth).Draw(t, "v")
		}
		return m
	})
}

// refLeaves and refObjects are independent reference definitions of the
// leaf set and of the object-member set of a document.
var refEscape = strings.NewReplacer("~", "~0", "/", "~1")

func refWalk(prefix string, m map[string]any, leaves, objects map[string]bool) {
	for k, v := range m {
		p := prefix + "/" + refEscape.Replace(k)
		if sub, ok := v.(map[string]any); ok && len(sub) != 0 {
			objects[p] = true
			refWalk(p, sub, leaves, objects)
		} else {
			leaves[p] = true
		}
	}
}

func refSets(m map[string]any) (leaves, objects map[string]bool) {
	leaves, objects = map[string]bool{}, map[string]bool{}
	refWalk("", m, leaves, objects)
	return leaves, objects
}

func enc(t *rapid.T, m map[string]any) []byte {
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func diffOf(t *rapid.T, a, b []byte) Summary {
	s, err := Diff(a, b)
	require.NoError(t, err)
	require.True(t, s.Comparable(), "objects must be comparable: %q", s.Unavailable)
	return s
}

func ptrs(ps []Path) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Pointer)
	}
	return out
}

func TestPropertyDiffWithItselfIsEmpty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genObject(3).Draw(t, "doc")
		a := enc(t, m)
		indented, _ := json.MarshalIndent(m, " ", "\t")
		for _, b := range [][]byte{a, indented} {
			s := diffOf(t, a, b)
			require.Zero(t, len(s.Added)+len(s.Removed)+len(s.Changed), "diff(a, a) = %+v", s)
		}
	})
}

func TestPropertySwapExchangesAddedAndRemoved(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := enc(t, genObject(3).Draw(t, "a")), enc(t, genObject(3).Draw(t, "b"))
		ab, ba := diffOf(t, a, b), diffOf(t, b, a)
		require.Equal(t, ptrs(ab.Added), ptrs(ba.Removed), "added/removed do not swap")
		require.Equal(t, ptrs(ab.Removed), ptrs(ba.Added), "added/removed do not swap")
		require.Equal(t, ptrs(ab.Changed), ptrs(ba.Changed), "changed differs on swap")
	})
}

func TestPropertyCountsAreTheLeafSetDifference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ma, mb := genObject(3).Draw(t, "a"), genObject(3).Draw(t, "b")
		s := diffOf(t, enc(t, ma), enc(t, mb))
		la, oa := refSets(ma)
		lb, _ := refSets(mb)
		var onlyA, onlyB, both []string
		for p := range la {
			if lb[p] {
				both = append(both, p)
			} else {
				onlyA = append(onlyA, p)
			}
		}
		for p := range lb {
			if !la[p] {
				onlyB = append(onlyB, p)
			}
		}
		slices.Sort(onlyA)
		slices.Sort(onlyB)
		require.True(t, slices.Equal(ptrs(s.Added), onlyA), "added %v want %v", ptrs(s.Added), onlyA)
		require.True(t, slices.Equal(ptrs(s.Removed), onlyB), "removed %v want %v", ptrs(s.Removed), onlyB)
		require.Equal(t, len(onlyA)+len(onlyB), len(s.Added)+len(s.Removed), "added + removed is not the symmetric difference")
		for _, p := range s.Changed {
			require.Contains(t, both, p.Pointer, "changed %s is not a leaf of both", p.Pointer)
		}
		for _, p := range append(slices.Clone(s.Added), s.Changed...) {
			require.True(t, p.InDesired, "%s must be tagged as in the desired document", p.Pointer)
		}
		for _, p := range s.Removed {
			require.Equal(t, la[p.Pointer] || oa[p.Pointer], p.InDesired, "%s InDesired disagrees with the reference", p.Pointer)
		}
	})
}

func TestPropertyChangingOneLeafChangesOnlyIt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := genObject(2).Draw(t, "doc")
		if len(m) == 0 {
			return
		}
		keys := slices.Sorted(maps.Keys(m))
		k := rapid.SampledFrom(keys).Draw(t, "key")
		if sub, ok := m[k].(map[string]any); ok && len(sub) > 0 {
			return
		}
		changed := maps.Clone(m)
		changed[k] = "a value no generator produces"
		s := diffOf(t, enc(t, changed), enc(t, m))
		want := []string{"/" + refEscape.Replace(k)}
		require.True(t, slices.Equal(ptrs(s.Changed), want) && len(s.Added)+len(s.Removed) == 0, "diff = %+v, want only %v changed", s, want)
	})
}
