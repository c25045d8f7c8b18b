package model

import (
	"testing"
	"unicode"
)

// TestDefaultIgnorableCoversUnicodeTables cross-checks the hand-written
// Default_Ignorable_Code_Point table against the parts of its derivation Go
// ships: Other_Default_Ignorable_Code_Point and Variation_Selector are
// inside it, and White_Space is outside it (DerivedCoreProperties.txt).
func TestDefaultIgnorableCoversUnicodeTables(t *testing.T) {
	for name, tab := range map[string]*unicode.RangeTable{
		"Other_Default_Ignorable_Code_Point": unicode.Other_Default_Ignorable_Code_Point,
		"Variation_Selector":                 unicode.Variation_Selector,
	} {
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if unicode.Is(tab, r) && !DefaultIgnorable(r) {
				t.Errorf("U+%04X is %s but not DefaultIgnorable", r, name)
			}
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.White_Space, r) && DefaultIgnorable(r) {
			t.Errorf("U+%04X is White_Space, which the property excludes", r)
		}
	}
	// The Cf characters of the listed blocks are in; the prepended
	// concatenation marks (U+0600-0605) and interlinear annotations
	// (U+FFF9-FFFB), Cf but visible, are out.
	for _, r := range []rune{0x00ad, 0x061c, 0x200b, 0x200d, 0x202e, 0x2066, 0xfeff, 0x1d173, 0xe0001, 0xe007f} {
		if !DefaultIgnorable(r) {
			t.Errorf("U+%04X must be default-ignorable", r)
		}
	}
	for _, r := range []rune{0x0600, 0xfff9, 'a', ' ', 0x3000, 0x2800} {
		if DefaultIgnorable(r) {
			t.Errorf("U+%04X is not default-ignorable", r)
		}
	}
}

func TestQuotePath(t *testing.T) {
	for in, want := range map[string]string{
		"/db/password":     "/db/password",
		"/Équipe/ünïcode":  "/Équipe/ünïcode",
		"/a\nb":            `"/a\nb"`,
		"/a\u3164":         `"/a\u3164"`,
		"/a\u200b":         `"/a\u200b"`,
		"/a\u034f":         `"/a\u034f"`,
		"/é\u115f":         `"/é\u115f"`,
		"/a\U000e0041":     `"/a\U000e0041"`,
		"/a\U000e0100":     `"/a\U000e0100"`,
		"/a\xff":           `"/a\xff"`,
		"/a\ufe0f/b\u00ad": `"/a\ufe0f/b\u00ad"`,
	} {
		if got := QuotePath(in); got != want {
			t.Errorf("QuotePath(%q) = %s, want %s", in, got, want)
		}
	}
}
