package canonical

import "testing"

// TestDotenvLeadingEqualsIsAnEmptyKey: a line "=value" has its '=' at
// position 0: the operator is told the key is empty, not that the line is
// not KEY=value.
func TestDotenvLeadingEqualsIsAnEmptyKey(t *testing.T) {
	if _, err := dotenvToJSON([]byte("A=1\n=2\n")); err != errDotenvEmptyKey {
		t.Fatalf("\"=2\" → %v, want the empty-key rule", err)
	}
	if _, err := dotenvToJSON([]byte("A=1\nB\n")); err != errDotenvLine {
		t.Fatalf("\"B\" → %v, want the KEY=value rule", err)
	}
}

// TestExponentDigitsCap: an exponent of maxExpDigits significant digits
// parses; one more digit is refused (leading zeros do not count).
func TestExponentDigitsCap(t *testing.T) {
	for _, s := range []string{"1e123456789", "1e-123456789", "1e000123456789"} {
		if _, ok := parseDecimal(s); !ok {
			t.Errorf("parseDecimal(%q) refused", s)
		}
	}
	for _, s := range []string{"1e1234567890", "1e-1234567890"} {
		if _, ok := parseDecimal(s); ok {
			t.Errorf("parseDecimal(%q) accepted", s)
		}
	}
}

// TestSurrogateEscapesAtEveryHexDigitEdge: a \u escape names a UTF-16
// surrogate whatever the case of its hex digits, across the whole high
// (D800–DBFF) and low (DC00–DFFF) ranges; a high one followed by a low one
// is one character (U+10000–U+10FFFF) and is accepted, any other use of
// either is not a Unicode character (RFC 8259 §7, SPEC §3.3).
func TestSurrogateEscapesAtEveryHexDigitEdge(t *testing.T) {
	for _, ok := range []string{`\ud800\udc00`, `\udbff\udfff`, `\uDBFF\uDFFF`, `\ud83d\ude00`, `\uD83D\uDE00`,
		`\ud9aF\udcA0`, `\u00e9`, `\uD7FF`, `\uE000`, `\uffff`, `x\u0041y`} {
		if _, err := Canonicalize(JSON, []byte(`{"a":"`+ok+`"}`)); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	for _, bad := range []string{`\ud800`, `\ud900`, `\uda00`, `\uDAFF`, `\udbff`, `\uDBFF`, `\udc00`, `\udfff`, `\uDFFF`,
		`\ud800x`, `\ud800\n`, `\ud800\u0041`, `\ud800\ud800`, `\udc00\ud800`} {
		_, err := Canonicalize(JSON, []byte(`{"a":"`+bad+`"}`))
		if ce, ok := err.(*Error); !ok || ce.Class != ClassNotUTF8 {
			t.Errorf("%s: got %v, want %s", bad, err, ClassNotUTF8)
		}
	}
}
