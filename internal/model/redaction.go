package model

import (
	"strconv"
	"unicode"
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

// QuotePath quotes a path or name that holds anything but printable
// characters, so that a crafted file name cannot forge log lines.
func QuotePath(p string) string {
	for _, r := range p {
		if !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return p
}
