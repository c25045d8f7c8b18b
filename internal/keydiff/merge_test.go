package keydiff

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pgregory.net/rapid"
)

// at returns the member p names in the decoded document v (objects only).
func at(t *rapid.T, b []byte, p string) (any, bool) {
	v, ok := decode(b)
	require.True(t, ok, "not JSON: %s", b)
	m, ok := v.(map[string]any)
	require.True(t, ok, "not an object: %s", b)
	return lookup(m, p)
}

// Property (SPEC §13): merging never changes a key owned by AWS (it holds
// the live value) and always yields the document's Git-owned keys.
func TestPropertyMergeKeepsOwnedKeysAndTheDocumentsOthers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		desiredDoc, liveDoc := genObject(3).Draw(t, "desired"), genObject(3).Draw(t, "live")
		desired, live := enc(t, desiredDoc), enc(t, liveDoc)
		liveLeaves, _ := refSets(liveDoc)
		candidates := make([]string, 0, len(liveLeaves))
		for p := range liveLeaves {
			candidates = append(candidates, p)
		}
		slices.Sort(candidates)
		if len(candidates) == 0 {
			return
		}
		owned := rapid.SliceOfNDistinct(rapid.SampledFrom(candidates), 1, 3, rapid.ID[string]).Draw(t, "owned")
		merged, err := Merge(desired, live, owned)
		if errors.Is(err, ErrNoPlace) {
			return // a parent in the document is not an object: config refuses it (exit 3)
		}
		require.NoError(t, err)
		for _, p := range owned {
			got, ok := at(t, merged, p)
			want, _ := at(t, live, p)
			require.True(t, ok && equal(got, want), "owned %s changed: %v, live %v", p, got, want)
		}
		under := func(p string) bool {
			for _, o := range owned {
				if p == o || strings.HasPrefix(p, o+"/") || strings.HasPrefix(o, p+"/") {
					return true
				}
			}
			return false
		}
		desiredLeaves, _ := refSets(desiredDoc)
		for p := range desiredLeaves {
			if under(p) {
				continue
			}
			got, ok := at(t, merged, p)
			want, _ := at(t, desired, p)
			require.True(t, ok && equal(got, want), "Git-owned %s is not the document's: %v, want %v", p, got, want)
		}
		again, err := Merge(merged, live, owned)
		require.NoError(t, err)
		require.Equal(t, string(merged), string(again), "merge is not idempotent")
	})
}

func TestMerge(t *testing.T) {
	for _, c := range []struct {
		desired, live string
		owned         []string
		want          string
		err           error
	}{
		{`{"host":"h2","password":"git"}`, `{"host":"h1","password":"rotated"}`, []string{"/password"}, `{"host":"h2","password":"rotated"}`, nil},
		{`{"host":"h2"}`, `{"host":"h1","password":"gen"}`, []string{"/password"}, `{"host":"h2","password":"gen"}`, nil},
		{`{"host":"h2"}`, `{"db":{"n":1.50}}`, []string{"/db/n"}, `{"db":{"n":1.50},"host":"h2"}`, nil},
		{`{"a":1}`, `not json`, []string{""}, `not json`, nil},
		{`{"a":1}`, `{"b":2}`, []string{"/p"}, ``, ErrOwnedMissing},
		{`{"a":1}`, `[1]`, []string{"/p"}, ``, ErrOwnedMissing},
		{`{"a":[1]}`, `{"a":{"b":2}}`, []string{"/a/b"}, ``, ErrNoPlace},
		{`[]`, `{"a":1}`, []string{"/a"}, ``, ErrDesiredNotObject},
	} {
		got, err := Merge([]byte(c.desired), []byte(c.live), c.owned)
		require.ErrorIs(t, err, c.err, "%+v", c)
		if c.err == nil {
			require.Equal(t, c.want, string(got), "%+v", c)
		}
	}
}

func TestLackingAndFill(t *testing.T) {
	lack, err := Lacking([]byte(`{"host":"h","db":{"user":"u"}}`), []string{"", "/host", "/password", "/db/password"})
	require.NoError(t, err)
	require.Equal(t, []string{"/password", "/db/password"}, lack)
	got, err := Fill([]byte(`{"host":"h","db":{"user":"u"}}`), lack, func(p string) string { return "G" + p })
	require.NoError(t, err)
	require.Equal(t, `{"db":{"password":"G/db/password","user":"u"},"host":"h","password":"G/password"}`, string(got))
	_, err = Lacking([]byte(`{"db":"x"}`), []string{"/db/password"})
	require.ErrorIs(t, err, ErrNoPlace)
}

func FuzzMerge(f *testing.F) {
	for _, s := range []string{`{}`, `{"password":"x"}`, `{"password":{"a":1}}`, `[]`, `"x"`, "\xff", `{"password":1e999}`, `{"a":1}{}`} {
		f.Add([]byte(s))
	}
	desired := []byte(`{"host":"h","password":"git"}`)
	f.Fuzz(func(t *testing.T, live []byte) {
		merged, err := Merge(desired, live, []string{"/password"})
		if err != nil {
			require.ErrorIs(t, err, ErrOwnedMissing, "live input may only be missing the key")
			return
		}
		m, err := decodeObject(merged) // numbers kept as text: the caller canonicalizes
		require.NoError(t, err, "merge output is not a JSON object: %q", merged)
		require.Equal(t, "h", m["host"], "Git-owned key lost")
	})
}

// TestSummaryWithout: paths at or under an owned pointer leave every list
// (a sibling whose name only starts like the key stays); "" drops them
// all; the summary given is not modified.
func TestSummaryWithout(t *testing.T) {
	s, err := Diff([]byte(`{"db":{"password":"a","user":"u"},"host":"h2","passwordless":true}`), []byte(`{"db":{"password":"b"},"host":"h1","token":"t"}`))
	require.NoError(t, err)
	before := s
	got := s.Without([]string{"/db/password", "/token"})
	require.Equal(t, Summary{Added: []Path{{"/db/user", true}, {"/passwordless", true}}, Changed: []Path{{"/host", true}}}, got)
	require.Equal(t, before, s)
	require.Equal(t, Summary{Added: []Path{{"/passwordless", true}}, Changed: []Path{{"/host", true}}, Removed: []Path{{"/token", false}}}, s.Without([]string{"/db"}))
	require.Equal(t, Summary{}, s.Without([]string{""}))
	require.Equal(t, s, s.Without(nil))
	require.Equal(t, Binary(), Binary().Without([]string{"/db"}))
}
