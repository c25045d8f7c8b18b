package model

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ResourceLabel is the redacted name of the document or secret with the
// given 1-based ordinal: "resource-0003" (SPEC §7.3). An ordinal < 1
// (unknown) gives "resource-unknown".
func ResourceLabel(ordinal int) string {
	if ordinal < 1 {
		return "resource-unknown"
	}
	n := strconv.Itoa(ordinal)
	for len(n) < 4 {
		n = "0" + n
	}
	return "resource-" + n
}

// Redaction is the one view that decides how a resource is named wherever
// it is shown (logs, diagnostics, plan views; SPEC §7.3): by its ordinal
// label unless --show-resource-names allows its real name.
type Redaction struct {
	// ShowNames is --show-resource-names.
	ShowNames bool
}

// Label returns name (quoted by QuotePath when it holds a non-printable
// character) when names may be shown and name is known, else
// ResourceLabel(ordinal).
func (r Redaction) Label(ordinal int, name string) string {
	if r.ShowNames && name != "" {
		return QuotePath(name)
	}
	return ResourceLabel(ordinal)
}

// QuotePath quotes a path or name that holds anything but visible
// characters (Visible: printable and not default-ignorable), so that a
// crafted file name cannot forge log lines and two different key paths or
// names never look the same in a review. The quoted form is Go's
// double-quoted string syntax (strconv.Quote), except that default-ignorable
// characters, which strconv.Quote leaves as they are when Go counts them as
// printable (U+3164 HANGUL FILLER), are written as \uXXXX or \UXXXXXXXX
// escapes too, and an invalid byte as \xNN.
func QuotePath(p string) string {
	if !utf8.ValidString(p) {
		return quoteVisible(p)
	}
	for _, r := range p {
		if !Visible(r) {
			return quoteVisible(p)
		}
	}
	return p
}

func quoteVisible(p string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, p[i])
		case DefaultIgnorable(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case DefaultIgnorable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			q := strconv.Quote(string(r))
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}
