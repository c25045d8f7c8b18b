package decryptor

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/keyservice"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

const (
	// testRecipient is the recipient of the fixtures' age key
	// (testdata/keys/age-test.txt).
	testRecipient = "age1eepekhjxqh9v4g5c8uzah2q5qhqrdredw7jw395e0s73rc88r92qy36peg"
	kmsARN        = "arn:aws:kms:eu-west-2:111122223333:key/6a3c1d52-4c8e-4a51-9d0e-2f7b8e1c5a90"
	kmsMasked     = "arn:aws:kms:eu-west-2:************:key/6a3c1d52-4c8e-4a51-9d0e-2f7b8e1c5a90"
	// providerCanary is text an AWS endpoint answers with: it must never
	// reach a summary.
	providerCanary = "CANARY-provider-text-8812"
)

// kmsStandIn is a loopback AWS KMS endpoint that answers every request with
// the AWS JSON error code (HTTP 400) and a message holding providerCanary;
// code "" never answers (until the request's context ends).
func kmsStandIn(t *testing.T, code string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code == "" {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"__type":"` + code + `","message":"` + providerCanary + ` arn:aws:iam::111122223333:user/x"}`))
	}))
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ENDPOINT_URL_KMS", srv.URL)
}

func awsCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret-example")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// withKMS is the fixture good.sops.json with an AWS KMS key beside its age
// key: in its one group, or (groups) as a second key group with Shamir
// threshold 2.
func withKMS(t *testing.T, groups bool) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(fixture(t, cur+"/good.sops.json"), &doc); err != nil {
		t.Fatal(err)
	}
	meta := doc["sops"].(map[string]any)
	kms := []any{map[string]any{"arn": kmsARN, "enc": "AQID", "created_at": "2026-11-30T13:39:02Z", "aws_profile": ""}}
	if groups {
		age := meta["age"]
		delete(meta, "age")
		meta["key_groups"] = []any{map[string]any{"age": age}, map[string]any{"kms": kms}}
		meta["shamir_threshold"] = 2
	} else {
		meta["kms"] = kms
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoKeyNamesEveryKeyAndWhyItFailed (SPEC §3.2): a document no key
// opened says, per key group, each master key it lists (age recipient,
// KMS key ARN with the account masked) and why that one failed, and the
// threshold; never the provider's text, the account or the encrypted
// data key. The AWS endpoint is a loopback stand-in; the age identity held
// is another one than the document's.
func TestNoKeyNamesEveryKeyAndWhyItFailed(t *testing.T) {
	fire := func(d time.Duration, f func()) func() bool { go f(); return func() bool { return false } }
	for _, tc := range []struct {
		name   string
		setup  func(t *testing.T)
		allow  string
		after  AfterFunc
		groups bool
		class  string
		want   string
	}{
		{"access denied", func(t *testing.T) { awsCredentials(t); kmsStandIn(t, "AccessDeniedException") }, "", nil, false, diag.DecryptKeyService,
			"1 of 1 key group needed, 0 opened; group 1: AWS KMS " + kmsMasked + " (access denied), age " + testRecipient + " (no identity held)"},
		{"not found", func(t *testing.T) { awsCredentials(t); kmsStandIn(t, "NotFoundException") }, "", nil, false, diag.DecryptKeyService,
			"AWS KMS " + kmsMasked + " (not found or wrong Region)"},
		{"disabled key", func(t *testing.T) { awsCredentials(t); kmsStandIn(t, "DisabledException") }, "", nil, false, diag.DecryptKeyService,
			"AWS KMS " + kmsMasked + " (refused: DisabledException)"},
		{"no answer", func(t *testing.T) { awsCredentials(t); kmsStandIn(t, "") }, "", fire, false, diag.DecryptKeyService,
			"AWS KMS " + kmsMasked + " (no answer)"},
		{"no credentials", func(t *testing.T) {
			t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			kmsStandIn(t, "AccessDeniedException")
		}, "", nil, false, diag.DecryptKeyService, "AWS KMS " + kmsMasked + " (no credentials)"},
		{"skipped", func(t *testing.T) {}, "age", nil, false, diag.DecryptNoKey,
			"1 of 1 key group needed, 0 opened; group 1: AWS KMS " + kmsMasked + " (skipped by --key-services), age " + testRecipient + " (no identity held)"},
		{"two groups", func(t *testing.T) { awsCredentials(t); kmsStandIn(t, "AccessDeniedException") }, "", nil, true, diag.DecryptKeyService,
			"2 of 2 key groups needed, 0 opened; group 1: age " + testRecipient + " (no identity held); group 2: AWS KMS " + kmsMasked + " (access denied)"},
		{"two groups, one skipped", func(t *testing.T) {}, "age", nil, true, diag.DecryptKeyNotAllowed,
			"2 of 2 key groups needed, 0 opened; group 1: age " + testRecipient + " (not tried); group 2: AWS KMS " + kmsMasked + " (skipped by --key-services)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(sopsage.SopsAgeKeyFileEnv, mustAbs(t, filepath.Join(testdata, "keys", "age-other.txt")))
			tc.setup(t)
			allow := defaultAllow
			if tc.allow != "" {
				var err error
				if allow, err = model.ParseKeyServices(tc.allow); err != nil {
					t.Fatal(err)
				}
			}
			d := New(t.Context(), Options{KeyServices: allow, KeyServiceTimeout: time.Hour, AfterFunc: tc.after})
			_, e := d.Decrypt(withKMS(t, tc.groups), model.JSON)
			if e == nil || e.Class != tc.class {
				t.Fatalf("got %v, want %s", e, tc.class)
			}
			if !strings.Contains(e.Summary, tc.want) {
				t.Errorf("summary %q\nlacks %q", e.Summary, tc.want)
			}
			for _, never := range []string{providerCanary, "111122223333", "AQID", "user/x", "-----BEGIN"} {
				if strings.Contains(e.Summary+e.Next, never) {
					t.Errorf("the diagnostic carries %q: %q", never, e.Summary)
				}
			}
		})
	}
}

// TestKeyNameShowsOnlyAPublicIdentifier: an identifier outside the shown
// form (a pull request's author writes the metadata) is not echoed; an
// ARN's account is masked, anything else is left as it is.
func TestKeyNameShowsOnlyAPublicIdentifier(t *testing.T) {
	for in, want := range map[string]string{
		kmsARN:                       kmsMasked,
		"arn:aws:kms:eu-west-2::key": "arn:aws:kms:eu-west-2::key",
		"not-an-arn":                 "not-an-arn",
	} {
		if got := maskAccount(in); got != want {
			t.Errorf("maskAccount(%q) = %q, want %q", in, got, want)
		}
	}
	for _, hostile := range []string{"age1x\nERROR forged record", "age1 `code`", strings.Repeat("a", 300), ""} {
		if got := keyName(ageKey(hostile)); got != "age (identifier not shown)" {
			t.Errorf("keyName(%q) = %q", hostile, got)
		}
	}
}

func ageKey(recipient string) *keyservice.Key {
	return &keyservice.Key{KeyType: &keyservice.Key_AgeKey{AgeKey: &keyservice.AgeKey{Recipient: recipient}}}
}
