package model

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on the metadata an operator may configure for owned secrets
// (--kms-key-id, --description, --tag). Tag limits are AWS Secrets Manager's Tag shape and its tagging rules
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

// ValidateTagKey checks one configured tag key (--tag KEY=VALUE).
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
// KmsKeyId parameter of CreateSecret/UpdateSecret accepts it (AWS API
// reference, CreateSecret KmsKeyId; KMS developer guide, "Key identifiers"):
//
//   - a key id: a lower-case UUID, or "mrk-" and 32 lower-case hex digits
//     for a multi-Region key (KMS writes key ids in lower case);
//   - a key ARN: arn:<partition>:kms:<region>:<account>:key/<key id>;
//   - an alias name: alias/<name>, <name> 1-250 of A-Z a-z 0-9 / _ - made
//     of non-empty "/"-separated parts (so no "alias//x", no trailing "/");
//     under alias/aws/ only alias/aws/secretsmanager, the one AWS managed
//     key Secrets Manager may use (ValidateKMSKeyIDFor: the target's own);
//   - an alias ARN: arn:<partition>:kms:<region>:<account>:alias/<name>.
//
// The partition is one AWS has (Partitions), the Region one that partition's
// Region pattern admits (RegionInPartition), the account 12 digits. Whether
// the key exists and is usable is AWS's to say (an apply failure).
func ValidateKMSKeyID(id string) error {
	_, err := parseKMSRef(id, DefaultKMSAlias)
	return err
}

// ValidateKMSKeyIDFor is ValidateKMSKeyID for a scope of target t: the
// one AWS managed key it takes under alias/aws/ is t's service's
// (Target.ManagedKMSAlias: alias/aws/secretsmanager, alias/aws/ssm, the
// key each service uses when no KmsKeyId is given: Secrets Manager API
// reference CreateSecret, SSM API reference PutParameter KeyId); another
// service's managed key is refused, as AWS lets only the service that
// made a managed key use it.
func ValidateKMSKeyIDFor(t Target, id string) error {
	_, err := parseKMSRef(id, t.ManagedKMSAlias())
	return err
}

// kmsRef is a parsed KMS key reference.
type kmsRef struct {
	alias bool   // an alias name or alias ARN
	name  string // "alias/<name>", or the key id
	// where is "partition:region:account" for an ARN, "" for a bare key
	// id or alias name (which KMS resolves in the caller's account and
	// Region, the scope's: the tool addresses secrets by name).
	where string
}

// parseKMSRef parses a KMS key reference whose only alias under
// alias/aws/ may be managed ("" = any: a form read back from AWS).
func parseKMSRef(id, managed string) (kmsRef, error) {
	if id == "" || len(id) > MaxKMSKeyIDChars || !utf8.ValidString(id) {
		return kmsRef{}, ErrKMSKeyIDForm
	}
	if strings.HasPrefix(id, "alias/") {
		if !aliasName(id, managed) {
			return kmsRef{}, ErrKMSKeyIDForm
		}
		return kmsRef{alias: true, name: id}, nil
	}
	if strings.HasPrefix(id, "arn:") {
		parts := strings.SplitN(id, ":", 6)
		if len(parts) != 6 || parts[2] != "kms" || !RegionInPartition(parts[1], parts[3]) || !digits(parts[4], 12) {
			return kmsRef{}, ErrKMSKeyIDForm
		}
		where := parts[1] + ":" + parts[3] + ":" + parts[4]
		res := parts[5]
		if k, ok := strings.CutPrefix(res, "key/"); ok && keyID(k) {
			return kmsRef{name: k, where: where}, nil
		}
		if strings.HasPrefix(res, "alias/") && aliasName(res, managed) {
			return kmsRef{alias: true, name: res, where: where}, nil
		}
		return kmsRef{}, ErrKMSKeyIDForm
	}
	if keyID(id) {
		return kmsRef{name: id}, nil
	}
	return kmsRef{}, ErrKMSKeyIDForm
}

// keyID reports whether s is a KMS key id: a lower-case UUID, or "mrk-"
// followed by 32 lower-case hex digits (multi-Region keys).
func keyID(s string) bool {
	if rest, ok := strings.CutPrefix(s, "mrk-"); ok {
		return IsLowerHex(rest, 32)
	}
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
		} else if !IsLowerHex(string(c), 1) {
			return false
		}
	}
	return true
}

// aliasName reports whether a ("alias/" and the rest) is an alias name
// the tool accepts: KMS's AliasName characters (A-Z a-z 0-9 / _ -, at most
// 256 characters in all), no empty "/"-separated part, and nothing under
// alias/aws/ but managed, the target's AWS managed key (the other AWS
// managed keys belong to other services, which the target cannot use);
// managed "" accepts any.
func aliasName(a, managed string) bool {
	s, ok := strings.CutPrefix(a, "alias/")
	if !ok || s == "" || len(s) > 250 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	if strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//") {
		return false
	}
	if strings.HasPrefix(a, "alias/aws/") && managed != "" && a != managed {
		return false
	}
	return true
}

// Partitions are the AWS partitions and the first parts of their Region
// codes, as the endpoint tables of aws-sdk-go-v2 (internal/endpoints, each
// partition's RegionRegex) give them: a Region code of a partition is one
// of its prefixes, "-", lower-case letters, "-", digits
// (RegionInPartition). The SDK's patterns are ^(us|eu|…)\-\w+\-\d+$
// and the like; \w is narrowed to the lower-case letters Region codes use.
var Partitions = map[string][]string{
	"aws":        {"us", "eu", "ap", "sa", "ca", "me", "af", "il", "mx"},
	"aws-cn":     {"cn"},
	"aws-eusc":   {"eusc-de"},
	"aws-iso":    {"us-iso"},
	"aws-iso-b":  {"us-isob"},
	"aws-iso-e":  {"eu-isoe"},
	"aws-iso-f":  {"us-isof"},
	"aws-us-gov": {"us-gov"},
}

// ValidRegion reports whether region is a Region code of some AWS
// partition (RegionInPartition).
func ValidRegion(region string) bool {
	for p := range Partitions {
		if RegionInPartition(p, region) {
			return true
		}
	}
	return false
}

// RegionInPartition reports whether partition is an AWS partition and
// region a Region code of it (Partitions): "eu-west-1" is one of "aws",
// "cn-north-1" of "aws-cn", "us-gov-west-1" of "aws-us-gov" only.
func RegionInPartition(partition, region string) bool {
	for _, prefix := range Partitions[partition] {
		rest, ok := strings.CutPrefix(region, prefix+"-")
		if !ok {
			continue
		}
		word, num, ok := strings.Cut(rest, "-")
		if ok && word != "" && num != "" && strings.Trim(word, "abcdefghijklmnopqrstuvwxyz") == "" && strings.Trim(num, "0123456789") == "" {
			return true
		}
	}
	return false
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
// of the scope: the KMS key, the description and tags. A zero
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

// SameKMSKey reports whether a configured KMS key reference is proven to
// name the key DescribeSecret reported (observed: its KmsKeyId, "" when it
// was left out) for the secret whose ARN is secretARN. It compares the whole
// identity, never only the last part of an ARN:
//
//   - equal strings are the same key;
//   - an omitted KmsKeyId is the AWS managed key of the secret's account and
//     Region (AWS API reference, DescribeSecret KmsKeyId: "If the secret is
//     encrypted with the AWS managed key aws/secretsmanager, this field is
//     omitted"), the same key as alias/aws/secretsmanager and its alias ARN
//     in that account and Region;
//   - otherwise both must be key references (key id or key ARN) or both
//     alias references (alias name or alias ARN) with the same key id or
//     alias name, in the same partition, Region and account: a bare key id
//     or alias name stands for the secret's own (KMS resolves it in the
//     caller's account and Region, and the tool reaches secrets by name),
//     an ARN for the one it spells. The secret's partition, Region and
//     account come from secretARN (arn:<partition>:secretsmanager:<region>:
//     <account>:secret:<name>); when it cannot be read, a bare form and an
//     ARN are not compared.
//
// Everything else cannot be told apart without asking KMS (kms:DescribeKey,
// kms:ListAliases, which the tool does not call): an alias and a key id,
// the managed key's own key id or key ARN and an omitted KmsKeyId, an alias
// and the key it points at. "Cannot tell" is never "the same": SameKMSKey
// returns false, the plan holds one metadata update, and UpdateSecret stores
// the configured form, which DescribeSecret then returns as it was given,
// so the next comparison is of equal strings (docs/reconciliation.md).
func SameKMSKey(configured, observed, secretARN string) bool {
	if configured == observed {
		return true
	}
	c, err := parseKMSRef(configured, "")
	if err != nil {
		return false
	}
	o := kmsRef{alias: true, name: DefaultKMSAlias} // omitted: the managed key
	if observed != "" {
		if o, err = parseKMSRef(observed, ""); err != nil {
			return false
		}
	}
	if scope, ok := kmsScope(secretARN); ok {
		if c.where == scope {
			c.where = ""
		}
		if o.where == scope {
			o.where = ""
		}
	}
	return c.alias == o.alias && c.name == o.name && c.where == o.where
}

// kmsScope returns "partition:region:account" of a Secrets Manager secret
// ARN (arn:<partition>:secretsmanager:<region>:<account>:secret:<name>).
func kmsScope(secretARN string) (string, bool) {
	parts := strings.SplitN(secretARN, ":", 7)
	if len(parts) != 7 || parts[0] != "arn" || parts[2] != "secretsmanager" || parts[5] != "secret" ||
		!RegionInPartition(parts[1], parts[3]) || !digits(parts[4], 12) {
		return "", false
	}
	return parts[1] + ":" + parts[3] + ":" + parts[4], true
}
