package desired

import (
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Class tokens (SPEC §3). They are part of the public contract: users, the
// recovery guide and the CLI key on them. The plaintext:* classes are
// defined by internal/canonical and re-exported here.
const (
	ClassGitRepository = "git:repository" // the repository cannot be opened
	ClassGitRevision   = "git:revision"   // the revision does not resolve to a commit
	ClassGitRead       = "git:read"       // a committed object cannot be read

	ClassSourceMissingRoot = "source:missing-root"
	ClassSourceNotRegular  = "source:not-regular-file"
	ClassSourceTooLarge    = "source:too-large"

	ClassNameInvalid   = "name:invalid"
	ClassNameCollision = "name:collision"

	ClassDecryptNoKey        = "decrypt:no-key"
	ClassDecryptMACMismatch  = "decrypt:mac-mismatch"
	ClassDecryptMalformed    = "decrypt:malformed"
	ClassDecryptKeyService   = "decrypt:key-service"
	ClassDecryptNotEncrypted = "decrypt:not-encrypted"

	ClassPlaintextNotUTF8           = canonical.ClassNotUTF8
	ClassPlaintextBOM               = canonical.ClassBOM
	ClassPlaintextNotObject         = canonical.ClassNotObject
	ClassPlaintextDuplicateKey      = canonical.ClassDuplicateKey
	ClassPlaintextMultiDocument     = canonical.ClassMultiDocument
	ClassPlaintextAnchorOrAlias     = canonical.ClassAnchorOrAlias
	ClassPlaintextNonStringKey      = canonical.ClassNonStringKey
	ClassPlaintextUnsupportedScalar = canonical.ClassUnsupportedScalar
	ClassPlaintextNonFiniteNumber   = canonical.ClassNonFiniteNumber
	ClassPlaintextNumberPrecision   = canonical.ClassNumberPrecision
	ClassPlaintextTooLarge          = canonical.ClassTooLarge
	ClassPlaintextEmpty             = canonical.ClassEmpty
	ClassPlaintextSyntax            = canonical.ClassSyntax

	// ClassInterrupted: Load was cancelled (signal or run timeout); the
	// error wraps ctx.Err(), so errors.Is(err, context.Canceled) or
	// context.DeadlineExceeded holds.
	ClassInterrupted = "interrupted"
)

// Error is every error Load returns.
//
// Error() is "<class>: document resource-0003: <what>; <next>" (the
// document part is the path instead when resource names may be shown, and
// is absent when the failure concerns no single document). It never holds
// plaintext, ciphertext, key material or library error text.
type Error struct {
	// Class is one of the Class* tokens.
	Class string
	// Ordinal is the 1-based position of the document among the selected
	// documents sorted by repo path; 0 when no single document is at fault.
	Ordinal int
	// Path is the document's repo-relative path, set only when
	// Options.ShowResourceNames is true.
	Path string

	what, next string
	cause      error // only ever a context error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Class)
	b.WriteString(": ")
	if doc := e.subject(); doc != "" {
		b.WriteString("document ")
		b.WriteString(doc)
		b.WriteString(": ")
	}
	b.WriteString(e.what)
	if e.next != "" {
		b.WriteString("; ")
		b.WriteString(e.next)
	}
	return b.String()
}

// Unwrap returns the context error of an interrupted Load, else nil.
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) subject() string {
	if e.Path == "" && e.Ordinal < 1 {
		return ""
	}
	return model.Redaction{ShowNames: e.Path != ""}.Label(e.Ordinal, e.Path)
}

// docError builds a per-document error, showing the path only when allowed.
func docError(class string, d *document, show bool, what, next string) *Error {
	e := &Error{Class: class, Ordinal: d.ordinal, what: what, next: next}
	if show {
		e.Path = d.path
	}
	return e
}

func scopeError(class, what, next string) *Error {
	return &Error{Class: class, what: what, next: next}
}
