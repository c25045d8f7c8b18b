package canonical

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// fastValidJSON may only ever say yes where the decoder says yes: it decides
// no error itself. Seeds cover each rule it checks and each it leaves to the
// decoder.
func FuzzFastValidJSONImpliesDecoder(f *testing.F) {
	for _, s := range fastCases {
		f.Add([]byte(s.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !utf8.Valid(in) {
			return // checkText runs first
		}
		if fastValidJSON(in) {
			if e := decodeValidateJSON(in); e != nil {
				t.Fatalf("fast path accepted %q, the decoder says %s", in, e.Class)
			}
		}
	})
}

var fastCases = []struct {
	in   string
	fast bool // accepted by the single pass (else left to the decoder)
}{
	{"{\n  \"a\": 1,\n  \"b\": \"x\\n\\\"y\\\"\",\n  \"c\": [true, false, null, -0.5e+3, {}],\n  \"d\": {\"e\": []}\n}\n", true},
	{`{}`, true},
	{` {"k":"v"} `, true},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10}`, true},
	{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":10}`, false}, // duplicate past the short list
	{`{"a":1,"a":2}`, false},
	{`{"a":{"x":1},"b":{"x":1}}`, true}, // the same name in two objects
	{`{"\u0061":1,"a":2}`, false},       // escaped name: the decoder decides
	{`{"a":"\ud800"}`, false},
	{`{"a":"\u00e9"}`, false},
	{`{"a":12345678901234567890}`, false}, // jsonNumber refuses
	{`{"a":01}`, false},
	{`{"a":1.}`, false},
	{`{"a":-}`, false},
	{`{"a":1e}`, false},
	{`{"a":tru}`, false},
	{`{"a":1,}`, false},
	{`{"a" 1}`, false},
	{`{"a":1}{}`, false},
	{`{"a":1} x`, false},
	{`[]`, false},
	{`"s"`, false},
	{``, false},
	{`{"a":"` + "\x01" + `"}`, false},
	{`{"a":[1,2`, false},
	{`{"a":"x\q"}`, false},
	{`{"a b":"c d ~"}`, true},          // a space is not a control character
	{`{"a":"\"\\\/\b\f\n\r\t"}`, true}, // every one-character escape
	{`{"a":1E5,"b":-0,"c":0.5E-2,"d":10}`, true},
	// Input that ends inside a value: every index stays in bounds.
	{`{`, false},
	{`{"a`, false},
	{`{"a"`, false},
	{`{"a":`, false},
	{`{"a":[`, false},
	{`{"a":[1,`, false},
	{`{"a":"x\`, false},
	{`{"a":0`, false},
	{`{"a":-`, false},
	{`{"a":1.`, false},
	{`{"a":1e`, false},
	{`{"a":1e+`, false},
	{`{"a":tr`, false},
	{`{"a":true`, false},
	{strings.Repeat(`{"a":`, MaxDepth) + `1` + strings.Repeat(`}`, MaxDepth), true},
	{strings.Repeat(`{"a":`, MaxDepth+1) + `1` + strings.Repeat(`}`, MaxDepth+1), false},
	{strings.Repeat(`[`, MaxDepth) + `]`, false}, // not an object
	{`{"a":` + strings.Repeat(`[`, MaxDepth-1) + strings.Repeat(`]`, MaxDepth-1) + `}`, true},
	{`{"a":` + strings.Repeat(`[`, MaxDepth) + strings.Repeat(`]`, MaxDepth) + `}`, false},
}

// Each case: what the single pass says, and that validateJSON's answer is
// the decoder's whichever path decided it.
func TestFastValidJSON_AcceptsTheCommonShapeAndLeavesTheRestToTheDecoder(t *testing.T) {
	for _, c := range fastCases {
		if got := fastValidJSON([]byte(c.in)); got != c.fast {
			t.Errorf("fastValidJSON(%.60q) = %v, want %v", c.in, got, c.fast)
		}
		want, got := decodeValidateJSON([]byte(c.in)), validateJSON([]byte(c.in))
		if (want == nil) != (got == nil) || want != nil && want.Class != got.Class {
			t.Errorf("validateJSON(%.60q) = %v, decoder %v", c.in, got, want)
		}
		if c.fast && want != nil {
			t.Errorf("%.60q: the single pass accepts what the decoder refuses (%s)", c.in, want.Class)
		}
	}
	if !fastValidJSON(benchDoc) {
		t.Error("the benchmark corpus's document shape takes the decoder path")
	}
}
