package keydiff

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func pointers(ps []Path) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Pointer)
	}
	return out
}

func mustDiff(t *testing.T, desired, observed string) Summary {
	t.Helper()
	s, err := Diff([]byte(desired), []byte(observed))
	require.NoError(t, err)
	return s
}

// TestEscapeRFC6901 covers RFC 6901 §3/§4: "~" → "~0" before "/" → "~1",
// so "~1" in a name becomes "~01", never "/".
func TestEscapeRFC6901(t *testing.T) {
	cases := map[string]string{
		"a": "a", "a/b": "a~1b", "m~n": "m~0n", "~1": "~01", "/~": "~1~0", "": "", "~": "~0",
	}
	for name, tok := range cases {
		assert.Equal(t, tok, Escape(name), name)
		back, ok := Unescape(tok)
		assert.True(t, ok, tok)
		assert.Equal(t, name, back, tok)
	}
	assert.Equal(t, "/a~1b/c~0d/", Pointer("a/b", "c~d", ""))
	for _, bad := range []string{"~", "a~", "~2", "x~a"} {
		_, ok := Unescape(bad)
		assert.False(t, ok, bad)
	}
	assert.True(t, ValidPointer("/a~1b/~0"))
	assert.True(t, ValidPointer("/"))
	for _, bad := range []string{"", "a", "/~", "/a/~x"} {
		assert.False(t, ValidPointer(bad), bad)
	}
}

func TestDiffEscapesMemberNames(t *testing.T) {
	s := mustDiff(t, `{"a/b":1,"c~d":{"e":2}}`, `{}`)
	assert.Equal(t, []string{"/a~1b", "/c~0d/e"}, pointers(s.Added))
}

func TestDiffNesting(t *testing.T) {
	desired := `{"db":{"host":"h","pool":{"max":10,"min":1}},"keep":true,"list":[1,2],"new":"x"}`
	observed := `{"db":{"host":"h2","pool":{"max":10}},"keep":true,"list":[1,3],"old":"y"}`
	s := mustDiff(t, desired, observed)
	assert.Equal(t, []string{"/db/pool/min", "/new"}, pointers(s.Added))
	assert.Equal(t, []string{"/old"}, pointers(s.Removed))
	assert.Equal(t, []string{"/db/host", "/list"}, pointers(s.Changed), "arrays are leaves, compared whole")
	assert.False(t, s.Removed[0].InDesired, "a key only in AWS is not in the desired document")
	for _, p := range append(s.Added, s.Changed...) {
		assert.True(t, p.InDesired, p.Pointer)
	}
}

func TestDiffTypeChangeIsRemoveAndAdd(t *testing.T) {
	// desired /a is an object, observed /a a leaf: /a/b added, /a removed;
	// /a exists in the desired document (as an object), so it may be named.
	s := mustDiff(t, `{"a":{"b":1}}`, `{"a":1}`)
	assert.Equal(t, []string{"/a/b"}, pointers(s.Added))
	assert.Equal(t, []Path{{"/a", true}}, s.Removed)
	assert.Empty(t, s.Changed)

	// the reverse: observed /a/b exists only in AWS.
	s = mustDiff(t, `{"a":1}`, `{"a":{"b":1}}`)
	assert.Equal(t, []Path{{"/a", true}}, s.Added)
	assert.Equal(t, []Path{{"/a/b", false}}, s.Removed)
}

func TestDiffArrayElementPointerIsNotInDesired(t *testing.T) {
	// "/a/0" would resolve to an array element of desired under RFC 6901,
	// but it is observed's member name "0": never named.
	s := mustDiff(t, `{"a":[1]}`, `{"a":{"0":1}}`)
	assert.Equal(t, []Path{{"/a/0", false}}, s.Removed)
}

func TestDiffEmptyObjects(t *testing.T) {
	s := mustDiff(t, `{"a":{}}`, `{"a":{"b":1}}`)
	assert.Equal(t, []string{"/a"}, pointers(s.Added), "an empty object is a leaf")
	assert.Equal(t, []string{"/a/b"}, pointers(s.Removed))

	s = mustDiff(t, `{}`, `{}`)
	assert.Empty(t, s.Added)
	assert.Empty(t, s.Removed)
	assert.Empty(t, s.Changed)

	s = mustDiff(t, `{}`, `{"x":1}`)
	assert.Equal(t, []Path{{"/x", false}}, s.Removed, "the root is never a leaf")
}

func TestDiffComparesAsCanonicalFormsDo(t *testing.T) {
	s := mustDiff(t, `{"a":1,"b":"A","c":[1,{"x":null}]}`, ` { "c" : [ 1.0 , {"x":null} ], "b":"\u0041", "a":1e0 } `)
	assert.True(t, s.Comparable())
	assert.Empty(t, s.Added)
	assert.Empty(t, s.Removed)
	assert.Empty(t, s.Changed, "spelling-only differences change no key")

	s = mustDiff(t, `{"a":1,"b":true,"c":null}`, `{"a":"1","b":"true","c":false}`)
	assert.Equal(t, []string{"/a", "/b", "/c"}, pointers(s.Changed), "type changes are changes")
}

func TestDiffObservedNotAnObject(t *testing.T) {
	cases := map[string]vocab.KeysUnavailable{
		``:                 vocab.KeysStoredValueNotJSON,
		`not json`:         vocab.KeysStoredValueNotJSON,
		`{"a":1} {}`:       vocab.KeysStoredValueNotJSON,
		`{"a":1`:           vocab.KeysStoredValueNotJSON,
		"{\"a\":\"\xff\"}": vocab.KeysStoredValueNotJSON,
		`[1,2]`:            vocab.KeysStoredValueNotObject,
		`"s"`:              vocab.KeysStoredValueNotObject,
		`12`:               vocab.KeysStoredValueNotObject,
		`null`:             vocab.KeysStoredValueNotObject,
	}
	for obs, want := range cases {
		s := mustDiff(t, `{"a":1}`, obs)
		assert.Equal(t, want, s.Unavailable, obs)
		assert.False(t, s.Comparable())
		assert.Empty(t, s.Added, obs)
		assert.Empty(t, s.Removed, obs)
		assert.Empty(t, s.Changed, obs)
	}
	b := Binary()
	assert.Equal(t, vocab.KeysStoredValueBinary, b.Unavailable)
}

func TestCreateAddsEveryLeaf(t *testing.T) {
	s, err := Create([]byte(`{"a":{"b":1,"c":[]},"d":{}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"/a/b", "/a/c", "/d"}, pointers(s.Added))
	a, r, c := s.Counts()
	assert.Equal(t, [3]int{3, 0, 0}, [3]int{a, r, c})
}

func TestDesiredMustBeAnObject(t *testing.T) {
	for _, d := range []string{``, `[]`, `1`, `{`} {
		_, err := Diff([]byte(d), []byte(`{}`))
		assert.ErrorIs(t, err, ErrDesiredNotObject, d)
		_, err = Create([]byte(d))
		assert.ErrorIs(t, err, ErrDesiredNotObject, d)
	}
}
