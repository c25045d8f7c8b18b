package model

import (
	"errors"
	"strings"
)

// MaxNameBytes is the longest secret name AWS Secrets Manager accepts on
// input (NameType 1..512; shared/reference/aws-secrets-manager.md §5).
const MaxNameBytes = 512

// NameCharacters lists the characters a secret name may hold (SPEC §3.4).
const NameCharacters = "A-Z a-z 0-9 / _ + = . @ -"

// Reasons returned by ValidateName; they never quote the name.
var (
	ErrNameEmpty     = errors.New("a secret name is empty")
	ErrNameTooLong   = errors.New("a secret name is longer than 512 bytes")
	ErrNameCharacter = errors.New("a secret name holds a character outside " + NameCharacters)
)

// ValidateName reports whether name is a valid secret name (SPEC §3.4):
// 1..512 bytes of A–Z a–z 0–9 and / _ + = . @ -. The error is one of
// ErrNameEmpty, ErrNameTooLong or ErrNameCharacter; it never repeats the
// name.
func ValidateName(name string) error {
	if name == "" {
		return ErrNameEmpty
	}
	if len(name) > MaxNameBytes {
		return ErrNameTooLong
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return ErrNameCharacter
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
// but the engine warns once per run per such name and addresses those
// secrets by full ARN once known (SPEC §3.4; reference §5).
func SuffixLooksLikeARN(name string) bool {
	return len(name) >= 7 && name[len(name)-7] == '-'
}

// SecretName maps a document to its secret name (SPEC §3.4):
// prefix + "/" + (path − source root − suffix). rel is the document's path
// relative to the source root and suffix its selecting suffix (Suffixes).
func SecretName(prefix, rel, suffix string) string {
	return prefix + "/" + strings.TrimSuffix(rel, suffix)
}

// ErrPrefix is the reason CleanPrefix gives for any rejected prefix; it
// never quotes the value.
var ErrPrefix = errors.New("must be a valid secret name of path segments (characters " + NameCharacters +
	", at most 512 bytes; one trailing '/' is trimmed; no empty, '.' or '..' segment except one leading '/')")

// CleanPrefix applies the prefix rule of SPEC §2.1, here and only here:
// exactly one trailing "/" is trimmed; the rest must be a valid secret name
// (ValidateName) whose "/"-separated segments are neither empty nor "." nor
// "..", except that one leading "/" is allowed (AWS names such as
// "/prod/app" are common). So "t1/" is "t1", while "t1//", "//a", "." and
// "a/../b" are rejected: each names a different or an unintended namespace.
// The error is ErrPrefix.
func CleanPrefix(v string) (string, error) {
	p := strings.TrimSuffix(v, "/")
	if p == "" || ValidateName(p) != nil {
		return "", ErrPrefix
	}
	for _, seg := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", ErrPrefix
		}
	}
	return p, nil
}
