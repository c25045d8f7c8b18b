package emulator_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

func TestHarnessSmoke(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	cr, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
		Name: aws.String("app/db"), SecretString: aws.String("v1"),
		Tags: []types.Tag{{Key: aws.String("sops-aws-sync:managed-by"), Value: aws.String("sops-aws-sync")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: cr.ARN})
	if err != nil {
		t.Fatal(err)
	}
	if got := d.VersionIdsToStages[*cr.VersionId]; len(got) != 1 || got[0] != "AWSCURRENT" {
		t.Fatalf("stages %v", d.VersionIdsToStages)
	}
	g, err := c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("app/db")})
	if err != nil || *g.SecretString != "v1" {
		t.Fatalf("get %v %v", g, err)
	}
	l, err := c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{Filters: []types.Filter{{Key: types.FilterNameStringTypeTagKey, Values: []string{"sops-aws-sync:managed-by"}}}})
	if err != nil || len(l.SecretList) != 1 {
		t.Fatalf("list %v %v", l, err)
	}
	if st := srv.State(t); len(st.Secrets) != 1 || *st.Secrets[0].Versions[0].SecretString != "v1" {
		t.Fatalf("state %+v", st)
	}
	if s := srv.Stats(t); s.Calls["CreateSecret"] != 1 {
		t.Fatalf("stats %+v", s)
	}
}
