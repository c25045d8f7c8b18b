package model

import "unicode"

// defaultIgnorable is the Unicode property Default_Ignorable_Code_Point
// (Unicode Character Database, DerivedCoreProperties.txt, Unicode 15.1 and
// 16.0 list the same ranges): code points that render as nothing when a
// font has no glyph for them, whether or not they are assigned. Several are
// letters or marks that Go's unicode.IsPrint counts as printable (U+115F,
// U+3164 and U+FFA0 are Hangul fillers, U+034F and the variation selectors
// are combining marks), so a name or key path holding one looks exactly
// like the one without it.
var defaultIgnorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00ad, Hi: 0x00ad, Stride: 1},
		{Lo: 0x034f, Hi: 0x034f, Stride: 1},
		{Lo: 0x061c, Hi: 0x061c, Stride: 1},
		{Lo: 0x115f, Hi: 0x1160, Stride: 1},
		{Lo: 0x17b4, Hi: 0x17b5, Stride: 1},
		{Lo: 0x180b, Hi: 0x180f, Stride: 1},
		{Lo: 0x200b, Hi: 0x200f, Stride: 1},
		{Lo: 0x202a, Hi: 0x202e, Stride: 1},
		{Lo: 0x2060, Hi: 0x206f, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xfe00, Hi: 0xfe0f, Stride: 1},
		{Lo: 0xfeff, Hi: 0xfeff, Stride: 1},
		{Lo: 0xffa0, Hi: 0xffa0, Stride: 1},
		{Lo: 0xfff0, Hi: 0xfff8, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1bca0, Hi: 0x1bca3, Stride: 1},
		{Lo: 0x1d173, Hi: 0x1d17a, Stride: 1},
		{Lo: 0xe0000, Hi: 0xe0fff, Stride: 1},
	},
}

// DefaultIgnorable reports whether r is a Unicode default-ignorable code
// point (DerivedCoreProperties.txt, Default_Ignorable_Code_Point): a
// character that is usually drawn as nothing at all.
func DefaultIgnorable(r rune) bool { return unicode.Is(defaultIgnorable, r) }

// Visible reports whether r shows as itself when printed: Go's
// unicode.IsPrint (letters, marks, numbers, punctuation, symbols and the
// ASCII space) and not default-ignorable.
func Visible(r rune) bool { return unicode.IsPrint(r) && !DefaultIgnorable(r) }
