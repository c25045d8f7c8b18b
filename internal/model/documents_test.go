package model

import "testing"

// TestFormatZeroIsNoFormat: the zero Format names no format (a Document
// whose Format was never set is not read as JSON or any other), and each
// format has its name.
func TestFormatZeroIsNoFormat(t *testing.T) {
	var zero Format
	if got := zero.String(); got != "unknown" {
		t.Errorf("the zero Format is %q, want unknown", got)
	}
	for f, want := range map[Format]string{JSON: "json", YAML: "yaml", Dotenv: "dotenv", Text: "text", Binary: "binary"} {
		if f == zero || f.String() != want {
			t.Errorf("%d: %q, want %q and not the zero Format", f, f.String(), want)
		}
	}
}
