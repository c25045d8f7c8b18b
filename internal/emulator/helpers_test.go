package emulator_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

var ctx = context.Background()

// token32 returns a 36-character ClientRequestToken that differs by n.
func token(n int) *string {
	return aws.String("00000000-0000-4000-8000-" + pad12(n))
}

func pad12(n int) string {
	s := []byte("000000000000")
	for i := len(s) - 1; i >= 0 && n > 0; i-- {
		s[i] = byte('0' + n%10)
		n /= 10
	}
	return string(s)
}

// noRetry makes the SDK send exactly one attempt.
func noRetry(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 }

// wantAPIError fails unless err is an API error with exactly this code and
// message.
func wantAPIError(t *testing.T, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want %s %q, got non-API error %v", code, msg, err)
	}
	if ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Fatalf("want %s %q\n got %s %q", code, msg, ae.ErrorCode(), ae.ErrorMessage())
	}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code {
		t.Fatalf("want error code %s, got %v", code, err)
	}
}

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func start(t *testing.T) (*emulatortest.Server, *secretsmanager.Client) {
	srv := emulatortest.Start(t)
	return srv, srv.Client(t, noRetry)
}

func create(t *testing.T, c *secretsmanager.Client, name, value string) *secretsmanager.CreateSecretOutput {
	t.Helper()
	out, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: aws.String(value)})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return out
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

type condT = emulator.Conditions

func conditions(name string, f func(*condT)) emulator.Conditions {
	c := emulator.Conditions{Name: name}
	f(&c)
	return c
}

type staticCreds struct{}

func (staticCreds) Retrieve(context.Context) (aws.Credentials, error) {
	return aws.Credentials{AccessKeyID: "AKIDBENCH", SecretAccessKey: "secret", Source: "bench"}, nil
}
