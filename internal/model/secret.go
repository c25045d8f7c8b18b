package model

// Secret is one desired secret, derived from one committed SOPS document.
type Secret struct {
	// Name is prefix + "/" + (path − source root − suffix) (SPEC §3.4).
	Name string
	// Value is the RFC 8785 canonical JSON of the decrypted object: the exact
	// SecretString to store (SPEC §3.3); 1..65,536 bytes.
	Value []byte
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
	// Scope is the ownership scope; Scope.Digest() is the scope tag value.
	Scope Scope
	// Secrets are ordered by Name ascending; names are unique.
	Secrets []Secret
}
