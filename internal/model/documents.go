package model

import (
	"errors"
	"path"
	"strings"
)

// Format is the plaintext syntax of a document, chosen by its suffix
// (SPEC §3.1); internal/canonical parses and canonicalises JSON, YAML and
// dotenv. Text and Binary are whole-value documents: SOPS binary-store
// files whose decrypted bytes are the value as they are, never parsed.
type Format int

// The document formats.
const (
	JSON   Format = iota + 1 // .sops.json
	YAML                     // .sops.yaml, .sops.yml
	Dotenv                   // .sops.env
	Text                     // .sops.txt: exact UTF-8 text, stored as SecretString
	Binary                   // .sops.bin: exact bytes, stored as SecretBinary
)

// String returns "json", "yaml", "dotenv", "text" or "binary".
func (f Format) String() string {
	switch f {
	case JSON:
		return "json"
	case YAML:
		return "yaml"
	case Dotenv:
		return "dotenv"
	case Text:
		return "text"
	case Binary:
		return "binary"
	}
	return "unknown"
}

// Whole reports whether f is a whole-value format (Text or Binary): the
// document is a SOPS binary-store file and its decrypted bytes are the
// value, compared byte for byte, with no key-level structure (SPEC §3.1).
func (f Format) Whole() bool { return f == Text || f == Binary }

// Kind is the kind of value a document of format f holds.
func (f Format) Kind() ValueKind {
	switch f {
	case Text:
		return KindText
	case Binary:
		return KindBinary
	}
	return KindJSON
}

// ValueKind is what a desired secret's Value is and which field of a
// secret version holds it (SPEC §3.1, §3.3).
type ValueKind int

// The value kinds. The zero value is KindJSON, the kind of every
// structured document.
const (
	// KindJSON: the RFC 8785 canonical JSON of an object, stored as
	// SecretString; its changes are summarised key by key.
	KindJSON ValueKind = iota
	// KindText: the exact decrypted UTF-8 text (no BOM) of a .sops.txt
	// document, stored as SecretString.
	KindText
	// KindBinary: the exact decrypted bytes of a .sops.bin document, stored
	// as SecretBinary.
	KindBinary
)

// Binary reports whether the value is stored as SecretBinary.
func (k ValueKind) Binary() bool { return k == KindBinary }

// Whole reports whether the value is a whole value (text or binary):
// compared and shown as one value, never key by key.
func (k ValueKind) Whole() bool { return k == KindText || k == KindBinary }

// String returns "json", "text" or "binary".
func (k ValueKind) String() string {
	switch k {
	case KindText:
		return "text"
	case KindBinary:
		return "binary"
	}
	return "json"
}

// MaxValueBytes is the largest value AWS Secrets Manager stores in one
// version: SecretString and SecretBinary are each at most 65,536 bytes
// (AWS API reference, CreateSecret and PutSecretValue; SPEC §3.1, §3.3).
const MaxValueBytes = 65536

// Suffix is one entry of the document suffix table (SPEC §3.1).
type Suffix struct {
	// Suffix selects a committed file as a document, case-sensitive.
	Suffix string
	// Format is how its plaintext is parsed and canonicalised.
	Format Format
}

// Suffixes is the document suffix table (SPEC §3.1): the only files under
// the source root that are documents. The first entry is the canonical
// spelling that the source digest rewrites the others to (SPEC §4), so that
// re-encoding a document from YAML to JSON keeps its identity. The
// whole-value suffixes are rewritten too: a document that changes kind
// under the same stem (cert.sops.txt to cert.sops.bin, or a JSON wrapper
// replaced by the bare value) names the same secret from the same source,
// so the change is an update, never a source conflict (SPEC §3.1: a change
// of payload kind is an update).
var Suffixes = []Suffix{
	{".sops.json", JSON},
	{".sops.yaml", YAML},
	{".sops.yml", YAML},
	{".sops.env", Dotenv},
	{".sops.txt", Text},
	{".sops.bin", Binary},
}

// SOPSConfigNames are the file names of SOPS's own configuration (the
// creation rules `sops` looks up from the working directory upwards: SOPS
// v3.13 config.go, ".sops.yaml" then ".sops.yml"). A file with exactly one
// of these names, in any directory, is never a document although it ends in
// a document suffix: a standard SOPS repository keeps one at its root, so
// --source-root . would otherwise select it and fail the name rule.
var SOPSConfigNames = []string{".sops.yaml", ".sops.yml"}

// IsSOPSConfig reports whether the last element of the slash-separated name
// is one of SOPSConfigNames (case-sensitive, like the suffixes).
func IsSOPSConfig(name string) bool {
	base := name[strings.LastIndexByte(name, '/')+1:]
	for _, c := range SOPSConfigNames {
		if base == c {
			return true
		}
	}
	return false
}

// DocumentSuffix returns the suffix entry that selects the file name (or
// path) as a document, and false when none does. SOPS configuration files
// (IsSOPSConfig) are never documents.
func DocumentSuffix(name string) (Suffix, bool) {
	if IsSOPSConfig(name) {
		return Suffix{}, false
	}
	for _, s := range Suffixes {
		if strings.HasSuffix(name, s.Suffix) {
			return s, true
		}
	}
	return Suffix{}, false
}

// canonicalDocumentPath rewrites a document path's suffix to the canonical
// one (Suffixes[0]); other paths are returned unchanged.
func canonicalDocumentPath(p string) string {
	if s, ok := DocumentSuffix(p); ok {
		return strings.TrimSuffix(p, s.Suffix) + Suffixes[0].Suffix
	}
	return p
}

// Reasons CleanSourceRoot gives; they never quote the value.
var (
	ErrSourceRootAbsolute = errors.New("must be a repo-relative path, not absolute")
	ErrSourceRootDotDot   = errors.New("must not contain \"..\"")
	ErrSourceRootUnclean  = errors.New("must be a clean path (no empty, \".\" or repeated \"/\" elements)")
)

// CleanSourceRoot applies the source-root rule of SPEC §2.1, here and only
// here: a clean repo-relative slash path, "." for the whole repository, no
// "..", not absolute (no leading "/", no backslash, no drive letter). A
// single trailing "/" is tolerated and trimmed; "" means ".". It returns the
// cleaned root, or a best-effort cleaned form together with one of the
// ErrSourceRoot* reasons.
func CleanSourceRoot(v string) (string, error) {
	if v == "" {
		return ".", nil
	}
	if strings.HasPrefix(v, "/") || strings.Contains(v, `\`) || (len(v) >= 2 && v[1] == ':') {
		return path.Clean(v), ErrSourceRootAbsolute
	}
	t := strings.TrimSuffix(v, "/")
	if t == "" {
		return ".", ErrSourceRootAbsolute
	}
	for _, el := range strings.Split(t, "/") {
		if el == ".." {
			return path.Clean(t), ErrSourceRootDotDot
		}
	}
	if path.Clean(t) != t {
		return path.Clean(t), ErrSourceRootUnclean
	}
	return t, nil
}
