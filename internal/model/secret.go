package model

// Secret is one desired secret, derived from one committed SOPS document.
type Secret struct {
	// Name is prefix + "/" + (path − source root − suffix) (SPEC §3.4).
	Name string
	// Value is the exact value to store, 1..MaxValueBytes bytes: for
	// KindJSON the RFC 8785 canonical JSON of the decrypted object (SPEC
	// §3.3), for KindText the decrypted UTF-8 text and for KindBinary the
	// decrypted bytes, both exactly as decrypted (SPEC §3.1).
	Value []byte
	// Kind says what Value is and whether it is stored as SecretString
	// (KindJSON, KindText) or SecretBinary (KindBinary); the zero value is
	// KindJSON.
	Kind ValueKind
	// SourceDigest is SourceDigest(Path): the source tag value.
	SourceDigest string
	// Path is the repo-relative path of the document. It is a resource name:
	// it may only be shown with --show-resource-names.
	Path string
	// Ordinal is the 1-based position of the document among the selected
	// documents sorted by Path; logs name it ResourceLabel(Ordinal) unless
	// resource names may be shown (Redaction).
	Ordinal int
}

// State is the whole desired state of one scope at one commit.
type State struct {
	// Commit is the resolved 40-hex commit SHA.
	Commit string
	// SourceTree is the Git tree id (40 lower-case hex) of the source root
	// at Commit, "" when unknown (a state built by hand): what a reviewed
	// plan binds the scope's source to (SPEC §14).
	SourceTree string
	// Scope is the ownership scope; Scope.Digest() is the scope tag value.
	Scope Scope
	// Secrets are ordered by Name ascending; names are unique.
	Secrets []Secret
}
