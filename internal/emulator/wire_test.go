package emulator_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Conformance: the awsJson1_1 wire protocol itself (reference §7), checked
// with raw HTTP where the SDK would hide the difference.

func raw(t *testing.T, url, target, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", b, err)
	}
	return resp.StatusCode, resp.Header, m
}

func TestWire_ErrorBodyIsTypeAndMessageWithStatus400(t *testing.T) {
	srv := emulatortest.Start(t)
	status, h, m := raw(t, srv.URL, "secretsmanager.DescribeSecret", `{"SecretId":"nope"}`)
	if status != 400 || m["__type"] != "ResourceNotFoundException" || m["Message"] != "Secrets Manager can't find the specified secret." {
		t.Fatalf("status %d body %v", status, m)
	}
	if h.Get("Content-Type") != "application/x-amz-json-1.1" || h.Get("X-Amzn-Requestid") == "" {
		t.Fatalf("headers %v", h)
	}
}

func TestWire_TimestampsAreEpochSecondNumbers(t *testing.T) {
	srv := emulatortest.Start(t)
	tok := *token(1)
	if status, _, m := raw(t, srv.URL, "secretsmanager.CreateSecret", `{"Name":"n","SecretString":"v","ClientRequestToken":"`+tok+`"}`); status != 200 || m["VersionId"] != tok {
		t.Fatalf("create %d %v", status, m)
	}
	_, _, m := raw(t, srv.URL, "secretsmanager.DescribeSecret", `{"SecretId":"n"}`)
	cd, ok := m["CreatedDate"].(float64)
	if !ok || cd < 1e9 || cd > 1e11 {
		t.Fatalf("CreatedDate %#v is not epoch seconds", m["CreatedDate"])
	}
	for _, absent := range []string{"DeletedDate", "KmsKeyId", "RotationEnabled", "Description", "Tags", "LastAccessedDate"} {
		if _, present := m[absent]; present {
			t.Fatalf("%s present without a value: %v", absent, m)
		}
	}
}

func TestWire_SecretBinaryIsStandardBase64(t *testing.T) {
	srv := emulatortest.Start(t)
	raw(t, srv.URL, "secretsmanager.CreateSecret", `{"Name":"b","SecretBinary":"AAEC/w==","ClientRequestToken":"`+*token(1)+`"}`)
	_, _, m := raw(t, srv.URL, "secretsmanager.GetSecretValue", `{"SecretId":"b"}`)
	if m["SecretBinary"] != "AAEC/w==" {
		t.Fatalf("SecretBinary %v", m["SecretBinary"])
	}
	if st := srv.State(t); string(st.Secrets[0].Versions[0].SecretBinary) != "\x00\x01\x02\xff" {
		t.Fatalf("stored %v", st.Secrets[0].Versions[0].SecretBinary)
	}
}

func TestWire_PutSecretValueWithoutTokenNeedsOne(t *testing.T) {
	srv := emulatortest.Start(t)
	raw(t, srv.URL, "secretsmanager.CreateSecret", `{"Name":"n","ClientRequestToken":"`+*token(1)+`"}`)
	status, _, m := raw(t, srv.URL, "secretsmanager.PutSecretValue", `{"SecretId":"n","SecretString":"v"}`)
	if status != 400 || m["__type"] != "InvalidRequestException" || m["Message"] != "You must provide a ClientRequestToken value. We recommend a UUID-type value." {
		t.Fatalf("%d %v", status, m)
	}
}

func TestWire_UnknownOperationAndMalformedBody(t *testing.T) {
	srv := emulatortest.Start(t)
	for _, tc := range []struct{ target, body, code string }{
		{"secretsmanager.RotateSecret", `{}`, "UnknownOperationException"},
		{"", `{}`, "UnknownOperationException"},
		{"kms.Decrypt", `{}`, "UnknownOperationException"},
		{"secretsmanager.CreateSecret", `{"Name":`, "SerializationException"},
		{"secretsmanager.CreateSecret", `[1,2]`, "SerializationException"},
		{"secretsmanager.DeleteSecret", `{"SecretId":"a","RecoveryWindowInDays":"7"}`, "SerializationException"},
		{"secretsmanager.CreateSecret", `{"Name":"x","SecretBinary":"not base64!"}`, "SerializationException"},
		{"secretsmanager.DescribeSecret", `{}`, "ValidationException"},
	} {
		status, _, m := raw(t, srv.URL, tc.target, tc.body)
		if status != 400 || m["__type"] != tc.code {
			t.Fatalf("%s %s: %d %v", tc.target, tc.body, status, m)
		}
	}
}

func TestWire_SDKReachesEmulatorThroughEndpointEnvVar(t *testing.T) {
	srv := emulatortest.Start(t)
	t.Setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", srv.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", "eu-central-1")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := secretsmanager.NewFromConfig(cfg)
	if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("env"), SecretString: aws.String("v")}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.State(t).Secrets); n != 1 {
		t.Fatalf("secret not created through the env endpoint: %d", n)
	}
}

// TestRegression_UnmodelledOperationIsNotCalledMisaddressed: issue 44 §4.
// RotateSecret sent by the real SDK (the right X-Amz-Target) was answered
// "does not serve this request; send POST with X-Amz-Target…", as if the
// request had been addressed wrong. An operation of a served service that
// is not modelled is said to be so; RotateSecret's message points to the
// rotation control calls; a request that is not POST or names no served
// service keeps the old advice.
func TestRegression_UnmodelledOperationIsNotCalledMisaddressed(t *testing.T) {
	srv, c := start(t)
	_, err := c.RotateSecret(ctx, &secretsmanager.RotateSecretInput{SecretId: aws.String("db")}, noRetry)
	wantAPIError(t, err, "UnknownOperationException", "the emulator does not model the operation secretsmanager.RotateSecret "+
		"(the operations it serves: docs/emulator.md); rehearse a rotation with the control API instead: "+
		"POST /_emulator/conditions with rotation_enabled, then POST /_emulator/rotation, one call per step (create, set, test, finish)")
	for target, want := range map[string]string{
		"secretsmanager.GetRandomPassword": "the emulator does not model the operation secretsmanager.GetRandomPassword (the operations it serves: docs/emulator.md)",
		"AmazonSSM.SendCommand":            "the emulator does not model the operation AmazonSSM.SendCommand (the operations it serves: docs/emulator.md)",
		"kms.Decrypt":                      "the emulator does not serve this request; send POST with X-Amz-Target: secretsmanager.<Operation> or AmazonSSM.<Operation>",
		"secretsmanager.":                  "the emulator does not serve this request; send POST with X-Amz-Target: secretsmanager.<Operation> or AmazonSSM.<Operation>",
	} {
		status, _, m := raw(t, srv.URL, target, `{}`)
		if status != 400 || m["__type"] != "UnknownOperationException" || m["Message"] != want {
			t.Errorf("%s: %d %v, want UnknownOperationException %q", target, status, m, want)
		}
	}
}
