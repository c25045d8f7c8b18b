package keydiff

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

var fuzzDesired = []byte(`{"a":{"b":1,"c":[1,2]},"d":"x","e/f":{"~":true},"g":{}}`)

// FuzzDiffObserved: whatever the observed SecretString, Diff never panics
// or fails, and its result keeps the redaction invariants: a value that is
// not an object gives a reason and no path; otherwise paths are valid
// sorted RFC 6901 pointers, each in one list only, Added and Changed are
// all desired-side, and a path tagged InDesired really is one of the
// desired document's pointers.
func FuzzDiffObserved(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"a":{"b":2}}`, `{"a":1,"z":{"y":[]}}`, `[]`, `"x"`, `nul`, "\xff", `{"a":{"b":1,"c":[1,2]},"d":"x"}`,
		`{"e/f":{"~":false,"oob":1}}`, `{"a":{"0":1}}`, ` {"d" : "x"} `, `{"a":1}{}`,
	} {
		f.Add([]byte(s))
	}
	d, err := desiredLeaves(fuzzDesired)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, observed []byte) {
		s, err := Diff(fuzzDesired, observed)
		require.NoError(t, err, "observed input must never be an error")
		if !s.Comparable() {
			require.Empty(t, append(append(slices.Clone(s.Added), s.Removed...), s.Changed...), "no paths when not comparable: %+v", s)
			return
		}
		seen := map[string]bool{}
		for i, l := range [][]Path{s.Added, s.Removed, s.Changed} {
			if !slices.IsSortedFunc(l, func(a, b Path) int {
				if a.Pointer < b.Pointer {
					return -1
				}
				if a.Pointer > b.Pointer {
					return 1
				}
				return 0
			}) {
				require.Fail(t, "a list is not sorted", "list %d", i)
			}
			for _, p := range l {
				require.True(t, ValidPointer(p.Pointer) && !seen[p.Pointer], "invalid or repeated pointer %q", p.Pointer)
				seen[p.Pointer] = true
				_, leaf := d.leaves[p.Pointer]
				_, obj := d.objects[p.Pointer]
				require.Equal(t, leaf || obj, p.InDesired, "%q InDesired must say whether desired has it", p.Pointer)
				require.True(t, i == 1 || p.InDesired, "added/changed %q must be desired-side", p.Pointer)
			}
		}
	})
}
