package canonical

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRulesListEveryFailure: every *Error the package returns is one of
// Rules (the registry and its golden file read them from there), and each
// rule is well formed.
func TestRulesListEveryFailure(t *testing.T) {
	rs := Rules()
	require.NotEmpty(t, rs)
	known := map[Error]bool{}
	for _, r := range rs {
		assert.True(t, strings.HasPrefix(r.Class, "plaintext:"), r.Class)
		assert.NotEmpty(t, r.What, r.Class)
		assert.NotEmpty(t, r.Next, r.Class)
		assert.NotContains(t, r.What+r.Next, "\n", r.Class)
		known[r] = true
	}
	for _, in := range []struct {
		f     Format
		plain string
	}{
		{JSON, "{"}, {JSON, "[]"}, {JSON, `{"a":1,"a":2}`}, {JSON, "{} {}"}, {JSON, `{"a":"\ud800"}`},
		{JSON, `{"a":1e400}`}, {JSON, `{"a":9007199254740993}`}, {JSON, ""}, {JSON, "\xef\xbb\xbf{}"}, {JSON, "\xff"},
		{YAML, "a: [\n"}, {YAML, "- a\n"}, {YAML, "a: 1\n---\nb: 2\n"}, {YAML, "a: &x 1\nb: *x\n"},
		{YAML, "1: a\n"}, {YAML, "a: 2001-12-14\n"}, {YAML, "a: !!binary aGk=\n"}, {YAML, "a: !custom x\n"}, {YAML, "a: 1\na: 2\n"},
		{Dotenv, "not a line\n"}, {Dotenv, "=v\n"}, {Dotenv, "A=1\nA=2\n"},
		{JSON, `{"a":"` + strings.Repeat("x", MaxValueBytes) + `"}`},
		{JSON, strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)},
		{Format(99), "{}"},
	} {
		_, err := Canonicalize(in.f, []byte(in.plain))
		var e *Error
		require.ErrorAs(t, err, &e, "%v %q", in.f, in.plain)
		assert.True(t, known[*e], "%v %q: %s is not in Rules()", in.f, in.plain, e)
	}
	assert.True(t, known[*TooDeep()])
}

// TestRuleOnlyAtInitialisation: a failure declared inside a function would
// escape Rules, so rule panics once the package is initialised.
func TestRuleOnlyAtInitialisation(t *testing.T) {
	assert.Panics(t, func() { rule(ClassSyntax, "x", "y") })
}
