package emulator_test

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// Conformance: version stages, GetSecretValue selection, UpdateSecret,
// ListSecretVersionIds, UpdateSecretVersionStage (reference §1, §3).

func put(t *testing.T, c *secretsmanager.Client, id, value string, tok int, stages ...string) *secretsmanager.PutSecretValueOutput {
	t.Helper()
	in := &secretsmanager.PutSecretValueInput{SecretId: aws.String(id), SecretString: aws.String(value), ClientRequestToken: token(tok)}
	if len(stages) > 0 {
		in.VersionStages = stages
	}
	out, err := c.PutSecretValue(ctx, in)
	if err != nil {
		t.Fatalf("put %s: %v", id, err)
	}
	return out
}

func TestStages_CurrentAndPreviousMoveOnEachNewVersion(t *testing.T) {
	_, c := start(t)
	v1 := *create(t, c, "s", "1").VersionId
	v2 := *put(t, c, "s", "2", 2).VersionId
	v3 := *put(t, c, "s", "3", 3).VersionId
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("s")}))
	want := map[string][]string{v3: {"AWSCURRENT"}, v2: {"AWSPREVIOUS"}}
	if len(d.VersionIdsToStages) != 2 || !slices.Equal(d.VersionIdsToStages[v3], want[v3]) || !slices.Equal(d.VersionIdsToStages[v2], want[v2]) {
		t.Fatalf("VersionIdsToStages %v, want %v (v1 %s deprecated)", d.VersionIdsToStages, want, v1)
	}
	l := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
	if len(l.SecretList) != 1 || len(l.SecretList[0].SecretVersionsToStages) != 2 || !slices.Equal(l.SecretList[0].SecretVersionsToStages[v3], want[v3]) {
		t.Fatalf("SecretVersionsToStages %v", l.SecretList[0].SecretVersionsToStages)
	}
	ids := must[*secretsmanager.ListSecretVersionIdsOutput](t)(c.ListSecretVersionIds(ctx, &secretsmanager.ListSecretVersionIdsInput{SecretId: aws.String("s")}))
	if len(ids.Versions) != 2 {
		t.Fatalf("versions without deprecated: %d", len(ids.Versions))
	}
	ids = must[*secretsmanager.ListSecretVersionIdsOutput](t)(c.ListSecretVersionIds(ctx, &secretsmanager.ListSecretVersionIdsInput{SecretId: aws.String("s"), IncludeDeprecated: aws.Bool(true)}))
	if len(ids.Versions) != 3 || *ids.Versions[2].VersionId != v1 || len(ids.Versions[2].VersionStages) != 0 {
		t.Fatalf("versions with deprecated: %+v", ids.Versions)
	}
}

func TestStages_PutWithPendingStageLeavesCurrent(t *testing.T) {
	_, c := start(t)
	v1 := *create(t, c, "s", "1").VersionId
	out := put(t, c, "s", "2", 2, "AWSPENDING")
	if !slices.Equal(out.VersionStages, []string{"AWSPENDING"}) {
		t.Fatalf("stages %v", out.VersionStages)
	}
	g := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("s")}))
	if *g.VersionId != v1 || *g.SecretString != "1" {
		t.Fatalf("current moved: %s", *g.VersionId)
	}
	g = must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("s"), VersionStage: aws.String("AWSPENDING")}))
	if *g.SecretString != "2" {
		t.Fatalf("pending value %q", *g.SecretString)
	}
}

func TestGetSecretValue_ByVersionIdAndStage(t *testing.T) {
	_, c := start(t)
	v1 := *create(t, c, "g", "1").VersionId
	v2 := *put(t, c, "g", "2", 2).VersionId
	g := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("g"), VersionId: aws.String(v1)}))
	if *g.SecretString != "1" || !slices.Equal(g.VersionStages, []string{"AWSPREVIOUS"}) || g.CreatedDate == nil {
		t.Fatalf("by id %+v", g)
	}
	g = must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("g"), VersionStage: aws.String("AWSPREVIOUS")}))
	if *g.VersionId != v1 {
		t.Fatalf("by stage %s", *g.VersionId)
	}
	g = must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("g"), VersionId: aws.String(v2), VersionStage: aws.String("AWSCURRENT")}))
	if *g.SecretString != "2" {
		t.Fatalf("both %+v", g)
	}
	_, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("g"), VersionId: aws.String(v1), VersionStage: aws.String("AWSCURRENT")})
	wantAPIError(t, err, "InvalidRequestException", "You provided a VersionStage that is not associated to the provided VersionId.")
	_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("g"), VersionId: token(99)})
	wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret value for VersionId: "+*token(99))
	_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("g"), VersionStage: aws.String("AWSPENDING")})
	wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret value for staging label: AWSPENDING")
	_, err = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("missing")})
	wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
}

func TestGetSecretValue_BinaryRoundTripsAsBase64(t *testing.T) {
	_, c := start(t)
	val := []byte{0, 1, 2, 0xff, '=', '\n'}
	must[*secretsmanager.CreateSecretOutput](t)(c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("b"), SecretBinary: val}))
	g := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("b")}))
	if !slices.Equal(g.SecretBinary, val) || g.SecretString != nil {
		t.Fatalf("binary %v string %v", g.SecretBinary, g.SecretString)
	}
}

func TestGetSecretValue_SetsLastAccessedDateAtDayResolution(t *testing.T) {
	srv, c := start(t)
	create(t, c, "a", "v")
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("a")}))
	if d.LastAccessedDate != nil {
		t.Fatalf("LastAccessedDate before any read: %v", d.LastAccessedDate)
	}
	must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("a")}))
	d = must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("a")}))
	want := srv.Emu.Now().UTC().Truncate(24 * 60 * 60 * 1e9)
	if d.LastAccessedDate == nil || !d.LastAccessedDate.Equal(want) {
		t.Fatalf("LastAccessedDate %v, want %v", d.LastAccessedDate, want)
	}
}

func TestUpdateSecret_MetadataOnlyCreatesNoVersion(t *testing.T) {
	srv, c := start(t)
	create(t, c, "u", "v1")
	out := must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("u"), Description: aws.String("Hello")}))
	if out.VersionId != nil {
		t.Fatalf("VersionId %v for a metadata-only update", *out.VersionId)
	}
	st := srv.State(t)
	if len(st.Secrets[0].Versions) != 1 || st.Secrets[0].Description != "Hello" {
		t.Fatalf("state %+v", st.Secrets[0])
	}
	out = must[*secretsmanager.UpdateSecretOutput](t)(c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("u"), SecretString: aws.String("v2")}))
	g := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("u")}))
	if out.VersionId == nil || *g.VersionId != *out.VersionId || *g.SecretString != "v2" {
		t.Fatalf("update with value: %+v / %+v", out, g)
	}
	_, err := c.UpdateSecret(ctx, &secretsmanager.UpdateSecretInput{SecretId: aws.String("nope"), SecretString: aws.String("v")})
	wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
}

func TestPutSecretValue_NeverCreatesASecret(t *testing.T) {
	srv, c := start(t)
	_, err := c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("new"), SecretString: aws.String("v")})
	wantAPIError(t, err, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
	if n := len(srv.State(t).Secrets); n != 0 {
		t.Fatalf("%d secrets", n)
	}
}

func TestUpdateSecretVersionStage_MovingCurrentNeedsRemoveFromVersionId(t *testing.T) {
	_, c := start(t)
	v1 := *create(t, c, "m", "1").VersionId
	v2 := *put(t, c, "m", "2", 2, "AWSPENDING").VersionId
	_, err := c.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{SecretId: aws.String("m"), VersionStage: aws.String("AWSCURRENT"), MoveToVersionId: aws.String(v2)})
	wantAPIError(t, err, "InvalidParameterException", "The parameter RemoveFromVersionId can't be empty. Staging label AWSCURRENT is currently attached to version "+v1+", so you must explicitly reference that version in RemoveFromVersionId.")
	must[*secretsmanager.UpdateSecretVersionStageOutput](t)(c.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{SecretId: aws.String("m"), VersionStage: aws.String("AWSCURRENT"), MoveToVersionId: aws.String(v2), RemoveFromVersionId: aws.String(v1)}))
	d := must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("m")}))
	got := slices.Clone(d.VersionIdsToStages[v2])
	slices.Sort(got)
	if !slices.Equal(got, []string{"AWSCURRENT", "AWSPENDING"}) || !slices.Equal(d.VersionIdsToStages[v1], []string{"AWSPREVIOUS"}) {
		t.Fatalf("stages after move %v", d.VersionIdsToStages)
	}
	// Removing a custom label detaches it.
	must[*secretsmanager.UpdateSecretVersionStageOutput](t)(c.UpdateSecretVersionStage(ctx, &secretsmanager.UpdateSecretVersionStageInput{SecretId: aws.String("m"), VersionStage: aws.String("AWSPENDING"), RemoveFromVersionId: aws.String(v2)}))
	d = must[*secretsmanager.DescribeSecretOutput](t)(c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("m")}))
	if !slices.Equal(d.VersionIdsToStages[v2], []string{"AWSCURRENT"}) {
		t.Fatalf("after removing AWSPENDING %v", d.VersionIdsToStages)
	}
}

func TestListSecretVersionIds_Paginates(t *testing.T) {
	_, c := start(t)
	create(t, c, "p", "0")
	for i := 1; i <= 4; i++ {
		put(t, c, "p", "v", 100+i, "L"+pad12(i))
	}
	var seen []string
	pg := secretsmanager.NewListSecretVersionIdsPaginator(c, &secretsmanager.ListSecretVersionIdsInput{SecretId: aws.String("p"), MaxResults: aws.Int32(2)})
	for pg.HasMorePages() {
		out := must[*secretsmanager.ListSecretVersionIdsOutput](t)(pg.NextPage(ctx))
		for _, v := range out.Versions {
			seen = append(seen, *v.VersionId)
		}
	}
	if len(seen) != 5 {
		t.Fatalf("paged %d versions: %v", len(seen), seen)
	}
	_, err := c.ListSecretVersionIds(ctx, &secretsmanager.ListSecretVersionIdsInput{SecretId: aws.String("p"), NextToken: aws.String("garbage!")})
	wantCode(t, err, "InvalidNextTokenException")
	var _ types.SecretVersionsListEntry
}
