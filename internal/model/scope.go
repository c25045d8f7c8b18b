package model

import (
	"crypto/sha256"
	"fmt"
)

// Reserved tag keys and the managed-by value (SPEC §4).
const (
	TagManagedBy   = "sops-aws-sync:managed-by"
	TagScope       = "sops-aws-sync:scope"
	TagSource      = "sops-aws-sync:source"
	ManagedByValue = "sops-aws-sync"
	// TagPrefix starts every tag key this tool reserves (compared without
	// letter case): a secret carrying one is never adopted (SPEC §11).
	TagPrefix = "sops-aws-sync:"
)

// Scope identifies the owned namespace of one configuration.
type Scope struct {
	RepositoryID string // e.g. "owner/repo"
	SourceRoot   string // cleaned, repo-relative; "." for the whole repository
	Prefix       string // secret prefix, already trimmed by the caller (internal/config trims one trailing "/")
	// Target is the service the scope writes (SPEC §16; "" is the
	// default, TargetSecretsManager). It is part of the identity: the same
	// repository, root and prefix in two services are two scopes.
	Target Target
}

// Digest returns the lower-hex SHA-256 of
// "sops-aws-sync:scope:v1" NUL repository-id NUL cleaned source-root NUL
// prefix (SPEC §4), the prefix hashed exactly as given: trimming is the
// configuration's job, done once; a scope of another target than the
// default (Parameter Store, SPEC §16) hashes NUL and the target's spelling
// ("parameter-store") after the prefix, so a Secrets Manager scope's
// digest is the one it always had. It is the value of the scope tag.
func (s Scope) Digest() string {
	h := sha256.New()
	h.Write([]byte("sops-aws-sync:scope:v1"))
	h.Write([]byte{0})
	h.Write([]byte(s.RepositoryID))
	h.Write([]byte{0})
	root, _ := CleanSourceRoot(s.SourceRoot)
	h.Write([]byte(root))
	h.Write([]byte{0})
	h.Write([]byte(s.Prefix))
	if !s.Target.IsDefault() {
		h.Write([]byte{0})
		h.Write([]byte(s.Target.Resolved()))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// SourceDigest returns the lower-hex SHA-256 of a repo-relative source path,
// with a ".sops.yaml", ".sops.yml", ".sops.env", ".sops.txt" or ".sops.bin"
// suffix rewritten to ".sops.json" so that re-encoding a document, or
// changing its payload kind, keeps its identity (SPEC §4, §3.1).
func SourceDigest(repoPath string) string {
	sum := sha256.Sum256([]byte(canonicalDocumentPath(repoPath)))
	return fmt.Sprintf("%x", sum[:])
}

// IsDigest reports whether s is a lower-hex SHA-256 (64 characters of
// [0-9a-f]); a source tag that is not is a source-tag conflict (SPEC §4.1).
func IsDigest(s string) bool { return IsLowerHex(s, 64) }

// Tags returns the three reserved tags for a secret created from the
// document at repoPath.
func (s Scope) Tags(repoPath string) map[string]string {
	return map[string]string{
		TagManagedBy: ManagedByValue,
		TagScope:     s.Digest(),
		TagSource:    SourceDigest(repoPath),
	}
}
