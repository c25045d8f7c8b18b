package emulator_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// Conformance: tag limits and rules (reference §5; model TagKeyType 1..128,
// TagValueType 0..256 characters; issue 14 item 6), real SDK over loopback.

func tg(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }

func tagMap(t *testing.T, c *secretsmanager.Client, id string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, x := range describe(t, c, id).Tags {
		m[*x.Key] = *x.Value
	}
	return m
}

func tagResource(c *secretsmanager.Client, id string, tags ...types.Tag) error {
	_, err := c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String(id), Tags: tags})
	return err
}

// Regression: tag lengths were counted in UTF-8 bytes, so a 128-character
// key of non-ASCII letters was refused.
func TestRegression_TagLengthsCountCharactersNotBytes(t *testing.T) {
	_, c := start(t)
	create(t, c, "len", "v")
	key, val := strings.Repeat("é", 128), strings.Repeat("日", 256) // 256 and 768 bytes
	if err := tagResource(c, "len", tg(key, val), tg("empty", "")); err != nil {
		t.Fatalf("128-character key, 256-character value, empty value: %v", err)
	}
	if m := tagMap(t, c, "len"); m[key] != val || m["empty"] != "" || len(m) != 2 {
		t.Fatalf("tags %v", m)
	}
	err := tagResource(c, "len", tg(key+"é", "v"))
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value at 'tags.member.key' failed to satisfy constraint: Member must have length less than or equal to 128")
	err = tagResource(c, "len", tg("k", val+"日"))
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value at 'tags.member.value' failed to satisfy constraint: Member must have length less than or equal to 256")
	err = tagResource(c, "len", tg("", "v"))
	wantCode(t, err, "ValidationException")
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("c"), Tags: []types.Tag{tg(key+"é", "v")}})
	wantCode(t, err, "ValidationException")
	_, err = c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("len"), TagKeys: []string{key + "é"}})
	wantCode(t, err, "ValidationException")
	_, err = c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("len"), TagKeys: []string{""}})
	wantCode(t, err, "ValidationException")
}

func TestTags_AWSPrefixIsReservedInAnyCaseForKeysOnly(t *testing.T) {
	srv, c := start(t)
	create(t, c, "r", "v")
	for _, k := range []string{"aws:owner", "AWS:owner", "Aws:cost", "aWs:"} {
		err := tagResource(c, "r", tg("ok", "1"), tg(k, "x"))
		wantAPIError(t, err, "InvalidParameterException", "Invalid tag key: the aws: prefix is reserved for AWS use.")
		_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("n"), SecretString: aws.String("v"), Tags: []types.Tag{tg(k, "x")}})
		wantAPIError(t, err, "InvalidParameterException", "Invalid tag key: the aws: prefix is reserved for AWS use.")
		_, err = c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("r"), TagKeys: []string{k}})
		wantAPIError(t, err, "InvalidParameterException", "Invalid tag key: the aws: prefix is reserved for AWS use.")
	}
	if m := tagMap(t, c, "r"); len(m) != 0 {
		t.Fatalf("a rejected TagResource applied part of its tags: %v", m)
	}
	if len(srv.State(t).Secrets) != 1 {
		t.Fatal("a CreateSecret with a reserved tag key created a secret")
	}
	// Only the prefix of a key is reserved: a value, or aws inside a key, is fine.
	if err := tagResource(c, "r", tg("owner", "aws:team"), tg("x-aws:y", "v"), tg("aws", "v")); err != nil {
		t.Fatalf("aws: in a value or inside a key: %v", err)
	}
}

func TestTags_FiftyLimitCountsTheMergedSetAndOverwritesDoNotCount(t *testing.T) {
	srv, c := start(t)
	create(t, c, "fifty", "v")
	tags := make([]types.Tag, 49)
	for i := range tags {
		tags[i] = tg("k"+pad12(i), "v")
	}
	if err := tagResource(c, "fifty", tags...); err != nil {
		t.Fatal(err)
	}
	err := tagResource(c, "fifty", tg("new1", "v"), tg("new2", "v"))
	wantAPIError(t, err, "InvalidParameterException", "Too many tags: a secret can have at most 50 tags.")
	if n := len(srv.State(t).Secrets[0].Tags); n != 49 {
		t.Fatalf("%d tags after a rejected TagResource, want 49", n)
	}
	// The 50th tag and an overwrite of an existing key in one call: 50 tags.
	if err := tagResource(c, "fifty", tg("new1", "v"), tg("k"+pad12(0), "changed")); err != nil {
		t.Fatalf("50th tag plus an overwrite: %v", err)
	}
	if m := tagMap(t, c, "fifty"); len(m) != 50 || m["k"+pad12(0)] != "changed" {
		t.Fatalf("%d tags, k0=%q", len(m), m["k"+pad12(0)])
	}
	// Removing an absent key is no error; removing one makes room.
	must[*secretsmanager.UntagResourceOutput](t)(c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("fifty"), TagKeys: []string{"absent", "new1"}}))
	if err := tagResource(c, "fifty", tg("new2", "v")); err != nil {
		t.Fatalf("after untag: %v", err)
	}
}

func TestTags_DuplicateKeyInOneRequestKeepsTheLastValueAndKeysAreCaseSensitive(t *testing.T) {
	_, c := start(t)
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("dup"), SecretString: aws.String("v"),
		Tags: []types.Tag{tg("team", "a"), tg("team", "b"), tg("Team", "c")}}))
	if m := tagMap(t, c, "dup"); len(m) != 2 || m["team"] != "b" || m["Team"] != "c" {
		t.Fatalf("tags %v", m)
	}
	if err := tagResource(c, "dup", tg("TEAM", "d"), tg("team", "e"), tg("team", "f")); err != nil {
		t.Fatal(err)
	}
	if m := tagMap(t, c, "dup"); len(m) != 3 || m["team"] != "f" || m["TEAM"] != "d" || m["Team"] != "c" {
		t.Fatalf("tags %v", m)
	}
	must[*secretsmanager.UntagResourceOutput](t)(c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("dup"), TagKeys: []string{"team"}}))
	if m := tagMap(t, c, "dup"); len(m) != 2 || m["Team"] != "c" {
		t.Fatalf("untag of team removed other cases: %v", m)
	}
}

func TestTags_CharacterSetIsNotEnforcedByTheModel(t *testing.T) {
	_, c := start(t)
	create(t, c, "chars", "v")
	// The model has no pattern for Secrets Manager tags; the docs call
	// letters, digits, spaces and + - = . _ : / @ "generally allowed"
	// across services. The emulator accepts any characters (docs/emulator.md).
	if err := tagResource(c, "chars", tg("cost center #1", "ünïcode & more"), tg("a/b:c=d+e-f.g_h@i", "")); err != nil {
		t.Fatalf("tags outside the generally allowed set: %v", err)
	}
}

func TestTags_UpdateSecretDoesNotTouchTagsAndCreateSetsThemAtomically(t *testing.T) {
	srv, c := startWithKeys(t)
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("all"), SecretString: aws.String("v"),
		KmsKeyId: aws.String("alias/app"), Description: aws.String("d"), Tags: []types.Tag{tg("owner", "x")}}))
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("all"), Description: aws.String("d2"), KmsKeyId: aws.String(keyB)}))
	s := srv.State(t).Secrets[0]
	if s.Description != "d2" || s.KmsKeyID != keyB || len(s.Tags) != 1 || s.Tags["owner"] != "x" || len(s.Versions) != 1 {
		t.Fatalf("state %+v", s)
	}
	// A CreateSecret rejected for its key leaves nothing behind.
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("none"), SecretString: aws.String("v"), KmsKeyId: aws.String("alias/missing"), Tags: []types.Tag{tg("owner", "x")}})
	wantCode(t, err, "InvalidParameterException")
	if len(srv.State(t).Secrets) != 1 {
		t.Fatal("rejected create left a secret")
	}
}
