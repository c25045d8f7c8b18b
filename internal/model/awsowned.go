package model

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// AWSOwned is one entry of the aws-owned setting (SPEC §13): the keys of
// the matching secrets whose values AWS owns (a rotation function, or a
// value generated once at create), never compared, shown as changed or
// written by the tool once the secret exists.
type AWSOwned struct {
	// Secret is a name pattern relative to the scope's prefix: the secret
	// name without "<prefix>/"; "*" matches any characters within one path
	// segment (never "/").
	Secret string
	// Keys are RFC 6901 pointers into the JSON value ("/password",
	// "/db/password"); "" alone means the whole value (seeded once at
	// create, then only metadata, tags and replicas are managed).
	Keys []string
	// Generate, when not 0, is the length of the value generated at create
	// for a listed key the document does not hold: GenerateMin..GenerateMax
	// characters of [A-Za-z0-9] from crypto/rand, never logged or written
	// anywhere but AWS.
	Generate int
}

// Bounds of AWSOwned.Generate: 16 characters of 62 are about 95 bits (the
// floor a security-critical tool should hand out); 4,096 keeps a value far
// below Secrets Manager's 65,536-byte limit.
const (
	GenerateMin = 16
	GenerateMax = 4096
)

// Errors of ValidateAWSOwned: reasons, never quoting a value.
var (
	ErrAWSOwnedSecret   = errors.New("secret must be a name pattern relative to the prefix: segments of " + NameCharacters + " and *, no empty, '.' or '..' segment, no leading '/'")
	ErrAWSOwnedKeys     = errors.New("keys must be a non-empty list of RFC 6901 pointers (\"/password\"), none twice; \"\" (the whole value) only alone")
	ErrAWSOwnedGenerate = fmt.Errorf("generate must be a length between %d and %d characters", GenerateMin, GenerateMax)
	ErrAWSOwnedNoFill   = errors.New("generate needs a key it could fill: with keys [\"\"] the document is the whole value, so nothing is ever generated")
	ErrAWSOwnedTwice    = errors.New("two entries have the same secret pattern; list every key of it in one entry")
)

// ValidateAWSOwned checks the rules of the aws-owned setting that need no
// document (SPEC §13): each entry's pattern, pointers and generate length,
// and that no pattern is given twice. The error names the entry (1-based)
// and the rule.
func ValidateAWSOwned(entries []AWSOwned) error {
	for i, e := range entries {
		if err := e.validate(); err != nil {
			return fmt.Errorf("entry %d: %w", i+1, err)
		}
		for _, prev := range entries[:i] {
			if prev.Secret == e.Secret {
				return fmt.Errorf("entry %d: %w", i+1, ErrAWSOwnedTwice)
			}
		}
	}
	return nil
}

func (e AWSOwned) validate() error {
	if e.Secret == "" || strings.HasPrefix(e.Secret, "/") || ValidateName(strings.ReplaceAll(e.Secret, "*", "x")) != nil {
		return ErrAWSOwnedSecret
	}
	for _, seg := range strings.Split(e.Secret, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return ErrAWSOwnedSecret
		}
	}
	if len(e.Keys) == 0 {
		return ErrAWSOwnedKeys
	}
	for i, k := range e.Keys {
		if slices.Contains(e.Keys[:i], k) || (k == "" && len(e.Keys) > 1) || (k != "" && !validPointer(k)) {
			return ErrAWSOwnedKeys
		}
	}
	if e.Generate != 0 && (e.Generate < GenerateMin || e.Generate > GenerateMax) {
		return ErrAWSOwnedGenerate
	}
	if e.Generate != 0 && e.Whole() {
		return ErrAWSOwnedNoFill
	}
	return nil
}

// Whole reports whether the entry owns the whole value (keys [""]).
func (e AWSOwned) Whole() bool { return len(e.Keys) == 1 && e.Keys[0] == "" }

// Matches reports whether the secret name (full, with the prefix) matches
// the entry's pattern under prefix.
func (e AWSOwned) Matches(prefix, name string) bool {
	rel, ok := strings.CutPrefix(name, prefix+"/")
	if !ok {
		return false
	}
	m, err := path.Match(e.Secret, rel)
	return err == nil && m
}

// validPointer: "/" then reference tokens where every "~" is followed by
// "0" or "1" (RFC 6901 §3).
func validPointer(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || p[i+1] != '0' && p[i+1] != '1') {
			return false
		}
	}
	return true
}

// AWSOwnedKeys is what aws-owned says about one desired secret: the
// entry that matches it (the first; ValidateAWSOwnedState refuses two).
func AWSOwnedFor(entries []AWSOwned, prefix, name string) (AWSOwned, bool) {
	for _, e := range entries {
		if e.Matches(prefix, name) {
			return e, true
		}
	}
	return AWSOwned{}, false
}

// Errors of ValidateAWSOwnedState.
var (
	ErrAWSOwnedNoMatch   = errors.New("matches no document of this commit")
	ErrAWSOwnedOverlap   = errors.New("matches a document another entry matches too")
	ErrAWSOwnedWholeKind = errors.New("matches a whole-value document (.sops.txt, .sops.bin), which accepts only keys [\"\"]")
)

// ValidateAWSOwnedState checks the rules of aws-owned that need the
// desired state's names and kinds, never its values (SPEC §13): every
// entry matches at least one document, no document matches two entries,
// and a whole-value document's entry lists only "". It returns the
// 1-based number of the first entry that breaks a rule and the reason.
func ValidateAWSOwnedState(entries []AWSOwned, st State) (int, error) {
	for i, e := range entries {
		matched := false
		for _, s := range st.Secrets {
			if !e.Matches(st.Scope.Prefix, s.Name) {
				continue
			}
			matched = true
			if s.Kind.Whole() && !e.Whole() {
				return i + 1, ErrAWSOwnedWholeKind
			}
			for _, prev := range entries[:i] {
				if prev.Matches(st.Scope.Prefix, s.Name) {
					return i + 1, ErrAWSOwnedOverlap
				}
			}
		}
		if !matched {
			return i + 1, ErrAWSOwnedNoMatch
		}
	}
	return 0, nil
}
