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
	}
	bad := []string{
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
	const id = "1234abcd-12ab-34cd-56ef-1234567890ab"
	const keyARN = "arn:aws:kms:us-east-2:111122223333:key/" + id
	const aliasARN = "arn:aws:kms:us-east-2:111122223333:alias/app"
	for _, c := range []struct {
		configured, observed string
		same                 bool
	}{
		{id, id, true},
		{id, keyARN, true},
		{keyARN, id, true},
		{"alias/app", aliasARN, true},
		{aliasARN, aliasARN, true},
		{DefaultKMSAlias, "", true},
		{"alias/app", "", false},
		{"alias/app", id, false}, // unresolvable without KMS: one update stores the configured form
		{id, "5678abcd-12ab-34cd-56ef-1234567890ab", false},
		{"alias/app", "arn:aws:kms:us-east-2:111122223333:alias/other", false},
	} {
		if got := SameKMSKey(c.configured, c.observed); got != c.same {
			t.Errorf("SameKMSKey(%q, %q) = %v, want %v", c.configured, c.observed, got, c.same)
		}
	}
}
