package desired

import (
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// Class tokens of the loader (SPEC §3): aliases of the tokens registered in
// internal/diag, the one registry with their summaries and next actions.
const (
	ClassGitRepository = diag.GitRepository
	ClassGitRevision   = diag.GitRevision
	ClassGitRead       = diag.GitRead

	ClassSourceMissingRoot = diag.SourceMissingRoot
	ClassSourceNotRegular  = diag.SourceNotRegular
	ClassSourceTooLarge    = diag.SourceTooLarge

	ClassNameInvalid   = diag.NameInvalid
	ClassNameCollision = diag.NameCollision

	ClassDecryptNoKey        = diag.DecryptNoKey
	ClassDecryptMACMismatch  = diag.DecryptMACMismatch
	ClassDecryptMalformed    = diag.DecryptMalformed
	ClassDecryptKeyService   = diag.DecryptKeyService
	ClassDecryptNotEncrypted = diag.DecryptNotEncrypted

	ClassPlaintextNotUTF8           = diag.PlaintextNotUTF8
	ClassPlaintextBOM               = diag.PlaintextBOM
	ClassPlaintextNotObject         = diag.PlaintextNotObject
	ClassPlaintextDuplicateKey      = diag.PlaintextDuplicateKey
	ClassPlaintextMultiDocument     = diag.PlaintextMultiDocument
	ClassPlaintextAnchorOrAlias     = diag.PlaintextAnchorOrAlias
	ClassPlaintextNonStringKey      = diag.PlaintextNonStringKey
	ClassPlaintextUnsupportedScalar = diag.PlaintextUnsupportedScalar
	ClassPlaintextNonFiniteNumber   = diag.PlaintextNonFiniteNumber
	ClassPlaintextNumberPrecision   = diag.PlaintextNumberPrecision
	ClassPlaintextTooLarge          = diag.PlaintextTooLarge
	ClassPlaintextEmpty             = diag.PlaintextEmpty
	ClassPlaintextSyntax            = diag.PlaintextSyntax

	// ClassInterrupted: Load was cancelled (signal or run timeout); the
	// diagnostic wraps ctx.Err(), so errors.Is(err, context.Canceled) or
	// context.DeadlineExceeded holds.
	ClassInterrupted = diag.Interrupted
)

// Class tokens added for issue 15 (repository shapes CI produces, key
// files, nesting depth), in their own block; registered in internal/diag.
const (
	// ClassGitObjectMissing: an object the commit needs is absent from the
	// clone (a partial clone's filtered blob, typically outside the sparse
	// set), as opposed to present but unreadable (ClassGitRead).
	ClassGitObjectMissing = diag.GitObjectMissing
	// ClassSourceLFSPointer: a committed document is a Git LFS pointer, not
	// the SOPS file itself.
	ClassSourceLFSPointer = diag.SourceLFSPointer
	// ClassDecryptKeyFile: SOPS_AGE_KEY_FILE is set but names no readable
	// file (missing, a directory, or unreadable).
	ClassDecryptKeyFile = diag.DecryptKeyFile
	// ClassPlaintextTooDeep: the document nests objects and arrays deeper
	// than canonical.MaxDepth.
	ClassPlaintextTooDeep = diag.PlaintextTooDeep
)

// docError builds a per-document diagnostic of a registered class; the path
// is kept only when names may be shown. what and next are "" for the
// registry's summary and next action (the usual case: the registry is the
// one place a class's text is written); a site passes its own only for a
// precise reason within the class that calls for a different action (a
// name-rule reason, a canonical rule, a repository format).
func docError(class string, d *document, show bool, what, next string) *diag.Diagnostic {
	e := diag.New(class, diag.Document(d.ordinal, d.path, show)).WithSummary(what).WithNext(next)
	return &e
}

// scopeError builds a diagnostic about no single document; what and next as
// for docError.
func scopeError(class, what, next string) *diag.Diagnostic {
	e := diag.New(class, diag.Subject{}).WithSummary(what).WithNext(next)
	return &e
}

// withDoc ties a scope diagnostic to document d.
func withDoc(e *diag.Diagnostic, d *document, show bool) *diag.Diagnostic {
	e.Subject = diag.Document(d.ordinal, d.path, show)
	return e
}

// reject turns the loader's one stopping diagnostic (repository, revision,
// structure, interruption) into Load's error: the run's Diagnostics. Invalid
// documents found while decrypting are all reported (capped in load.go).
func reject(e *diag.Diagnostic) error {
	return diag.Diagnostics{*e}
}
