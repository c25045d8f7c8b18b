package secretsmanager

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Limits the emulator enforces itself; the SDK validates only required-ness
// (reference §1, §5).
const (
	maxNameLen        = 512
	maxValueLen       = 65536
	maxDescriptionLen = 2048
	maxKmsKeyIDLen    = 2048
	maxTags           = 50
	maxTagKeyLen      = 128
	maxTagValueLen    = 256
	minTokenLen       = 32
	maxTokenLen       = 64
	maxStageLen       = 256
	maxStages         = 20
	maxVersions       = 100
)

func validName(name string) *core.Error {
	if len(name) == 0 {
		return core.ErrTooShort("name", 1)
	}
	if len(name) > maxNameLen {
		return core.ErrTooLong("name", maxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/_+=.@-!", c) >= 0 {
			continue
		}
		return core.Errf("ValidationException", msgInvalidName)
	}
	return nil
}

func validSecretID(id *string) *core.Error {
	if id == nil {
		return core.ErrMissing("secretId")
	}
	if len(*id) == 0 {
		return core.ErrTooShort("secretId", 1)
	}
	if len(*id) > 2048 {
		return core.ErrTooLong("secretId", 2048)
	}
	return nil
}

func validToken(tok *string) *core.Error {
	if tok != nil && (len(*tok) < minTokenLen || len(*tok) > maxTokenLen) {
		return core.Errf("InvalidParameterException", msgTokenLength)
	}
	return nil
}

// validValue checks the string/binary pair: at most one, each 1..65,536
// bytes. need requires exactly one.
func validValue(str *string, bin []byte, need bool) *core.Error {
	if str != nil && bin != nil {
		return core.Errf("InvalidParameterException", msgBothValues)
	}
	if need && str == nil && bin == nil {
		return core.Errf("InvalidRequestException", msgNeedValue)
	}
	if str != nil {
		if len(*str) == 0 {
			return core.ErrTooShort("secretString", 1)
		}
		if len(*str) > maxValueLen {
			return core.ErrTooLong("secretString", maxValueLen)
		}
	}
	if bin != nil {
		if len(bin) == 0 {
			return core.ErrTooShort("secretBinary", 1)
		}
		if len(bin) > maxValueLen {
			return core.ErrTooLong("secretBinary", maxValueLen)
		}
	}
	return nil
}

// validDescKms checks Description (at most 2,048 characters; the model
// measures strings in characters, not bytes) and the form of KmsKeyId
// (kms.go); whether the key exists needs the registry and is checked later.
func validDescKms(desc, kms *string) *core.Error {
	if desc != nil && utf8.RuneCountInString(*desc) > maxDescriptionLen {
		return core.ErrTooLong("description", maxDescriptionLen)
	}
	return validKMSKeyIDForm(kms)
}

// Tag rules (reference §5; model TagKeyType 1..128 and TagValueType
// 0..256 characters, no pattern): keys and values are case-sensitive; a key
// starting with aws: in any case is reserved (messages ours).
const (
	msgReservedTag = "Invalid tag key: the aws: prefix is reserved for AWS use."
	msgTooManyTags = "Too many tags: a secret can have at most 50 tags."
)

func reservedTagKey(k string) bool { return len(k) >= 4 && strings.EqualFold(k[:4], "aws:") }

func validTagKey(k, member string) *core.Error {
	n := utf8.RuneCountInString(k)
	if n == 0 {
		return core.ErrTooShort(member, 1)
	}
	if n > maxTagKeyLen {
		return core.ErrTooLong(member, maxTagKeyLen)
	}
	if reservedTagKey(k) {
		return core.Errf("InvalidParameterException", msgReservedTag)
	}
	return nil
}

// validTags checks a request's tag list. A key given twice keeps its last
// value (mergeTags).
func validTags(tags []core.Tag) ([]tag, *core.Error) {
	if len(tags) > maxTags {
		return nil, core.Errf("InvalidParameterException", msgTooManyTags)
	}
	out := make([]tag, 0, len(tags))
	for _, t := range tags {
		if t.Key == nil {
			return nil, core.ErrMissing("tags.member.key")
		}
		k := *t.Key
		v := ""
		if t.Value != nil {
			v = *t.Value
		}
		if err := validTagKey(k, "tags.member.key"); err != nil {
			return nil, err
		}
		if utf8.RuneCountInString(v) > maxTagValueLen {
			return nil, core.ErrTooLong("tags.member.value", maxTagValueLen)
		}
		out = append(out, tag{k, v})
	}
	return out, nil
}

// mergeTags applies add to have (an existing key's value is replaced) and
// enforces the 50-tag limit.
func mergeTags(have, add []tag) ([]tag, *core.Error) {
	out := have
	for _, t := range add {
		replaced := false
		for i := range out {
			if out[i].key == t.key {
				out[i].value = t.value
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, t)
		}
	}
	n := 0
	for _, t := range out {
		if !reservedTagKey(t.key) { // aws: tags do not count (reference §5)
			n++
		}
	}
	if n > maxTags {
		return nil, core.Errf("InvalidParameterException", msgTooManyTags)
	}
	return out, nil
}

func validStages(stages []string) *core.Error {
	if stages == nil {
		return nil
	}
	if len(stages) == 0 {
		return core.ErrTooShort("versionStages", 1)
	}
	if len(stages) > maxStages {
		return core.ErrTooLong("versionStages", maxStages)
	}
	for _, s := range stages {
		if len(s) == 0 || len(s) > maxStageLen {
			return core.ErrConstraint("versionStages.member", "Member must have length between 1 and 256")
		}
	}
	return nil
}

// sameValue reports whether a stored version holds exactly this value
// (reference §2: string and binary both byte-identical).
func sameValue(v *version, str *string, bin []byte) bool {
	if (v.str == nil) != (str == nil) || (v.bin == nil) != (bin == nil) {
		return false
	}
	if str != nil && *v.str != *str {
		return false
	}
	return bytes.Equal(v.bin, bin)
}

func validMaxResults(mr *int64, max int64) *core.Error {
	if mr == nil {
		return nil
	}
	if *mr < 1 {
		return core.ErrConstraint("maxResults", "Member must have value greater than or equal to 1")
	}
	if *mr > max {
		return core.ErrConstraint("maxResults", fmt.Sprintf("Member must have value less than or equal to %d", max))
	}
	return nil
}
