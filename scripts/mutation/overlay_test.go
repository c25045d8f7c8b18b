package main

import (
	"strings"
	"testing"
)

func TestMutateReplacesTheOperatorGremlinsNames(t *testing.T) {
	src := []byte("package p\n\nfunc f(a, b int) bool {\n\ta++\n\treturn a-b < -1 && a != b\n}\n")
	cases := []struct {
		kind      string
		line, col int
		want      string
	}{
		{"CONDITIONALS_BOUNDARY", 5, 13, "return a-b <= -1 && a != b"},
		{"CONDITIONALS_NEGATION", 5, 13, "return a-b >= -1 && a != b"},
		{"CONDITIONALS_NEGATION", 5, 23, "return a-b < -1 && a == b"},
		{"ARITHMETIC_BASE", 5, 10, "return a+b < -1 && a != b"},
		{"INVERT_NEGATIVES", 5, 15, "return a-b < +1 && a != b"},
		{"INCREMENT_DECREMENT", 4, 3, "a--"},
	}
	for _, c := range cases {
		got, err := mutate(src, c.kind, c.line, c.col)
		if err != nil {
			t.Fatalf("%s at %d:%d: %v", c.kind, c.line, c.col, err)
		}
		if !strings.Contains(string(got), c.want) {
			t.Errorf("%s at %d:%d: got\n%s\nwant a line %q", c.kind, c.line, c.col, got, c.want)
		}
	}
	if _, err := mutate(src, "ARITHMETIC_BASE", 5, 13); err == nil {
		t.Error("a `<` mutated as arithmetic: want an error")
	}
	if _, err := mutate(src, "CONDITIONALS_BOUNDARY", 5, 12); err == nil {
		t.Error("no token starts at 5:12: want an error")
	}
}
