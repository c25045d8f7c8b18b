package awssm_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

func create(t *testing.T, c *secretsmanager.Client, name, value string, tags map[string]string) string {
	t.Helper()
	in := &secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: aws.String(value)}
	for k, v := range tags {
		in.Tags = append(in.Tags, types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := c.CreateSecret(context.Background(), in)
	if err != nil {
		t.Fatalf("seed create: %v", err)
	}
	return aws.ToString(out.ARN)
}
