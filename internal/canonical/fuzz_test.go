package canonical

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// knownClasses is every class Canonicalize may return.
var knownClasses = map[string]bool{
	ClassTooDeep: true,
	ClassNotUTF8: true, ClassBOM: true, ClassNotObject: true, ClassDuplicateKey: true,
	ClassMultiDocument: true, ClassAnchorOrAlias: true, ClassNonStringKey: true,
	ClassUnsupportedScalar: true, ClassNonFiniteNumber: true, ClassNumberPrecision: true,
	ClassTooLarge: true, ClassEmpty: true, ClassSyntax: true,
}

// checkOutcome asserts the invariants every input must meet: no panic
// (the fuzzer reports those), a classified error whose text holds no input,
// or a canonical JSON object of 1..MaxValueBytes bytes that is a fixed point.
func checkOutcome(t *testing.T, in []byte, out []byte, err error) {
	t.Helper()
	if err != nil {
		var ce *Error
		if !errors.As(err, &ce) || !knownClasses[ce.Class] {
			t.Fatalf("unclassified error %T %v", err, err)
		}
		if len(in) >= 8 && bytes.Contains([]byte(err.Error()), in) {
			t.Fatalf("error text contains the input")
		}
		return
	}
	if len(out) == 0 || len(out) > MaxValueBytes || out[0] != '{' {
		t.Fatalf("bad output %q", out)
	}
	var v map[string]any
	if e := json.Unmarshal(out, &v); e != nil {
		t.Fatalf("output is not a JSON object: %v", e)
	}
	again, e := FromJSON(out)
	if e != nil || !bytes.Equal(again, out) {
		t.Fatalf("output is not a fixed point: %q -> %q, %v", out, again, e)
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":{"b":[1,2.5,"x",null,true]}}`, `{"a":1,"a":2}`, `[]`, `{"a":1e400}`,
		`{"a":"\ud800"}`, "\ufeff{}", `{}{}`, `{"a":12345678901234567890}`, `{"a":3.14159265358979323846}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := FromJSON(in)
		checkOutcome(t, in, out, err)
	})
}

func FuzzYAML(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: &x 1\nb: *x\n", "a: 2026-01-01\n", "a: !!binary aGk=\n", "1: x\n",
		"a: 1\n---\nb: 2\n", "a: .nan\n", "c:\n  !!merge <<: {a: 1}\n", "a: [1, {b: c}]\n", "a: |\n  x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := FromYAML(in)
		checkOutcome(t, in, out, err)
	})
}

func FuzzDotenv(f *testing.F) {
	for _, s := range []string{"A=1\n", "A=1\r\nB=2\r\n", "#c\n\nA=x\\ny\n", "A\n", "=x\n", "A=1\nA=2\n", "\ufeffA=1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := FromDotenv(in)
		checkOutcome(t, in, out, err)
	})
}

// FuzzUnbounded: Unbounded agrees with FromJSON on every input but one
// whose canonical form is past MaxValueBytes, which it returns whole
// (a fixed point of itself) where FromJSON says ClassTooLarge.
func FuzzUnbounded(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"a":2}`, `[]`, "\ufeff{}", `{"b":"` + string(bytes.Repeat([]byte("x"), MaxValueBytes)) + `"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Unbounded(in)
		want, werr := FromJSON(in)
		var ce *Error
		switch {
		case werr == nil:
			if err != nil || !bytes.Equal(out, want) {
				t.Fatalf("Unbounded %q, %v; FromJSON %q", out, err, want)
			}
		case errors.As(werr, &ce) && ce.Class == ClassTooLarge:
			if err != nil || len(out) <= MaxValueBytes {
				t.Fatalf("past the limit: Unbounded gave %d bytes, %v", len(out), err)
			}
			if again, e := Unbounded(out); e != nil || !bytes.Equal(again, out) {
				t.Fatalf("Unbounded's output is not a fixed point: %v", e)
			}
		default:
			if err == nil || err.Error() != werr.Error() {
				t.Fatalf("Unbounded %v, FromJSON %v: the same refusal", err, werr)
			}
		}
	})
}
