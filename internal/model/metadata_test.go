package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestValidateTagKey(t *testing.T) {
	for k, want := range map[string]error{
		"team":                    nil,
		"cost-center":             nil,
		"app/env:prod_1.x+y=z@q":  nil,
		"Équipe ünïcode":          nil,
		strings.Repeat("k", 128):  nil,
		"":                        ErrTagKeyEmpty,
		strings.Repeat("k", 129):  ErrTagKeyTooLong,
		"aws:cloudformation:x":    ErrTagKeyReserved,
		"AWS:team":                ErrTagKeyReserved,
		"sops-aws-sync:scope":     ErrTagKeyReserved,
		"Sops-Aws-Sync:mine":      ErrTagKeyReserved,
		"tab\there":               ErrTagKeyCharacter,
		"semi;colon":              ErrTagKeyCharacter,
		"quote\"":                 ErrTagKeyCharacter,
		string([]byte{0xff, 'a'}): ErrTagKeyCharacter,
	} {
		if got := ValidateTagKey(k); !errors.Is(got, want) {
			t.Errorf("ValidateTagKey(%q) = %v, want %v", k, got, want)
		}
	}
}

func TestValidateTagValue(t *testing.T) {
	for v, want := range map[string]error{
		"":                       nil,
		"platform team":          nil,
		strings.Repeat("v", 256): nil,
		strings.Repeat("é", 256): nil, // characters, not bytes
		strings.Repeat("v", 257): ErrTagValueTooLong,
		"new\nline":              ErrTagValueCharacter,
	} {
		if got := ValidateTagValue(v); !errors.Is(got, want) {
			t.Errorf("ValidateTagValue(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestValidateTagsCountLeavesRoomForOwnershipTags(t *testing.T) {
	tags := map[string]string{}
	for i := 0; i < MaxConfiguredTags; i++ {
		tags[fmt.Sprintf("k%02d", i)] = "v"
	}
	if err := ValidateTags(tags); err != nil {
		t.Fatalf("%d tags: %v", len(tags), err)
	}
	tags["one-more"] = "v"
	if err := ValidateTags(tags); !errors.Is(err, ErrTooManyTags) {
		t.Fatalf("%d tags: %v, want ErrTooManyTags", len(tags), err)
	}
	if MaxConfiguredTags+3 != MaxTagsPerSecret {
		t.Fatal("the three ownership tags must fit beside the configured ones")
	}
	if err := ValidateTags(map[string]string{"aws:x": "v"}); !errors.Is(err, ErrTagKeyReserved) {
		t.Fatalf("reserved key in a set: %v", err)
	}
}

func TestValidateDescription(t *testing.T) {
	for d, want := range map[string]error{
		"": nil,
		"Managed by sops-aws-sync from owner/repo; edit the SOPS file, not this secret.": nil,
		"two\nlines\tand tab":     nil,
		strings.Repeat("d", 2048): nil,
		strings.Repeat("d", 2049): ErrDescriptionLong,
		"bell\a":                  ErrDescriptionChar,
		"nul\x00":                 ErrDescriptionChar,
		string([]byte{0xc3}):      ErrDescriptionChar,
	} {
		if got := ValidateDescription(d); !errors.Is(got, want) {
			t.Errorf("ValidateDescription(%q) = %v, want %v", d, got, want)
		}
	}
}

func TestValidateKMSKeyIDForms(t *testing.T) {
	ok := []string{
		"1234abcd-12ab-34cd-56ef-1234567890ab",
		"mrk-1234abcd12ab34cd56ef1234567890ab",
		"arn:aws:kms:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
		"arn:aws-us-gov:kms:us-gov-west-1:111122223333:key/mrk-1234abcd12ab34cd56ef1234567890ab",
		"alias/ExampleAlias",
		"alias/aws/secretsmanager",
		"arn:aws:kms:us-east-2:111122223333:alias/ExampleAlias",
		"arn:aws:kms:us-east-1:123456789012:alias/aws/secretsmanager",
		"arn:aws-cn:kms:cn-north-1:111122223333:alias/app",
		"arn:aws-iso-b:kms:us-isob-east-1:111122223333:alias/app",
		"arn:aws:kms:ap-southeast-5:111122223333:alias/a/b/c",
		"alias/team/app_1-x",
	}
	bad := []string{
		// Partition and Region must be AWS's, and agree.
		"arn:aws-cn:kms:us-east-1:111122223333:alias/app", "arn:aws:kms:cn-north-1:111122223333:alias/app",
		"arn:aws:kms:moon-base-1:111122223333:alias/app", "arn:AWS:kms:us-east-1:111122223333:alias/app",
		"arn:aws:kms:US-EAST-1:111122223333:alias/app", "arn:evil:kms:us-east-1:111122223333:alias/app",
		"arn:aws:kms:us-east:111122223333:alias/app", "arn:aws:kms:us-east-1a:111122223333:alias/app",
		// Key ids are lower case.
		"1234ABCD-12AB-34CD-56EF-1234567890AB", "mrk-1234ABCD12ab34cd56ef1234567890ab",
		"arn:aws:kms:us-east-1:111122223333:key/1234ABCD-12ab-34cd-56ef-1234567890ab",
		// Alias names have no empty part, and only one AWS managed key.
		"alias//", "alias//app", "alias/app/", "alias/a//b", "arn:aws:kms:us-east-1:111122223333:alias//app",
		"alias/aws/s3", "alias/aws/", "arn:aws:kms:us-east-1:111122223333:alias/aws/ebs",
		"", "ExampleAlias", "alias/", "alias/bad alias", "1234abcd", "1234abcd-12ab-34cd-56ef-1234567890az",
		"mrk-1234", "arn:aws:kms:us-east-2:111122223333:key/", "arn:aws:s3:us-east-2:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
		"arn:aws:kms:us-east-2:1111:key/1234abcd-12ab-34cd-56ef-1234567890ab", "arn:aws:kms::111122223333:alias/x",
		"arn:aws:kms:us-east-2:111122223333:secret/x", strings.Repeat("a", 2049),
	}
	for _, id := range ok {
		if err := ValidateKMSKeyID(id); err != nil {
			t.Errorf("ValidateKMSKeyID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range bad {
		if err := ValidateKMSKeyID(id); !errors.Is(err, ErrKMSKeyIDForm) {
			t.Errorf("ValidateKMSKeyID(%q) = %v, want ErrKMSKeyIDForm", id, err)
		}
	}
}

func TestMetadataReasonsNeverQuoteTheValue(t *testing.T) {
	const canary = "CANARY-7f3a"
	for _, err := range []error{
		ValidateTagKey("aws:" + canary), ValidateTagKey(canary + ";"), ValidateTagValue(canary + "\n"),
		ValidateDescription(canary + "\x00"), ValidateKMSKeyID(canary),
	} {
		if err == nil || strings.Contains(err.Error(), canary) {
			t.Fatalf("reason %v: want an error that does not quote the value", err)
		}
	}
}

func FuzzValidateTagKey(f *testing.F) {
	for _, s := range []string{"team", "aws:x", "", "é", "a;b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, k string) {
		err := ValidateTagKey(k)
		if err == nil && (k == "" || strings.HasPrefix(strings.ToLower(k), "aws:") || strings.HasPrefix(strings.ToLower(k), "sops-aws-sync:")) {
			t.Fatalf("accepted %q", k)
		}
		switch err {
		case nil, ErrTagKeyEmpty, ErrTagKeyTooLong, ErrTagKeyReserved, ErrTagKeyCharacter:
		default:
			t.Fatalf("unexpected reason %v", err)
		}
	})
}

func TestSameKMSKey(t *testing.T) {
	const (
		id        = "1234abcd-12ab-34cd-56ef-1234567890ab"
		other     = "5678abcd-12ab-34cd-56ef-1234567890ab"
		secret    = "arn:aws:secretsmanager:us-east-2:111122223333:secret:prod/db-AbCdEf"
		keyARN    = "arn:aws:kms:us-east-2:111122223333:key/" + id
		aliasARN  = "arn:aws:kms:us-east-2:111122223333:alias/app"
		managed   = "arn:aws:kms:us-east-2:111122223333:alias/aws/secretsmanager"
		foreignA  = "arn:aws:kms:eu-west-1:999999999999:alias/app"
		otherAcct = "arn:aws:kms:us-east-2:999999999999:alias/app"
		otherReg  = "arn:aws:kms:eu-west-1:111122223333:alias/app"
		otherPart = "arn:aws-cn:kms:cn-north-1:111122223333:alias/app"
	)
	for _, c := range []struct {
		configured, observed, secret string
		same                         bool
	}{
		{id, id, secret, true},
		{id, keyARN, secret, true},
		{keyARN, id, secret, true},
		{"alias/app", aliasARN, secret, true},
		{aliasARN, "alias/app", secret, true},
		{aliasARN, aliasARN, secret, true},
		{aliasARN, aliasARN, "", true}, // equal strings need no scope
		// The AWS managed key: omitted, its alias name and its alias ARN.
		{DefaultKMSAlias, "", secret, true},
		{DefaultKMSAlias, "", "", true},
		{managed, "", secret, true},
		{managed, DefaultKMSAlias, secret, true},
		{DefaultKMSAlias, managed, secret, true},
		{"arn:aws:kms:eu-west-1:111122223333:alias/aws/secretsmanager", "", secret, false}, // another Region's
		{"arn:aws:kms:us-east-2:999999999999:alias/aws/secretsmanager", "", secret, false}, // another account's
		{managed, "", "", false},                                                           // scope unknown: cannot tell
		// The whole identity, not the last part.
		{foreignA, "alias/app", secret, false},
		{otherAcct, "alias/app", secret, false},
		{otherReg, "alias/app", secret, false},
		{otherPart, "alias/app", secret, false},
		{foreignA, aliasARN, secret, false},
		{"alias/app", foreignA, secret, false},
		{"arn:aws:kms:eu-west-1:999999999999:key/" + id, id, secret, false},
		{aliasARN, "alias/app", "", false}, // scope unknown: cannot tell
		// Cannot be told apart without KMS: counted as different.
		{"alias/app", "", secret, false},
		{"alias/app", id, secret, false},
		{id, "alias/app", secret, false},
		{id, "", secret, false}, // the managed key's own key id, or another key
		{keyARN, "", secret, false},
		{id, other, secret, false},
		{"alias/app", "arn:aws:kms:us-east-2:111122223333:alias/other", secret, false},
		{"alias/App", "alias/app", secret, false},
		{id, strings.ToUpper(id), secret, false},
	} {
		if got := SameKMSKey(c.configured, c.observed, c.secret); got != c.same {
			t.Errorf("SameKMSKey(%q, %q, %q) = %v, want %v", c.configured, c.observed, c.secret, got, c.same)
		}
	}
}

// FuzzSameKMSKey: the comparison is reflexive, symmetric between two
// references that are both given, and never says "same" for a reference
// the form check rejects unless the strings are equal.
func FuzzSameKMSKey(f *testing.F) {
	const secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:a-AbCdEf"
	for _, s := range [][2]string{
		{"alias/app", "arn:aws:kms:us-east-1:123456789012:alias/app"},
		{"arn:aws:kms:eu-west-1:999999999999:alias/app", "alias/app"},
		{"1234abcd-12ab-34cd-56ef-1234567890ab", "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"},
		{DefaultKMSAlias, ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !SameKMSKey(a, a, secret) {
			t.Fatalf("%q is not the same as itself", a)
		}
		if a != "" && b != "" && SameKMSKey(a, b, secret) != SameKMSKey(b, a, secret) {
			t.Fatalf("not symmetric: %q %q", a, b)
		}
		if a != b && SameKMSKey(a, b, secret) && (ValidateKMSKeyID(a) != nil || b != "" && ValidateKMSKeyID(b) != nil) {
			t.Fatalf("%q and %q: an invalid form proven the same", a, b)
		}
	})
}

func TestRegionInPartition(t *testing.T) {
	for _, c := range []struct {
		partition, region string
		ok                bool
	}{
		{"aws", "us-east-1", true}, {"aws", "ap-southeast-5", true}, {"aws", "mx-central-1", true},
		{"aws-cn", "cn-north-1", true}, {"aws-us-gov", "us-gov-west-1", true}, {"aws-iso", "us-iso-east-1", true},
		{"aws-iso-b", "us-isob-east-1", true}, {"aws-iso-e", "eu-isoe-west-1", true}, {"aws-iso-f", "us-isof-south-1", true},
		{"aws-eusc", "eusc-de-east-1", true},
		{"aws", "us-gov-west-1", false}, {"aws", "cn-north-1", false}, {"aws-cn", "us-east-1", false},
		{"aws", "us-iso-east-1", false}, {"aws", "zz-east-1", false}, {"aws", "us-east", false}, {"aws", "us-east-", false},
		{"aws", "us--1", false}, {"aws", "us-East-1", false}, {"aws", "us-east-1a", false}, {"aws", "us-east-1-1", false},
		{"AWS", "us-east-1", false}, {"", "us-east-1", false}, {"evil", "us-east-1", false},
	} {
		if got := RegionInPartition(c.partition, c.region); got != c.ok {
			t.Errorf("RegionInPartition(%q, %q) = %v, want %v", c.partition, c.region, got, c.ok)
		}
	}
}
