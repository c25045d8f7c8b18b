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
