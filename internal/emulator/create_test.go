package emulator_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// Conformance: CreateSecret, lookup, idempotency tokens and limits, with the
// real SDK over loopback (reference §1, §2, §5).

func TestCreateSecret_ARNHasSixCharacterSuffixAndVersionIsCurrent(t *testing.T) {
	_, c := start(t)
	out := create(t, c, "app/db", "v1")
	if !regexp.MustCompile(`^arn:aws:secretsmanager:us-east-1:123456789012:secret:app/db-[A-Za-z0-9]{6}$`).MatchString(*out.ARN) {
		t.Fatalf("ARN %q", *out.ARN)
	}
	if *out.Name != "app/db" || out.VersionId == nil || len(*out.VersionId) < 32 {
		t.Fatalf("out %+v", out)
	}
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app/db")}))
	if got := d.VersionIdsToStages[*out.VersionId]; len(got) != 1 || got[0] != "AWSCURRENT" {
		t.Fatalf("VersionIdsToStages %v", d.VersionIdsToStages)
	}
	if d.CreatedDate == nil || d.LastChangedDate == nil || d.DeletedDate != nil || d.KmsKeyId != nil || d.RotationEnabled != nil {
		t.Fatalf("describe fields %+v", d)
	}
}

func TestCreateSecret_WithoutValueHasNoVersion(t *testing.T) {
	_, c := start(t)
	out := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("empty")}))
	if out.VersionId != nil {
		t.Fatalf("VersionId %q for a secret without value", *out.VersionId)
	}
	_, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("empty")})
	wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT")
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("empty")}))
	if len(d.VersionIdsToStages) != 0 {
		t.Fatalf("versions %v", d.VersionIdsToStages)
	}
}

func TestCreateSecret_ExistingNameIsResourceExists(t *testing.T) {
	_, c := start(t)
	create(t, c, "dup", "v1")
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("dup"), SecretString: aws.String("v1")})
	wantAPIError(t, err, "ResourceExistsException", "The operation failed because the secret dup already exists.")
	var re *types.ResourceExistsException
	if !errorsAs(err, &re) {
		t.Fatalf("not the typed ResourceExistsException: %T", err)
	}
}

func TestLookup_ByNameFullARNAndPartialARN(t *testing.T) {
	_, c := start(t)
	out := create(t, c, "svc/key", "v")
	partial := strings.TrimSuffix(*out.ARN, (*out.ARN)[len(*out.ARN)-7:])
	for _, id := range []string{"svc/key", *out.ARN, partial} {
		g, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(id)})
		if err != nil || *g.SecretString != "v" || *g.ARN != *out.ARN {
			t.Fatalf("lookup %q: %v %v", id, g, err)
		}
	}
	for _, id := range []string{"svc/key-XXXXXX", partial + "-ZZZZZZ", "svc/ke", "arn:aws:secretsmanager:us-east-1:123456789012:secret:other"} {
		_, err := c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(id)})
		wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
	}
}

func TestIdempotency_CreateSameTokenSameValueIsNoOp(t *testing.T) {
	srv, c := start(t)
	in := &secretsmanager.CreateSecretInput{Name: aws.String("idem"), SecretString: aws.String("v"), ClientRequestToken: token(1)}
	a := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, in))
	b := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, in))
	if *a.ARN != *b.ARN || *a.VersionId != *b.VersionId || *b.VersionId != *token(1) {
		t.Fatalf("first %v second %v", a, b)
	}
	if st := srv.State(t); len(st.Secrets) != 1 || len(st.Secrets[0].Versions) != 1 {
		t.Fatalf("state %+v", st)
	}
}

func TestIdempotency_CreateSameTokenDifferentValueIsResourceExists(t *testing.T) {
	_, c := start(t)
	a := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("idem"), SecretString: aws.String("v"), ClientRequestToken: token(1)}))
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("idem"), SecretString: aws.String("other"), ClientRequestToken: token(1)})
	wantAPIError(t, err, "ResourceExistsException", "You can't use ClientRequestToken "+*token(1)+" because that value is already in use for a version of secret "+*a.ARN+".")
	// Binary vs string with the same bytes is a different value.
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("idem"), SecretBinary: []byte("v"), ClientRequestToken: token(1)})
	wantCode(t, err, "ResourceExistsException")
}

func TestIdempotency_PutSecretValueSameTokenSameValueIsNoOp(t *testing.T) {
	srv, c := start(t)
	create(t, c, "p", "v1")
	in := &secretsmanager.PutSecretValueInput{SecretId: aws.String("p"), SecretString: aws.String("v2"), ClientRequestToken: token(7)}
	a := must[*secretsmanager.PutSecretValueOutput](t)(c.PutSecretValue(ctx, in))
	b := must[*secretsmanager.PutSecretValueOutput](t)(c.PutSecretValue(ctx, in))
	if *a.VersionId != *token(7) || *b.VersionId != *token(7) || len(b.VersionStages) != 1 || b.VersionStages[0] != "AWSCURRENT" {
		t.Fatalf("first %+v second %+v", a, b)
	}
	if n := len(srv.State(t).Secrets[0].Versions); n != 2 {
		t.Fatalf("versions %d, want 2", n)
	}
	_, err := c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("p"), SecretString: aws.String("v3"), ClientRequestToken: token(7)})
	wantAPIError(t, err, "ResourceExistsException", "You can't use ClientRequestToken "+*token(7)+" because that value is already in use for a version of secret "+*a.ARN+".")
}

func TestIdempotency_UpdateSecretSameTokenSameValueSucceeds(t *testing.T) {
	srv, c := start(t)
	create(t, c, "u", "v1")
	in := &secretsmanager.UpdateSecretInput{SecretId: aws.String("u"), SecretString: aws.String("v2"), ClientRequestToken: token(9)}
	a := must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, in))
	b := must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, in))
	if *a.VersionId != *token(9) || *b.VersionId != *token(9) {
		t.Fatalf("%v %v", a, b)
	}
	if n := len(srv.State(t).Secrets[0].Versions); n != 2 {
		t.Fatalf("versions %d, want 2", n)
	}
	_, err := c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("u"), SecretString: aws.String("v3"), ClientRequestToken: token(9)})
	wantCode(t, err, "ResourceExistsException")
}

func TestIdempotency_TokenLengthMustBe32To64(t *testing.T) {
	_, c := start(t)
	for _, tok := range []string{strings.Repeat("a", 31), strings.Repeat("a", 65)} {
		_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("t"), SecretString: aws.String("v"), ClientRequestToken: aws.String(tok)})
		wantAPIError(t, err, "InvalidParameterException", "ClientRequestToken must be 32-64 characters long.")
	}
	for _, tok := range []string{strings.Repeat("a", 32), strings.Repeat("b", 64)} {
		if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("t" + tok[:1]), SecretString: aws.String("v"), ClientRequestToken: aws.String(tok)}); err != nil {
			t.Fatalf("token of %d: %v", len(tok), err)
		}
	}
}

func TestLimits_NameCharsetAndLength(t *testing.T) {
	_, c := start(t)
	for _, name := range []string{"has space", "semi;colon", "ümlaut", "a#b"} {
		_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name)})
		wantAPIError(t, err, "ValidationException", "Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!")
	}
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(strings.Repeat("n", 513))})
	wantCode(t, err, "ValidationException")
	for _, name := range []string{strings.Repeat("n", 512), "a/b_c+d=e.f@g-h!i"} {
		if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name)}); err != nil {
			t.Fatalf("valid name %q: %v", name[:min(len(name), 20)], err)
		}
	}
}

func TestLimits_ValueSizeAndStringXorBinary(t *testing.T) {
	_, c := start(t)
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("big"), SecretString: aws.String(strings.Repeat("x", 65537))})
	wantCode(t, err, "ValidationException")
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("bigb"), SecretBinary: make([]byte, 65537)})
	wantCode(t, err, "ValidationException")
	if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("max"), SecretString: aws.String(strings.Repeat("x", 65536))}); err != nil {
		t.Fatalf("65536 bytes: %v", err)
	}
	if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("maxb"), SecretBinary: make([]byte, 65536)}); err != nil {
		t.Fatalf("65536 binary bytes: %v", err)
	}
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("both"), SecretString: aws.String("s"), SecretBinary: []byte("b")})
	wantAPIError(t, err, "InvalidParameterException", "You can't specify both a binary secret value and a string secret value in the same secret.")
	_, err = c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("max")})
	wantAPIError(t, err, "InvalidRequestException", "You must provide either SecretString or SecretBinary.")
}

func TestLimits_TagsAndDescription(t *testing.T) {
	_, c := start(t)
	tags := make([]types.Tag, 51)
	for i := range tags {
		tags[i] = types.Tag{Key: aws.String("k" + pad12(i)), Value: aws.String("v")}
	}
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("t"), Tags: tags})
	wantCode(t, err, "InvalidParameterException")
	create(t, c, "t50", "v")
	if _, err := c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("t50"), Tags: tags[:50]}); err != nil {
		t.Fatalf("50 tags: %v", err)
	}
	_, err = c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("t50"), Tags: tags[50:]})
	wantCode(t, err, "InvalidParameterException")
	_, err = c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("t50"), Tags: []types.Tag{{Key: aws.String("aws:owner"), Value: aws.String("x")}}})
	wantCode(t, err, "InvalidParameterException")
	_, err = c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("t50"), TagKeys: []string{"aws:owner"}})
	wantCode(t, err, "InvalidParameterException")
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("d"), Description: aws.String(strings.Repeat("d", 2049))})
	wantCode(t, err, "ValidationException")
	_, err = c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("t50"), Description: aws.String(strings.Repeat("d", 2049))})
	wantCode(t, err, "ValidationException")
}

func TestTagResource_ReplacesValueAndUntagIsIdempotent(t *testing.T) {
	_, c := start(t)
	create(t, c, "tg", "v")
	for _, v := range []string{"one", "two"} {
		must[*secretsmanager.TagResourceOutput](t)(c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("tg"), Tags: []types.Tag{{Key: aws.String("Env"), Value: aws.String(v)}}}))
	}
	must[*secretsmanager.TagResourceOutput](t)(c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("tg"), Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("lower")}}}))
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("tg")}))
	if len(d.Tags) != 2 || *d.Tags[0].Key != "Env" || *d.Tags[0].Value != "two" || *d.Tags[1].Key != "env" {
		t.Fatalf("tags %v", d.Tags)
	}
	for range 2 {
		must[*secretsmanager.UntagResourceOutput](t)(c.UntagResource(ctx, &secretsmanager.UntagResourceInput{SecretId: aws.String("tg"), TagKeys: []string{"Env", "absent"}}))
	}
	d = must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("tg")}))
	if len(d.Tags) != 1 || *d.Tags[0].Key != "env" {
		t.Fatalf("tags after untag %v", d.Tags)
	}
	_, err := c.TagResource(ctx, &secretsmanager.TagResourceInput{SecretId: aws.String("nope"), Tags: []types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}})
	wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
}

func TestCreateSecret_AddReplicaRegionsShowsReplicationStatus(t *testing.T) {
	_, c := start(t)
	out := must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("r"), SecretString: aws.String("v"),
		AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("eu-west-1")}}}))
	if len(out.ReplicationStatus) != 1 || *out.ReplicationStatus[0].Region != "eu-west-1" {
		t.Fatalf("create output %+v", out.ReplicationStatus)
	}
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("r")}))
	if len(d.ReplicationStatus) != 1 || d.PrimaryRegion == nil || *d.PrimaryRegion != "us-east-1" {
		t.Fatalf("describe %+v %v", d.ReplicationStatus, d.PrimaryRegion)
	}
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("bad"), AddReplicaRegions: []types.ReplicaRegionType{{Region: aws.String("Mars")}}})
	wantCode(t, err, "InvalidParameterException")
	// AddReplicaRegionListType has at least one member: a list sent empty
	// is refused (the SDK sends [] for an empty, non-nil slice).
	_, err = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("empty"), SecretString: aws.String("v"), AddReplicaRegions: []types.ReplicaRegionType{}})
	wantCode(t, err, "ValidationException")
}
