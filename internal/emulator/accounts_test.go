package emulator_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Accounts and Regions: one store and one quota set per (account, Region),
// the Region from the request's SigV4 credential scope, the account from
// its access key.

const (
	keyProd    = "AKIAPRODEXAMPLE00001"
	keyStaging = "AKIASTAGINGEXAMPLE01"
	acctProd   = "111111111111"
	acctStage  = "222222222222"
)

func startAccounts(t *testing.T) *emulatortest.Server {
	t.Helper()
	return emulatortest.Start(t, emulator.WithIAM(emulator.IAM{AccessKeys: map[string]string{
		keyProd:    acctProd,
		keyStaging: "arn:aws:iam::" + acctStage + ":user/ci",
	}}))
}

func TestRegions_AClientInTwoRegionsSeesTwoStores(t *testing.T) {
	srv := emulatortest.Start(t)
	east := srv.ClientIn(t, "us-east-1", keyProd, noRetry)
	west := srv.ClientIn(t, "eu-west-1", keyProd, noRetry)
	a := create(t, east, "app/db", "east")
	b := create(t, west, "app/db", "west") // same name, other Region: no clash
	if !strings.HasPrefix(*a.ARN, "arn:aws:secretsmanager:us-east-1:123456789012:secret:app/db-") ||
		!strings.HasPrefix(*b.ARN, "arn:aws:secretsmanager:eu-west-1:123456789012:secret:app/db-") {
		t.Fatalf("ARNs %s %s", *a.ARN, *b.ARN)
	}
	for c, want := range map[*secretsmanager.Client]string{east: "east", west: "west"} {
		v := must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("app/db")}))
		if *v.SecretString != want {
			t.Fatalf("value %q, want %q", *v.SecretString, want)
		}
		l := must[*secretsmanager.ListSecretsOutput](t)(c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}))
		if len(l.SecretList) != 1 {
			t.Fatalf("list in one Region shows %d secrets", len(l.SecretList))
		}
	}
	// A secret of one Region is not found in the other, by name or ARN.
	create(t, west, "only/west", "w")
	_, err := east.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("only/west")})
	wantCode(t, err, "ResourceNotFoundException")
	_, err = east.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: b.ARN})
	wantCode(t, err, "ResourceNotFoundException")

	st := srv.State(t)
	var where []string
	for _, s := range st.Secrets {
		where = append(where, s.Account+"/"+s.Region+"/"+s.Name)
	}
	if want := []string{"123456789012/us-east-1/app/db", "123456789012/eu-west-1/app/db", "123456789012/eu-west-1/only/west"}; !slices.Equal(where, want) {
		t.Fatalf("state %v, want %v", where, want)
	}
	stats := srv.Stats(t)
	if n := stats.CallsByAccountRegion["123456789012/eu-west-1"]["CreateSecret"]; n != 2 {
		t.Fatalf("eu-west-1 CreateSecret calls %d, want 2 (%v)", n, stats.CallsByAccountRegion)
	}
	if n := stats.Calls["CreateSecret"]; n != 3 {
		t.Fatalf("CreateSecret calls %d, want 3", n)
	}
}

func TestAccounts_TwoAccessKeysMapToTwoAccounts(t *testing.T) {
	srv := startAccounts(t)
	prod := srv.ClientIn(t, "eu-west-1", keyProd, noRetry)
	staging := srv.ClientIn(t, "eu-west-1", keyStaging, noRetry)
	other := srv.ClientIn(t, "eu-west-1", "AKIAUNMAPPEDEXAMPLE1", noRetry)
	p := create(t, prod, "app", "p")
	s := create(t, staging, "app", "s")
	o := create(t, other, "app", "o")
	for arn, acct := range map[string]string{*p.ARN: acctProd, *s.ARN: acctStage, *o.ARN: emulator.DefaultAccountID} {
		if !strings.HasPrefix(arn, "arn:aws:secretsmanager:eu-west-1:"+acct+":secret:app-") {
			t.Fatalf("ARN %s, want account %s", arn, acct)
		}
	}
	v := must[*secretsmanager.GetSecretValueOutput](t)(staging.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("app")}))
	if *v.SecretString != "s" {
		t.Fatalf("staging reads %q", *v.SecretString)
	}
	// Another account's ARN is not found (cross-account access is not modelled).
	_, err := prod.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: s.ARN})
	wantCode(t, err, "ResourceNotFoundException")

	// Conditions reach a secret of another account and Region by its ARN.
	srv.SetConditions(t, emulator.Conditions{Name: *s.ARN, OwningService: aws.String("rds")})
	d := must[*secretsmanager.DescribeSecretOutput](t)(staging.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app")}))
	if aws.ToString(d.OwningService) != "rds" {
		t.Fatalf("conditions by ARN missed: %+v", d.OwningService)
	}
	d = must[*secretsmanager.DescribeSecretOutput](t)(prod.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app")}))
	if d.OwningService != nil {
		t.Fatal("conditions leaked into another account")
	}
	// ... and by name with an explicit account and Region.
	srv.SetConditions(t, emulator.Conditions{Name: "app", Account: acctProd, Region: "eu-west-1", OwningService: aws.String("ecs")})
	d = must[*secretsmanager.DescribeSecretOutput](t)(prod.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("app")}))
	if aws.ToString(d.OwningService) != "ecs" {
		t.Fatal("conditions by account and Region missed")
	}
	// Not there: the default account has no such secret in us-east-1.
	err = srv.Control().SetConditions(ctx, emulator.Conditions{Name: "app", OwningService: aws.String("x")})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("conditions on a missing secret: %v", err)
	}
}

func TestAccounts_QuotasArePerAccountAndRegion(t *testing.T) {
	srv := startAccounts(t)
	srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScales: map[string]float64{"CreateSecret": 0.02}}) // 1/s, burst 1
	a := srv.ClientIn(t, "us-east-1", keyProd, noRetry)
	b := srv.ClientIn(t, "eu-west-1", keyProd, noRetry)
	c := srv.ClientIn(t, "us-east-1", keyStaging, noRetry)
	create(t, a, "one", "v")
	_, err := a.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("two"), SecretString: aws.String("v")})
	wantCode(t, err, "ThrottlingException")
	create(t, b, "one", "v") // another Region: its own bucket
	create(t, c, "one", "v") // another account: its own bucket
	if n := srv.Stats(t).Throttled["CreateSecret"]; n != 1 {
		t.Fatalf("throttled %d, want 1", n)
	}
}

func TestAccounts_IAMControlAPI(t *testing.T) {
	srv := emulatortest.Start(t)
	ctl := srv.Control()
	want := emulator.IAM{AccessKeys: map[string]string{keyProd: acctProd}}
	srv.Control().Must(t).SetIAM(want)
	if got := ctl.Must(t).IAM(); got.AccessKeys[keyProd] != acctProd || len(got.AccessKeys) != 1 {
		t.Fatalf("iam %+v", got)
	}
	out := create(t, srv.ClientIn(t, "us-east-1", keyProd, noRetry), "x", "v")
	if !strings.Contains(*out.ARN, ":"+acctProd+":") {
		t.Fatalf("ARN %s", *out.ARN)
	}
	for _, bad := range []emulator.IAM{
		{AccessKeys: map[string]string{"short": acctProd}},
		{AccessKeys: map[string]string{keyProd: "1234"}},
		{AccessKeys: map[string]string{keyProd: "arn:aws:iam::111111111111:group/x"}},
	} {
		var ce *emulatortest.ControlError
		if err := ctl.SetIAM(ctx, bad); !errorsAs(err, &ce) || ce.Status != 400 {
			t.Fatalf("SetIAM(%+v): %v", bad, err)
		}
	}
	// Unknown fields are refused (a typo never silently does nothing).
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/_emulator/iam", strings.NewReader(`{"access_key":{}}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(b), "unknown field") {
		t.Fatalf("typo: %d %s", resp.StatusCode, b)
	}
	// Reset keeps the identity configuration, empties every Region.
	create(t, srv.ClientIn(t, "ap-south-1", keyProd, noRetry), "y", "v")
	srv.Reset(t)
	if st := srv.State(t); len(st.Secrets) != 0 {
		t.Fatalf("state after reset %+v", st)
	}
	if got := ctl.Must(t).IAM(); got.AccessKeys[keyProd] != acctProd {
		t.Fatal("reset dropped the IAM configuration")
	}
}

// A request without a credential scope (raw HTTP) is served by the default
// account and Region, as before accounts and Regions existed.
func TestRegions_UnsignedRequestUsesTheDefaults(t *testing.T) {
	srv := emulatortest.Start(t, emulator.WithRegion("eu-north-1"), emulator.WithAccountID("333333333333"))
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/", strings.NewReader(`{"Name":"raw","SecretString":"v"}`))
	req.Header.Set("X-Amz-Target", "secretsmanager.CreateSecret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "arn:aws:secretsmanager:eu-north-1:333333333333:secret:raw-") {
		t.Fatalf("unsigned create %s", b)
	}
	// The harness client signs for the default Region, so it sees it.
	d := must[*secretsmanager.DescribeSecretOutput](t)(srv.Client(t, noRetry).DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("raw")}))
	if *d.Name != "raw" {
		t.Fatal("harness client misses the default Region")
	}
}
