package model

import (
	"errors"
	"strings"
)

// Parameter tiers (parameter-tier, SPEC §16) and the largest value each
// stores: 4 KB and 8 KB (AWS Systems Manager user guide, "Managing parameter
// tiers"), counted here in bytes of the value as stored, the stricter
// reading. A Standard parameter may become Advanced, never the reverse.
const (
	TierStandard = "standard"
	TierAdvanced = "advanced"

	MaxStandardValueBytes = 4096
	MaxAdvancedValueBytes = 8192
)

// Tiers lists the valid values of parameter-tier, the default first.
var Tiers = []string{TierStandard, TierAdvanced}

// TierLimit is the largest value, in bytes, a parameter of tier stores (0
// for an unknown tier).
func TierLimit(tier string) int {
	if tier == "" {
		return 0
	}
	return TargetParameterStore.ValueLimit(tier)
}

// ValueLimit is the largest value, in bytes, a scope of target stores in
// one write in tier: the target table's (Target.ValueLimit; 65,536 bytes
// for Secrets Manager, the tier's for Parameter Store, "" = standard).
func ValueLimit(target Target, tier string) int { return target.ValueLimit(tier) }

// TierThatFits is the cheapest tier whose limit holds a value of size
// bytes, or "" when none does (the value needs Secrets Manager's 65,536).
func TierThatFits(size int) string {
	for _, t := range Tiers {
		if size <= TierLimit(t) {
			return t
		}
	}
	return ""
}

// ParameterName maps a secret name to its parameter name (SPEC §16): the
// name with one leading "/" (a prefix that already starts with "/" keeps
// its one), so every parameter of a scope lies in the hierarchy under its
// prefix.
func ParameterName(secretName string) string {
	return "/" + strings.TrimPrefix(secretName, "/")
}

// Parameter Store's name rule (SPEC §16; SSM API reference PutParameter,
// "Naming Constraints"): letters, digits, _ . - and / between the levels;
// the first level not beginning with "aws" or "ssm" (any letter case); at
// most 15 levels; and at most 1,011 characters with the ARN's leading part
// arn:PARTITION:ssm:REGION:ACCOUNT:parameter/. The Region may not be known
// before AWS is called (the SDK chain's), so the length rule reserves the
// longest leading part any partition and Region has today:
// MaxParameterNameBytes.
const (
	// MaxParameterLevels is the deepest hierarchy Parameter Store accepts.
	MaxParameterLevels = 15
	// MaxParameterNameBytes is 1,011 less 63, the longest ARN leading
	// part (arn: + a 10-character partition + :ssm: + a 20-character Region
	// + : + 12 digits + :parameter/), less the name's leading "/" that the
	// ARN leaves out.
	MaxParameterNameBytes = 1011 - 63 + 1
	// ParameterNameCharacters lists the characters a parameter name may hold.
	ParameterNameCharacters = "A-Z a-z 0-9 / _ . -"
)

// Reasons returned by ValidateParameterName; they never quote the name.
var (
	ErrParameterCharacter = errors.New("a Parameter Store name holds a character outside " + ParameterNameCharacters + " (the target parameter-store allows fewer characters than a secret name)")
	ErrParameterReserved  = errors.New(`a Parameter Store name's first level begins with "aws" or "ssm" (any letter case), which AWS reserves`)
	ErrParameterDepth     = errors.New("a Parameter Store name has more than 15 levels")
	ErrParameterTooLong   = errors.New("a Parameter Store name is longer than 949 bytes (1,011 with the longest ARN leading part)")
	ErrParameterEmpty     = errors.New("a Parameter Store name has an empty level")
)

// ValidateParameterName reports whether name (a ParameterName: it starts
// with "/") is a name Parameter Store accepts; the error is one of the
// ErrParameter* reasons and never repeats the name.
func ValidateParameterName(name string) error {
	if !strings.HasPrefix(name, "/") || name == "/" || strings.Contains(name, "//") || strings.HasSuffix(name, "/") {
		return ErrParameterEmpty
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/_.-", c) >= 0
		if !ok {
			return ErrParameterCharacter
		}
	}
	first, _, _ := strings.Cut(name[1:], "/")
	if low := strings.ToLower(first); strings.HasPrefix(low, "aws") || strings.HasPrefix(low, "ssm") {
		return ErrParameterReserved
	}
	if strings.Count(name, "/") > MaxParameterLevels {
		return ErrParameterDepth
	}
	if len(name) > MaxParameterNameBytes {
		return ErrParameterTooLong
	}
	return nil
}
