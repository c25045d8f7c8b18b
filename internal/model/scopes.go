package model

import (
	"errors"
	"strings"
)

// Several scopes in one run (SPEC §10): the name of a scope, the IAM role a
// scope's credentials come from, and when two prefixes share secrets.

// DefaultScopeName is the name of the one scope of a run whose config file
// has no scopes: (SPEC §10), which config.Resolve makes from the top-level
// settings, and of the one scope a v1 plan file is read as.
const DefaultScopeName = "default"

// MaxScopeNameBytes is the longest scope name (SPEC §10: [a-z0-9-]{1,32}).
const MaxScopeNameBytes = 32

// ErrScopeName is the reason ValidateScopeName gives; it never quotes the
// name.
var ErrScopeName = errors.New("must be 1-32 characters of a-z, 0-9 and -")

// ValidateScopeName reports whether name is a scope name (SPEC §10): 1..32
// bytes of lower-case ASCII letters, digits and "-". The name is shown in
// logs, the plan and the Action, and is part of the STS session name
// sops-aws-sync-<name> (STS RoleSessionName: [\w+=,.@-]{2,64}), which this
// rule always keeps within bounds.
func ValidateScopeName(name string) error {
	if name == "" || len(name) > MaxScopeNameBytes {
		return ErrScopeName
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return ErrScopeName
		}
	}
	return nil
}

// ErrRoleARN is the reason ValidateRoleARN gives; it never quotes the ARN.
var ErrRoleARN = errors.New("must be an IAM role ARN, arn:<partition>:iam::<12-digit account>:role/[<path>/]<name>")

// maxRoleARNBytes is STS AssumeRole's bound on RoleArn (STS API reference,
// AssumeRole: "Length Constraints: Minimum length of 20. Maximum length of
// 2048").
const maxRoleARNBytes = 2048

// ValidateRoleARN reports whether arn is the ARN of an IAM role:
// arn:<partition>:iam::<account>:role/<path><name>, the partition one of
// Partitions, the account 12 digits, the path "/" or "/" printable ASCII
// "/" (IAM's path pattern, IAM API reference "Role": (\u002F)|
// (\u002F[\u0021-\u007E]+\u002F)), the name 1..64 of A-Z a-z 0-9 and
// + = , . @ _ - (IAM's role name pattern [\w+=,.@-]+). The error is
// ErrRoleARN.
func ValidateRoleARN(arn string) error {
	if _, ok := parseRoleARN(arn); !ok {
		return ErrRoleARN
	}
	return nil
}

// RoleARNAccount returns the account id of a valid role ARN
// (ValidateRoleARN), "" for any other text. It is the account of the
// credentials the role gives, so the quota bucket of a scope with a role
// (SPEC §10). Never print it: account ids are never shown.
func RoleARNAccount(arn string) string {
	acct, _ := parseRoleARN(arn)
	return acct
}

func parseRoleARN(arn string) (string, bool) {
	if len(arn) > maxRoleARNBytes {
		return "", false
	}
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "iam" || parts[3] != "" || !digits(parts[4], 12) {
		return "", false
	}
	if _, ok := Partitions[parts[1]]; !ok {
		return "", false
	}
	rest, ok := strings.CutPrefix(parts[5], "role/")
	if !ok {
		return "", false
	}
	path, name := "", rest
	if i := strings.LastIndexByte(rest, '/'); i >= 0 {
		path, name = rest[:i], rest[i+1:]
		if strings.Contains("/"+path+"/", "//") {
			return "", false // an empty path segment: role//name, role/a//name
		}
	}
	for i := 0; i < len(path); i++ {
		if path[i] < 0x21 || path[i] > 0x7e {
			return "", false
		}
	}
	if name == "" || len(name) > 64 {
		return "", false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("+=,.@_-", c) >= 0) {
			return "", false
		}
	}
	return parts[4], true
}

// PrefixesOverlap reports whether two clean secret prefixes (CleanPrefix)
// can name one secret: a secret of a scope is named prefix + "/" + the
// document's path (SecretName), so two prefixes share names exactly when
// they are equal or one is the other followed by "/" (a "/" boundary).
// "prod/app" overlaps "prod/app" and "prod/app/eu"; it does not overlap
// "prod/apps" or "/prod/app" (names are compared byte for byte, as Secrets
// Manager compares them). Two scopes in one (account, Region) whose
// prefixes overlap would each see the other's secrets as foreign or as
// their own to delete, so the configuration is refused (SPEC §10).
func PrefixesOverlap(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}
