package canonical

import (
	"errors"
	"strings"
	"testing"
)

// TestRulesListEveryFailure: every *Error the package returns is one of
// Rules (the registry and its golden file read them from there), and each
// rule is well formed.
func TestRulesListEveryFailure(t *testing.T) {
	rs := Rules()
	if len(rs) == 0 {
		t.Fatal("Rules() is empty")
	}
	known := map[Error]bool{}
	for _, r := range rs {
		if !strings.HasPrefix(r.Class, "plaintext:") || r.What == "" || r.Next == "" || strings.Contains(r.What+r.Next, "\n") {
			t.Errorf("malformed rule %+v", r)
		}
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
		if !errors.As(err, &e) {
			t.Errorf("%v %q: got %v, want an *Error", in.f, in.plain, err)
			continue
		}
		if !known[*e] {
			t.Errorf("%v %q: %s is not in Rules()", in.f, in.plain, e)
		}
	}
	if !known[*TooDeep()] {
		t.Error("TooDeep() is not in Rules()")
	}
}

// TestRuleOnlyAtInitialisation: a failure declared inside a function would
// escape Rules, so rule panics once the package is initialised.
func TestRuleOnlyAtInitialisation(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("rule did not panic after initialisation")
		}
	}()
	rule(ClassSyntax, "x", "y")
}
