package model

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on the metadata an operator may configure for owned secrets (issue
// 14). Tag limits are AWS Secrets Manager's Tag shape and its tagging rules
// (shared/reference/aws-secrets-manager.md §5 "Tags": key 1..128, value
// 0..256, at most 50 tags per secret, the aws: prefix reserved); the
// description and key-id lengths are the CreateSecret/UpdateSecret request
// shapes (Description ≤ 2048, KmsKeyId ≤ 2048).
const (
	MaxTagKeyChars      = 128
	MaxTagValueChars    = 256
	MaxTagsPerSecret    = 50
	MaxDescriptionChars = 2048
	MaxKMSKeyIDChars    = 2048
	// MaxConfiguredTags is what is left for configured tags once the three
	// ownership tags (TagManagedBy, TagScope, TagSource) are counted.
	MaxConfiguredTags = MaxTagsPerSecret - 3
)

// ReservedTagPrefixes are the tag key prefixes no configured tag may use:
// aws: is reserved by AWS; sops-aws-sync: holds the ownership tags (SPEC §4),
// which only the tool writes. The comparison is case-insensitive, so
// "AWS:team" is refused too (AWS reserves the prefix in any case).
var ReservedTagPrefixes = []string{"aws:", "sops-aws-sync:"}

// TagCharacters describes the characters AWS allows in tag keys and values:
// letters, digits and white space representable in UTF-8, and + - = . _ : / @.
const TagCharacters = "letters, digits, spaces and + - = . _ : / @"

// Reasons returned by the metadata rules. They never quote a value (a value
// in the wrong place is often a secret).
var (
	ErrTagKeyEmpty       = errors.New("a tag key is empty")
	ErrTagKeyTooLong     = errors.New("a tag key is longer than 128 characters")
	ErrTagKeyReserved    = errors.New("a tag key starts with a reserved prefix (aws: or sops-aws-sync:)")
	ErrTagKeyCharacter   = errors.New("a tag key holds a character outside " + TagCharacters)
	ErrTagValueTooLong   = errors.New("a tag value is longer than 256 characters")
	ErrTagValueCharacter = errors.New("a tag value holds a character outside " + TagCharacters)
	ErrTooManyTags       = errors.New("more than 47 tags are configured (AWS allows 50 per secret and the tool's three ownership tags count)")
	ErrDescriptionLong   = errors.New("the description is longer than 2048 characters")
	ErrDescriptionChar   = errors.New("the description holds a control character other than tab or newline, or is not UTF-8")
	ErrKMSKeyIDForm      = errors.New("not a KMS key id, key ARN, alias name (alias/...) or alias ARN")
)

// ValidateTagKey checks one configured tag key (issue 14 item 1).
func ValidateTagKey(k string) error {
	if k == "" {
		return ErrTagKeyEmpty
	}
	if !utf8.ValidString(k) || !tagText(k) {
		return ErrTagKeyCharacter
	}
	if utf8.RuneCountInString(k) > MaxTagKeyChars {
		return ErrTagKeyTooLong
	}
	lower := strings.ToLower(k)
	for _, p := range ReservedTagPrefixes {
		if strings.HasPrefix(lower, p) {
			return ErrTagKeyReserved
		}
	}
	return nil
}

// ValidateTagValue checks one configured tag value; the empty value is
// allowed (AWS: Value 0..256).
func ValidateTagValue(v string) error {
	if !utf8.ValidString(v) || !tagText(v) {
		return ErrTagValueCharacter
	}
	if utf8.RuneCountInString(v) > MaxTagValueChars {
		return ErrTagValueTooLong
	}
	return nil
}

// ValidateTags checks a whole configured tag set: every key and value, and
// the count against MaxConfiguredTags.
func ValidateTags(tags map[string]string) error {
	if len(tags) > MaxConfiguredTags {
		return ErrTooManyTags
	}
	for k, v := range tags {
		if err := ValidateTagKey(k); err != nil {
			return err
		}
		if err := ValidateTagValue(v); err != nil {
			return err
		}
	}
	return nil
}

func tagText(s string) bool {
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsNumber(r), r == ' ':
		case strings.ContainsRune("+-=._:/@", r):
		default:
			return false
		}
	}
	return true
}

// ValidateDescription checks the configured description: at most
// MaxDescriptionChars characters of UTF-8 text without control characters
// other than tab and newline.
func ValidateDescription(d string) error {
	if !utf8.ValidString(d) {
		return ErrDescriptionChar
	}
	if utf8.RuneCountInString(d) > MaxDescriptionChars {
		return ErrDescriptionLong
	}
	for _, r := range d {
		if unicode.IsControl(r) && r != '\t' && r != '\n' {
			return ErrDescriptionChar
		}
	}
	return nil
}

// ValidateKMSKeyID checks the form of a configured KMS key reference, as the
// KmsKeyId parameter of CreateSecret/UpdateSecret accepts it: a key id (a
// UUID or a multi-Region "mrk-" id), a key ARN
// (arn:<partition>:kms:<region>:<account>:key/<id>), an alias name
// (alias/<name>) or an alias ARN (arn:<partition>:kms:<region>:<account>:alias/<name>).
// Whether the key exists and is usable is AWS's to say (an apply failure).
func ValidateKMSKeyID(id string) error {
	if id == "" || len(id) > MaxKMSKeyIDChars || !utf8.ValidString(id) {
		return ErrKMSKeyIDForm
	}
	if strings.HasPrefix(id, "alias/") {
		if !aliasName(strings.TrimPrefix(id, "alias/")) {
			return ErrKMSKeyIDForm
		}
		return nil
	}
	if strings.HasPrefix(id, "arn:") {
		parts := strings.SplitN(id, ":", 6)
		if len(parts) != 6 || parts[1] == "" || parts[2] != "kms" || parts[3] == "" || !digits(parts[4], 12) {
			return ErrKMSKeyIDForm
		}
		res := parts[5]
		switch {
		case strings.HasPrefix(res, "key/") && keyID(strings.TrimPrefix(res, "key/")):
			return nil
		case strings.HasPrefix(res, "alias/") && aliasName(strings.TrimPrefix(res, "alias/")):
			return nil
		}
		return ErrKMSKeyIDForm
	}
	if keyID(id) {
		return nil
	}
	return ErrKMSKeyIDForm
}

// keyID reports whether s is a KMS key id: a lower-case UUID, or "mrk-"
// followed by 32 lower-case hex digits (multi-Region keys).
func keyID(s string) bool {
	if rest, ok := strings.CutPrefix(s, "mrk-"); ok {
		return len(rest) == 32 && isHex(rest)
	}
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !isHex(string(c)) {
			return false
		}
	}
	return true
}

// aliasName: 1..256 characters of A-Z a-z 0-9 / _ - (the KMS alias rule).
// The aws/ prefix is allowed: alias/aws/secretsmanager names the default key.
func aliasName(s string) bool {
	if s == "" || len(s) > 250 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	return true
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

func digits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Metadata is the metadata the operator configured for every owned secret
// of the scope (issue 14): the KMS key, the description and tags. A zero
// field is not managed: the tool leaves whatever the secret has. Only the
// tag keys listed in Tags are managed; other tags (set by people or other
// tools) and the ownership tags are never changed.
type Metadata struct {
	// KMSKeyID is a key id, key ARN, alias name or alias ARN
	// (ValidateKMSKeyID); "" = not managed.
	KMSKeyID string
	// Description is plain text (ValidateDescription); "" = not managed.
	Description string
	// Tags are the managed tag keys and their values (ValidateTags).
	Tags map[string]string
}

// DefaultKMSAlias names the AWS managed key Secrets Manager uses when no
// KmsKeyId is given; DescribeSecret leaves KmsKeyId out for it (AWS API
// reference, DescribeSecret).
const DefaultKMSAlias = "alias/aws/secretsmanager"

// SameKMSKey reports whether a configured KMS key reference names the key
// DescribeSecret reported. AWS returns the key id or the alias ARN the
// secret was given (and nothing for the default key), so equal forms are
// compared directly, a key id with a key ARN by the ARN's key/<id>, and an
// alias name with an alias ARN by its alias/<name>. A reference in another
// form (an alias configured, a key id observed) cannot be resolved without
// KMS and counts as different: one UpdateSecret then stores the configured
// form, after which the two compare equal, so a run converges.
func SameKMSKey(configured, observed string) bool {
	if configured == observed {
		return true
	}
	if observed == "" {
		return configured == DefaultKMSAlias
	}
	return kmsResource(configured) == kmsResource(observed)
}

// kmsResource returns "key/<id>" or "alias/<name>" for any accepted form.
func kmsResource(ref string) string {
	if strings.HasPrefix(ref, "arn:") {
		if parts := strings.SplitN(ref, ":", 6); len(parts) == 6 {
			return parts[5]
		}
		return ref
	}
	if strings.HasPrefix(ref, "alias/") {
		return ref
	}
	return "key/" + ref
}
