package canonical

import (
	"slices"
	"strings"
)

// Class tokens for plaintext failures (SPEC §3.3). They are part of the
// public contract: users and the recovery guide key on them.
const (
	ClassNotUTF8           = "plaintext:not-utf8"
	ClassBOM               = "plaintext:bom"
	ClassNotObject         = "plaintext:not-object"
	ClassDuplicateKey      = "plaintext:duplicate-key"
	ClassMultiDocument     = "plaintext:multi-document"
	ClassAnchorOrAlias     = "plaintext:anchor-or-alias"
	ClassNonStringKey      = "plaintext:non-string-key"
	ClassUnsupportedScalar = "plaintext:unsupported-scalar"
	ClassNonFiniteNumber   = "plaintext:non-finite-number"
	ClassNumberPrecision   = "plaintext:number-precision"
	ClassTooLarge          = "plaintext:too-large"
	ClassEmpty             = "plaintext:empty"
	ClassSyntax            = "plaintext:syntax"
)

// ClassTooDeep: objects and arrays nested deeper than MaxDepth.
const ClassTooDeep = "plaintext:too-deep"

// Error is a plaintext rule violation. What and Next are fixed sentences
// chosen by this package: they never contain any part of the document.
type Error struct {
	// Class is one of the Class* tokens.
	Class string
	// What says what is wrong, without content ("a key appears twice in
	// one object").
	What string
	// Next says what the author should do.
	Next string
}

// Error returns "<class>: <what>; <next>".
func (e *Error) Error() string {
	return e.Class + ": " + e.What + "; " + e.Next
}

// rules holds every *Error this package returns, in declaration order; rule
// adds one. Every failure is a package-level rule, so Rules lists every
// text a user can read for a plaintext:* class.
var (
	rules  []*Error
	sealed bool
)

func init() { sealed = true }

// rule declares one failure; only package-level variables call it.
func rule(class, what, next string) *Error {
	if sealed {
		panic("canonical: rule called after initialisation: declare failures as package-level variables")
	}
	e := &Error{Class: class, What: what, Next: next}
	rules = append(rules, e)
	return e
}

// Rules returns a copy of every failure Canonicalize (and TooDeep) can
// return, sorted by class, in declaration order within a class. The
// diagnostics registry takes each plaintext:* class's texts from here (the
// first rule of the class is its default), and its golden file pins them
// all: this package is the one source of those sentences.
func Rules() []Error {
	out := make([]Error, len(rules))
	for i, r := range rules {
		out[i] = *r
	}
	slices.SortStableFunc(out, func(a, b Error) int { return strings.Compare(a.Class, b.Class) })
	return out
}

// Fixed next-action sentences shared by several failures.
const (
	nextReencrypt   = "fix the source document, then re-encrypt it with sops"
	nextQuoteNumber = "write the number as a string (quote it) in the source document, then re-encrypt it with sops"
)

var (
	errJSONSyntax    = rule(ClassSyntax, "the decrypted plaintext is not valid JSON", nextReencrypt)
	errYAMLSyntax    = rule(ClassSyntax, "the decrypted plaintext is not valid YAML", nextReencrypt)
	errUnknownFormat = rule(ClassSyntax, "the document format is unknown", "use a .sops.json, .sops.yaml, .sops.yml or .sops.env suffix")
)
