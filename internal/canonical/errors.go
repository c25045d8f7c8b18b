package canonical

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

// ClassTooDeep (issue 15): objects and arrays nested deeper than MaxDepth.
// In its own block so that the diagnostics registry can fold it in.
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

func fail(class, what, next string) *Error {
	return &Error{Class: class, What: what, Next: next}
}

// Fixed next-action sentences shared by several failures.
const (
	nextReencrypt   = "fix the source document, then re-encrypt it with sops"
	nextQuoteNumber = "write the number as a string (quote it) in the source document, then re-encrypt it with sops"
)

func errSyntax(format string) *Error {
	return fail(ClassSyntax, "the decrypted plaintext is not valid "+format, nextReencrypt)
}
