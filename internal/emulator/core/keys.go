package core

import "strings"

// The forms of a KmsKeyId, which Secrets Manager and Parameter Store check
// before the registry (internal/emulator/kms) resolves one: a key id, a key
// ARN, an alias name or an alias ARN.

// Key states core.Keys.State answers for an unusable key.
const (
	KeyDisabled        = "disabled"
	KeyPendingDeletion = "pending-deletion"
	KeyAccessDenied    = "access-denied"
)

// KeyRef is a parsed KmsKeyId: either a key id or an alias name.
type KeyRef struct {
	KeyID string // set for a key id or key ARN
	Alias string // set for an alias name or alias ARN
	ARN   bool   // given as an ARN
	// Region and Account of an ARN (empty for a bare id or alias name)
	Region, Account string
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// ValidKeyID accepts a UUID key id or a multi-Region key id.
func ValidKeyID(id string) bool {
	if rest, ok := strings.CutPrefix(id, "mrk-"); ok {
		return len(rest) == 32 && isHex(rest)
	}
	parts := strings.Split(id, "-")
	if len(parts) != 5 {
		return false
	}
	for i, n := range []int{8, 4, 4, 4, 12} {
		if len(parts[i]) != n || !isHex(parts[i]) {
			return false
		}
	}
	return true
}

// ValidAliasName accepts "alias/" followed by 1+ of A-Za-z0-9/_- (KMS's
// AliasName pattern), 256 characters at most in all.
func ValidAliasName(a string) bool {
	rest, ok := strings.CutPrefix(a, "alias/")
	if !ok || rest == "" || len(a) > 256 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ParseKeyRef parses the four accepted forms of KmsKeyId: key id, key ARN,
// alias name, alias ARN. ok is false for anything else.
func ParseKeyRef(s string) (KeyRef, bool) {
	if strings.HasPrefix(s, "alias/") {
		return KeyRef{Alias: s}, ValidAliasName(s)
	}
	if strings.HasPrefix(s, "arn:") {
		// arn:<partition>:kms:<region>:<account>:key/<id> or …:alias/<name>
		f := strings.SplitN(s, ":", 6)
		if len(f) != 6 || f[1] == "" || f[2] != "kms" || f[3] == "" || len(f[4]) != 12 || !isDigits(f[4]) {
			return KeyRef{}, false
		}
		// Another partition is as foreign as another Region or account.
		r := KeyRef{ARN: true, Region: f[3], Account: f[4]}
		if f[1] != "aws" {
			r.Region = f[1] + ":" + f[3]
		}
		if id, ok := strings.CutPrefix(f[5], "key/"); ok {
			r.KeyID = id
			return r, ValidKeyID(id)
		}
		if strings.HasPrefix(f[5], "alias/") {
			r.Alias = f[5]
			return r, ValidAliasName(f[5])
		}
		return KeyRef{}, false
	}
	return KeyRef{KeyID: s}, ValidKeyID(s)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ValidKeyForm reports whether s is one of the four forms of a KmsKeyId.
func ValidKeyForm(s string) bool {
	_, ok := ParseKeyRef(s)
	return ok
}
