package emulator_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Conformance: KmsKeyId on CreateSecret/UpdateSecret, the re-encryption
// rules of UpdateSecret, and unusable KMS keys, with the real SDK over
// loopback (issue 14 item 6; docs/emulator.md "KMS keys").

const (
	keyA = "1234abcd-12ab-34cd-56ef-1234567890ab"
	keyB = "0987dcba-09fe-87dc-65ba-ab0987654321"
)

func arnKey(id string) string  { return "arn:aws:kms:us-east-1:123456789012:key/" + id }
func arnAlias(a string) string { return "arn:aws:kms:us-east-1:123456789012:" + a }

// addKey registers a key through the control API, as an external test would.
func addKey(t *testing.T, srv *emulatortest.Server, k emulator.KMSKey) emulator.KMSKey {
	t.Helper()
	b, _ := json.Marshal(k)
	code, body := control(t, srv.URL, "POST", "/_emulator/kms/keys", string(b))
	if code != 200 {
		t.Fatalf("add key: %d %s", code, body)
	}
	var out emulator.KMSKey
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func startWithKeys(t *testing.T) (*emulatortest.Server, *secretsmanager.Client) {
	srv, c := start(t)
	addKey(t, srv, emulator.KMSKey{KeyID: keyA, Aliases: []string{"alias/app"}})
	addKey(t, srv, emulator.KMSKey{KeyID: keyB, Aliases: []string{"alias/other"}})
	return srv, c
}

func kmsFaults(fs ...emulator.KMSKeyFault) emulator.Faults { return emulator.Faults{KMSKeyFaults: fs} }

// versionKeys maps version id → KmsKeyIds from ListSecretVersionIds
// (deprecated versions included).
func versionKeys(t *testing.T, c *secretsmanager.Client, id string) map[string][]string {
	t.Helper()
	out := must[*secretsmanager.ListSecretVersionIdsOutput](t)(c.ListSecretVersionIds(ctx, &secretsmanager.ListSecretVersionIdsInput{SecretId: aws.String(id), IncludeDeprecated: aws.Bool(true)}))
	m := map[string][]string{}
	for _, v := range out.Versions {
		m[*v.VersionId] = v.KmsKeyIds
	}
	return m
}

func describe(t *testing.T, c *secretsmanager.Client, id string) *secretsmanager.DescribeSecretOutput {
	t.Helper()
	return must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(id)}))
}

func TestKMS_EveryAcceptedFormIsStoredAsGivenAndEncryptsWithTheKey(t *testing.T) {
	_, c := startWithKeys(t)
	for i, ref := range []string{keyA, arnKey(keyA), "alias/app", arnAlias("alias/app")} {
		name := "f" + pad12(i)
		out := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name), KmsKeyId: aws.String(ref), SecretString: aws.String("v")}))
		if d := describe(t, c, name); d.KmsKeyId == nil || *d.KmsKeyId != ref {
			t.Fatalf("%s: DescribeSecret KmsKeyId %v, want %q as given", ref, d.KmsKeyId, ref)
		}
		if got := versionKeys(t, c, name)[*out.VersionId]; !slices.Equal(got, []string{keyA}) {
			t.Fatalf("%s: version KmsKeyIds %v, want [%s]", ref, got, keyA)
		}
	}
	l := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	if len(l.SecretList) != 4 || l.SecretList[2].KmsKeyId == nil || *l.SecretList[2].KmsKeyId != "alias/app" {
		t.Fatalf("ListSecrets KmsKeyId %+v", l.SecretList)
	}
}

func TestKMS_DefaultKeyIsLeftOutOfDescribeAndListed_AsDefaultEncryptionKey(t *testing.T) {
	srv, c := startWithKeys(t)
	for i, ref := range []*string{nil, aws.String("")} {
		name := "d" + pad12(i)
		out := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name), KmsKeyId: ref, SecretString: aws.String("v")}))
		if d := describe(t, c, name); d.KmsKeyId != nil {
			t.Fatalf("%d: KmsKeyId %q for the AWS managed key by default, want it left out", i, *d.KmsKeyId)
		}
		if got := versionKeys(t, c, name)[*out.VersionId]; !slices.Equal(got, []string{"DefaultEncryptionKey"}) {
			t.Fatalf("%d: version KmsKeyIds %v", i, got)
		}
	}
	l := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	for _, s := range l.SecretList {
		if s.KmsKeyId != nil {
			t.Fatalf("ListSecrets KmsKeyId %q for the default key", *s.KmsKeyId)
		}
	}
	// The managed key named explicitly, in any form, is kept as given (a
	// live probe reported an explicit alias left in DescribeSecret, see
	// docs/emulator.md) and still encrypts with the managed key.
	managedID := srv.Emu.KMSKeys().Keys[0].KeyID // the AWS managed key comes first
	for i, ref := range []string{"alias/aws/secretsmanager", arnAlias("alias/aws/secretsmanager"), managedID, arnKey(managedID)} {
		name := "m" + pad12(i)
		out := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name), KmsKeyId: aws.String(ref), SecretString: aws.String("v")}))
		if d := describe(t, c, name); d.KmsKeyId == nil || *d.KmsKeyId != ref {
			t.Fatalf("%s: KmsKeyId %v, want %q as given", ref, d.KmsKeyId, ref)
		}
		if got := versionKeys(t, c, name)[*out.VersionId]; !slices.Equal(got, []string{"DefaultEncryptionKey"}) {
			t.Fatalf("%s: version KmsKeyIds %v, want the managed key", ref, got)
		}
		must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("d" + pad12(1)), KmsKeyId: aws.String(ref)}))
		if d := describe(t, c, "d"+pad12(1)); d.KmsKeyId == nil || *d.KmsKeyId != ref {
			t.Fatalf("UpdateSecret to %s: KmsKeyId %v, want it as given", ref, d.KmsKeyId)
		}
	}
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("d" + pad12(1)), KmsKeyId: aws.String("")}))
	// UpdateSecret back to "" leaves it out again.
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("d" + pad12(0)), KmsKeyId: aws.String(keyA)}))
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("d" + pad12(0)), KmsKeyId: aws.String("")}))
	if d := describe(t, c, "d"+pad12(0)); d.KmsKeyId != nil {
		t.Fatalf("KmsKeyId %q after UpdateSecret to \"\"", *d.KmsKeyId)
	}
}

func TestKMS_InvalidFormAndUnknownKeyAreInvalidParameter(t *testing.T) {
	srv, c := startWithKeys(t)
	create(t, c, "u", "v")
	cases := []struct{ ref, msg string }{
		{"app", "The operation failed because of an invalid KMS key: Invalid keyId"}, // alias without alias/ (field report)
		{"alias/", "The operation failed because of an invalid KMS key: Invalid keyId"},
		{"alias/bad alias", "The operation failed because of an invalid KMS key: Invalid keyId"},
		{"arn:aws:kms:us-east-1:123456789012:key/not-a-key", "The operation failed because of an invalid KMS key: Invalid keyId"},
		{"arn:aws:kms:us-east-1:123456789012:secret:x", "The operation failed because of an invalid KMS key: Invalid keyId"},
		{"ffffffff-ffff-ffff-ffff-ffffffffffff", "The operation failed because of an invalid KMS key: Key '" + arnKey("ffffffff-ffff-ffff-ffff-ffffffffffff") + "' does not exist"},
		{"alias/missing", "The operation failed because of an invalid KMS key: Alias " + arnAlias("alias/missing") + " is not found."},
		{strings.ToUpper(keyA), "The operation failed because of an invalid KMS key: Key '" + arnKey(strings.ToUpper(keyA)) + "' does not exist"}, // ids match exactly
		// Keys of other accounts or Regions are not modelled: unknown.
		{"arn:aws:kms:us-east-1:210987654321:key/" + keyA, "The operation failed because of an invalid KMS key: Key '" + arnKey(keyA) + "' does not exist"},
		{"arn:aws:kms:eu-west-1:123456789012:alias/app", "The operation failed because of an invalid KMS key: Alias " + arnAlias("alias/app") + " is not found."},
		{"arn:aws-us-gov:kms:us-east-1:123456789012:key/" + keyA, "The operation failed because of an invalid KMS key: Key '" + arnKey(keyA) + "' does not exist"},
	}
	for _, tc := range cases {
		_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("n"), KmsKeyId: aws.String(tc.ref), SecretString: aws.String("v")})
		wantAPIError(t, err, "InvalidParameterException", tc.msg)
		_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("n"), KmsKeyId: aws.String(tc.ref)})
		wantCode(t, err, "InvalidParameterException") // checked without a value too
		_, err = c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("u"), KmsKeyId: aws.String(tc.ref), SecretString: aws.String("v2")})
		wantAPIError(t, err, "InvalidParameterException", tc.msg)
	}
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("n"), KmsKeyId: aws.String("alias/" + strings.Repeat("a", 2043))})
	wantCode(t, err, "ValidationException")
	st := srv.State(t)
	if len(st.Secrets) != 1 || len(st.Secrets[0].Versions) != 1 || st.Secrets[0].KmsKeyID != "" {
		t.Fatalf("rejected calls changed the state: %+v", st.Secrets)
	}
}

func TestUpdateSecret_KeyChangeWithoutValueReencryptsLabelledVersionsAndCreatesNone(t *testing.T) {
	srv, c := startWithKeys(t)
	v1 := *create(t, c, "r", "v1").VersionId
	put := func(v string, tok int, stages ...string) string {
		in := &secretsmanager.PutSecretValueInput{SecretId: aws.String("r"), SecretString: aws.String(v), ClientRequestToken: token(tok)}
		if len(stages) > 0 {
			in.VersionStages = stages
		}
		return *must[*secretsmanager.PutSecretValueOutput](t)(c.PutSecretValue(ctx, in)).VersionId
	}
	v2, v3, v4 := put("v2", 2), put("v3", 3), put("v4", 4, "AWSPENDING")
	// v1 deprecated, v2 AWSPREVIOUS, v3 AWSCURRENT, v4 AWSPENDING.
	before := describe(t, c, "r").VersionIdsToStages
	out := must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("r"), KmsKeyId: aws.String("alias/app")}))
	if out.VersionId != nil {
		t.Fatalf("key change without a value returned VersionId %q", *out.VersionId)
	}
	d := describe(t, c, "r")
	if *d.KmsKeyId != "alias/app" || len(d.VersionIdsToStages) != len(before) {
		t.Fatalf("describe %v %v", *d.KmsKeyId, d.VersionIdsToStages)
	}
	for id, labels := range before {
		if !slices.Equal(d.VersionIdsToStages[id], labels) {
			t.Fatalf("labels of %s moved: %v → %v", id, labels, d.VersionIdsToStages[id])
		}
	}
	if n := len(srv.State(t).Secrets[0].Versions); n != 4 {
		t.Fatalf("%d versions after a key change, want 4", n)
	}
	keys := versionKeys(t, c, "r")
	both := []string{"DefaultEncryptionKey", keyA}
	if !slices.Equal(keys[v1], []string{"DefaultEncryptionKey"}) || !slices.Equal(keys[v2], both) || !slices.Equal(keys[v3], both) || !slices.Equal(keys[v4], both) {
		t.Fatalf("version keys %v", keys)
	}
	// Either key decrypts the labelled versions; the deprecated one needs
	// the previous key.
	srv.SetFaults(t, kmsFaults(emulator.KMSKeyFault{Key: "alias/aws/secretsmanager", State: emulator.KMSAccessDenied}))
	for _, stage := range []string{"AWSCURRENT", "AWSPREVIOUS", "AWSPENDING"} {
		if _, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("r"), VersionStage: aws.String(stage)}); err != nil {
			t.Fatalf("%s with the previous key unusable: %v", stage, err)
		}
	}
	_, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("r"), VersionId: aws.String(v1)})
	wantAPIError(t, err, "AccessDeniedException", "Access to KMS is not allowed")
	srv.SetFaults(t, kmsFaults(emulator.KMSKeyFault{Key: keyA, State: emulator.KMSDisabled}))
	if g, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("r")}); err != nil || *g.SecretString != "v3" {
		t.Fatalf("current with the new key disabled (previous key still decrypts): %v %v", g, err)
	}
}

func TestUpdateSecret_SameKeyAgainOrAliasOfSameKeyAddsNothing(t *testing.T) {
	_, c := startWithKeys(t)
	out := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("s"), KmsKeyId: aws.String(keyA), SecretString: aws.String("v")}))
	for _, ref := range []string{keyA, "alias/app", arnKey(keyA)} {
		must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("s"), KmsKeyId: aws.String(ref)}))
		if got := versionKeys(t, c, "s")[*out.VersionId]; !slices.Equal(got, []string{keyA}) {
			t.Fatalf("after %s: keys %v", ref, got)
		}
		if d := describe(t, c, "s"); *d.KmsKeyId != ref {
			t.Fatalf("KmsKeyId %q, want %q", *d.KmsKeyId, ref)
		}
	}
}

func TestUpdateSecret_DescriptionOnlyCreatesNoVersion(t *testing.T) {
	srv, c := startWithKeys(t)
	create(t, c, "desc", "v")
	out := must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("desc"), Description: aws.String("from git: app/db.yaml")}))
	if out.VersionId != nil {
		t.Fatalf("VersionId %q for a description-only update", *out.VersionId)
	}
	if n := len(srv.State(t).Secrets[0].Versions); n != 1 {
		t.Fatalf("%d versions", n)
	}
	if d := describe(t, c, "desc"); d.Description == nil || *d.Description != "from git: app/db.yaml" {
		t.Fatalf("Description %v", d.Description)
	}
	l := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	if *l.SecretList[0].Description != "from git: app/db.yaml" {
		t.Fatalf("ListSecrets Description %v", l.SecretList[0].Description)
	}
	// 2,048 characters are allowed, counted as characters (not bytes).
	long := strings.Repeat("é", 2048)
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("desc"), Description: aws.String(long)}))
	_, err := c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("desc"), Description: aws.String(long + "é")})
	wantAPIError(t, err, "ValidationException", "1 validation error detected: Value at 'description' failed to satisfy constraint: Member must have length less than or equal to 2048")
}

func TestUpdateSecret_KeyAndValueTogetherEncryptsNewVersionWithNewKeyAndIsIdempotent(t *testing.T) {
	srv, c := startWithKeys(t)
	v1 := *create(t, c, "kv", "v1").VersionId
	in := &secretsmanager.UpdateSecretInput{SecretId: aws.String("kv"), KmsKeyId: aws.String(keyB), SecretString: aws.String("v2"), ClientRequestToken: token(5)}
	out := must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, in))
	if *out.VersionId != *token(5) {
		t.Fatalf("VersionId %v", out.VersionId)
	}
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, in)) // retry: same token, same value
	keys := versionKeys(t, c, "kv")
	if len(keys) != 2 || !slices.Equal(keys[*token(5)], []string{keyB}) || !slices.Equal(keys[v1], []string{"DefaultEncryptionKey", keyB}) {
		t.Fatalf("keys %v", keys)
	}
	if n := len(srv.State(t).Secrets[0].Versions); n != 2 {
		t.Fatalf("%d versions", n)
	}
}

func TestKMSFault_UnusableKeyFailsWritesAndReadsWithTheModelledErrors(t *testing.T) {
	srv, c := startWithKeys(t)
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("k"), KmsKeyId: aws.String("alias/app"), SecretString: aws.String("v1")}))
	create(t, c, "plain", "p")
	for _, tc := range []struct{ state, encCode, encMsg, decCode, decMsg string }{
		{emulator.KMSDisabled, "EncryptionFailure", "Secrets Manager can't encrypt the protected secret text using the provided KMS key. Check that the KMS key is available, enabled, and not in an invalid state.",
			"DecryptionFailure", "Secrets Manager can't decrypt the protected secret text using the provided KMS key."},
		{emulator.KMSPendingDeletion, "EncryptionFailure", "Secrets Manager can't encrypt the protected secret text using the provided KMS key. Check that the KMS key is available, enabled, and not in an invalid state.",
			"DecryptionFailure", "Secrets Manager can't decrypt the protected secret text using the provided KMS key."},
		{emulator.KMSAccessDenied, "AccessDeniedException", "Access to KMS is not allowed", "AccessDeniedException", "Access to KMS is not allowed"},
	} {
		srv.SetFaults(t, kmsFaults(emulator.KMSKeyFault{Key: arnKey(keyA), State: tc.state}))
		_, err := c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("k"), SecretString: aws.String("v2"), ClientRequestToken: token(2)})
		wantAPIError(t, err, tc.encCode, tc.encMsg)
		_, err = c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("k"), SecretString: aws.String("v2")})
		wantAPIError(t, err, tc.encCode, tc.encMsg)
		_, err = c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("plain"), KmsKeyId: aws.String(keyA), SecretString: aws.String("p2")})
		wantAPIError(t, err, tc.encCode, tc.encMsg) // the new value goes under the new key
		_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("new"), KmsKeyId: aws.String(keyA), SecretString: aws.String("v")})
		wantAPIError(t, err, tc.encCode, tc.encMsg)
		_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("k")})
		wantAPIError(t, err, tc.decCode, tc.decMsg)
		b := must[*secretsmanager.BatchGetSecretValueOutput](t)(c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: []string{"k", "plain"}}))
		if len(b.SecretValues) != 1 || *b.SecretValues[0].Name != "plain" || len(b.Errors) != 1 || *b.Errors[0].ErrorCode != tc.decCode || *b.Errors[0].Message != tc.decMsg {
			t.Fatalf("%s: batch %+v", tc.state, b)
		}
		bf := must[*secretsmanager.BatchGetSecretValueOutput](t)(c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{Filters: []types.Filter{{Key: types.FilterNameStringTypeName, Values: []string{"k"}}}}))
		if len(bf.SecretValues) != 0 || len(bf.Errors) != 1 || *bf.Errors[0].ErrorCode != tc.decCode {
			t.Fatalf("%s: batch by filter %+v", tc.state, bf)
		}
		// Metadata needs no key; a secret without a value encrypts nothing.
		describe(t, c, "k")
		must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("empty-" + tc.state), KmsKeyId: aws.String(keyA)}))
	}
	st := srv.State(t)
	for _, s := range st.Secrets {
		if s.Name == "new" || s.Name == "k" && len(s.Versions) != 1 || s.Name == "plain" && (len(s.Versions) != 1 || s.KmsKeyID != "") {
			t.Fatalf("a failed write changed %s: %+v", s.Name, s)
		}
	}
	if f := srv.Stats(t).Faults; f["error:EncryptionFailure"] != 8 || f["error:DecryptionFailure"] != 6 || f["error:AccessDeniedException"] != 7 {
		t.Fatalf("fault counts %v", f)
	}
	srv.SetFaults(t, emulator.Faults{})
	if g, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("k")}); err != nil || *g.SecretString != "v1" {
		t.Fatalf("after the fault is cleared: %v %v", g, err)
	}
}

func TestKMSFault_OnAnAliasFollowsTheAlias(t *testing.T) {
	srv, c := startWithKeys(t)
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("a"), KmsKeyId: aws.String(keyA), SecretString: aws.String("v")}))
	srv.SetFaults(t, kmsFaults(emulator.KMSKeyFault{Key: "alias/app", State: emulator.KMSDisabled}))
	_, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("a")})
	wantCode(t, err, "DecryptionFailure")
	if code, body := control(t, srv.URL, "POST", "/_emulator/kms/aliases", `{"alias_name":"alias/app","target_key_id":"`+keyB+`"}`); code != 200 {
		t.Fatalf("move alias: %d %s", code, body)
	}
	if _, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("a")}); err != nil {
		t.Fatalf("key A no longer behind the faulted alias: %v", err)
	}
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("b"), KmsKeyId: aws.String(keyB), SecretString: aws.String("v")})
	wantCode(t, err, "EncryptionFailure")
}

func TestUpdateSecret_KeyChangeToUnusableKeyIsAcceptedButReencryptsNothing(t *testing.T) {
	srv, c := startWithKeys(t)
	v1 := *must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("x"), KmsKeyId: aws.String(keyA), SecretString: aws.String("v")})).VersionId
	srv.SetFaults(t, kmsFaults(emulator.KMSKeyFault{Key: keyB, State: emulator.KMSAccessDenied}))
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("x"), KmsKeyId: aws.String(keyB)}))
	if got := versionKeys(t, c, "x")[v1]; !slices.Equal(got, []string{keyA}) {
		t.Fatalf("keys %v: re-encrypted under a key without access", got)
	}
	if d := describe(t, c, "x"); *d.KmsKeyId != keyB {
		t.Fatalf("KmsKeyId %q", *d.KmsKeyId)
	}
	if _, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("x")}); err != nil {
		t.Fatalf("the old key still decrypts: %v", err)
	}
	_, err := c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("x"), SecretString: aws.String("v2"), ClientRequestToken: token(3)})
	wantAPIError(t, err, "AccessDeniedException", "Access to KMS is not allowed")
	// Old key unusable too: the versions cannot be decrypted to re-encrypt.
	srv.SetFaults(t, kmsFaults(emulator.KMSKeyFault{Key: keyA, State: emulator.KMSDisabled}))
	must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("x"), KmsKeyId: aws.String("")}))
	if got := versionKeys(t, c, "x")[v1]; !slices.Equal(got, []string{keyA}) {
		t.Fatalf("keys %v: re-encrypted a version no key could decrypt", got)
	}
}

func TestKMSFault_IdempotentReplayNeedsNoKey(t *testing.T) {
	srv, c := startWithKeys(t)
	in := &secretsmanager.CreateSecretInput{Name: aws.String("i"), KmsKeyId: aws.String(keyA), SecretString: aws.String("v"), ClientRequestToken: token(1)}
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, in))
	srv.SetFaults(t, kmsFaults(emulator.KMSKeyFault{Key: keyA, State: emulator.KMSDisabled}))
	if _, err := c.CreateSecret(ctx, in); err != nil {
		t.Fatalf("replay of an applied create: %v", err)
	}
}

func TestKMSControl_RegistryEndpointsAndBadInput(t *testing.T) {
	srv, c := start(t)
	code, body := control(t, srv.URL, "GET", "/_emulator/kms", "")
	var d emulator.KMSDump
	if code != 200 || json.Unmarshal([]byte(body), &d) != nil || len(d.Keys) != 1 || !d.Keys[0].AWSManaged || !slices.Equal(d.Keys[0].Aliases, []string{"alias/aws/secretsmanager"}) {
		t.Fatalf("initial registry %d %s", code, body)
	}
	gen := addKey(t, srv, emulator.KMSKey{Aliases: []string{"alias/gen", "alias/team/x"}})
	if gen.ARN != arnKey(gen.KeyID) || !slices.Equal(gen.Aliases, []string{"alias/gen", "alias/team/x"}) {
		t.Fatalf("generated key %+v", gen)
	}
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("g"), KmsKeyId: aws.String("alias/team/x"), SecretString: aws.String("v")}))
	for _, tc := range []struct{ path, body, want string }{
		{"/_emulator/kms/keys", `{"key_id":"nope"}`, "key_id"},
		{"/_emulator/kms/keys", `{"key_id":"` + keyA + `","aliases":["app"]}`, "alias"},
		{"/_emulator/kms/keys", `{"key_id":"` + keyA + `","aliases":["alias/aws/mine"]}`, "reserved"},
		{"/_emulator/kms/keys", `{"key_id":"` + keyA + `","arn":"x"}`, "output only"},
		{"/_emulator/kms/keys", `{"keyid":"` + keyA + `"}`, "unknown field"},
		{"/_emulator/kms/aliases", `{"alias_name":"alias/x","target_key_id":"` + keyB + `"}`, "not a customer managed key"},
		{"/_emulator/kms/aliases", `{"alias_name":"alias/x","target_key_id":"alias/gen"}`, "not a key id"},
		{"/_emulator/kms/aliases", `{"alias_name":"alias/aws/secretsmanager","target_key_id":"` + gen.KeyID + `"}`, "reserved"},
		{"/_emulator/faults", `{"kms_key_faults":[{"key":"` + keyA + `","state":"melted"}]}`, "state"},
		{"/_emulator/faults", `{"kms_key_faults":[{"key":"app","state":"disabled"}]}`, "key"},
		{"/_emulator/faults", `{"kms_key_faults":[{"state":"disabled"}]}`, "key"},
	} {
		method := "POST"
		if strings.HasSuffix(tc.path, "faults") {
			method = "PUT"
		}
		if code, body := control(t, srv.URL, method, tc.path, tc.body); code != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: %d %s (want 400 mentioning %q)", tc.path, tc.body, code, body, tc.want)
		}
	}
	if code, _ := control(t, srv.URL, "POST", "/_emulator/kms", "{}"); code != 405 {
		t.Errorf("POST /_emulator/kms: %d", code)
	}
	if code, _ := control(t, srv.URL, "GET", "/_emulator/kms/keys", ""); code != 405 {
		t.Errorf("GET /_emulator/kms/keys: %d", code)
	}
	// Faults round-trip; keys survive Reset (they belong to KMS).
	f := kmsFaults(emulator.KMSKeyFault{Key: "alias/gen", State: emulator.KMSPendingDeletion})
	srv.SetFaults(t, f)
	if got := srv.Emu.Faults(); len(got.KMSKeyFaults) != 1 || got.KMSKeyFaults[0] != f.KMSKeyFaults[0] {
		t.Fatalf("faults %+v", got)
	}
	srv.Reset(t)
	if k := srv.Emu.KMSKeys(); len(k.Keys) != 2 || k.Keys[1].KeyID != gen.KeyID {
		t.Fatalf("keys after reset %+v", k)
	}
}

func TestKMS_WithKMSKeysOption(t *testing.T) {
	srv := emulatortest.Start(t, emulator.WithKMSKeys(emulator.KMSKey{KeyID: keyA, Aliases: []string{"alias/opt"}}))
	c := srv.Client(t, noRetry)
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("o"), KmsKeyId: aws.String("alias/opt"), SecretString: aws.String("v")}))
	if st := srv.State(t); st.Secrets[0].KmsKeyID != "alias/opt" || !slices.Equal(st.Secrets[0].Versions[0].KmsKeyIDs, []string{keyA}) {
		t.Fatalf("state %+v", st.Secrets[0])
	}
	defer func() {
		if recover() == nil {
			t.Fatal("WithKMSKeys accepted an invalid key id")
		}
	}()
	emulator.New(emulator.WithKMSKeys(emulator.KMSKey{KeyID: "bad"}))
}
