package desired

import "strings"

// MaxNameBytes is the longest secret name AWS Secrets Manager accepts on
// input (NameType 1..512; see the AWS reference, §5).
const MaxNameBytes = 512

// ValidateName reports whether name is a valid secret name (SPEC §3.4):
// 1..512 bytes of A–Z a–z 0–9 and / _ + = . @ -. The error is an *Error of
// class name:invalid whose text does not repeat the name.
func ValidateName(name string) error {
	if name == "" {
		return scopeError(ClassNameInvalid, "a secret name is empty", "choose a non-empty secret prefix and document path")
	}
	if len(name) > MaxNameBytes {
		return scopeError(ClassNameInvalid, "a secret name is longer than 512 bytes", "shorten the secret prefix or the document's path")
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return scopeError(ClassNameInvalid,
				"a secret name holds a character outside A-Z a-z 0-9 / _ + = . @ -",
				"rename the document (or change the secret prefix) using only those characters")
		}
	}
	return nil
}

func nameByte(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("/_+=.@-", c) >= 0
}

// SuffixLooksLikeARN reports whether name ends in '-' followed by exactly six
// characters (app-config, db-backup). AWS's partial-ARN lookup takes such an
// ending for the random suffix of an ARN; the names are valid and accepted,
// but the engine warns once per run per such name (engine.Run, with the
// ordinal) and addresses those secrets by full ARN once known (SPEC §3.4;
// AWS reference §5).
func SuffixLooksLikeARN(name string) bool {
	return len(name) >= 7 && name[len(name)-7] == '-'
}

// secretName maps a document to its secret name (SPEC §3.4):
// prefix + "/" + (path − source root − suffix). rel is the path relative to
// the source root.
func secretName(prefix, rel, suffix string) string {
	return prefix + "/" + strings.TrimSuffix(rel, suffix)
}
