package emulator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// frozen starts an emulator whose clock stands still (only AdvanceClock
// moves it), so bucket refills are exact.
func frozen(t *testing.T) (*emulatortest.Server, *secretsmanager.Client) {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	srv := emulatortest.Start(t, emulator.WithClock(func() time.Time { return now }))
	return srv, srv.Client(t, noRetry)
}

func describeErr(c *secretsmanager.Client, name string) error {
	_, err := c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(name)})
	return err
}

// quota_scales scales one family alone: DescribeSecret at 0.0004 (4/s,
// burst 4, shared with GetSecretValue) while CreateSecret keeps its 50/s.
func TestQuotas_ScalesReduceOneFamilyAlone(t *testing.T) {
	srv, c := frozen(t)
	srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScales: map[string]float64{"DescribeSecret": 0.0004}})
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		create(t, c, n, "v")
	}
	for _, n := range []string{"a", "b", "c"} {
		if err := describeErr(c, n); err != nil {
			t.Fatal(err)
		}
	}
	must[*secretsmanager.GetSecretValueOutput](t)(c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("c")}))
	wantAPIError(t, describeErr(c, "d"), "ThrottlingException", "Rate exceeded")
	srv.AdvanceClock(t, time.Second/4)
	if err := describeErr(c, "d"); err != nil {
		t.Fatalf("a quarter of a second refills one token at 4/s: %v", err)
	}
	st := srv.Stats(t)
	if st.Throttled["DescribeSecret"] != 1 || st.Throttled["CreateSecret"] != 0 || st.Calls["CreateSecret"] != 5 {
		t.Fatalf("stats %+v", st)
	}
}

// A family named in quota_scales ignores quota_scale; the others use it.
func TestQuotas_ScalesOverrideQuotaScale(t *testing.T) {
	srv, c := frozen(t)
	// CreateSecret: 50 × 0.02 = 1/s, burst 1; describes: 10,000 × 1 (own scale).
	srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScale: 0.02, QuotaScales: map[string]float64{"GetSecretValue": 1}})
	create(t, c, "a", "v")
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("b"), SecretString: aws.String("v")})
	wantCode(t, err, "ThrottlingException")
	for range 50 {
		if err := describeErr(c, "a"); err != nil {
			t.Fatalf("describe under its own full scale: %v", err)
		}
	}
}

// PUT /_emulator/quotas changes the quotas alone: the script counters keep
// counting (the scripted 2nd describe still fails), and the tokens already
// spent stay spent (a larger burst is no free refill).
func TestQuotas_ChangeMidRunKeepsScriptCountersAndTokens(t *testing.T) {
	srv, c := frozen(t)
	srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScale: 0.02,
		Script: []emulator.ScriptedFault{{Operation: "DescribeSecret", Nth: 2, Fault: "error:InternalServiceError"}}})
	create(t, c, "a", "v") // the CreateSecret bucket (burst 1) is empty now
	if err := describeErr(c, "a"); err != nil {
		t.Fatal(err)
	}
	srv.SetQuotas(t, emulator.Quotas{Quotas: true, QuotaScale: 0.04}) // 2/s, burst 2
	wantCode(t, describeErr(c, "a"), "InternalServiceError")
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("b"), SecretString: aws.String("v")})
	wantCode(t, err, "ThrottlingException")
	srv.AdvanceClock(t, time.Second/2)
	create(t, c, "b", "v") // refilled at the new 2/s
	if q := srv.Control().Must(t).Faults(); q.QuotaScale != 0.04 || len(q.Script) != 1 {
		t.Fatalf("faults after SetQuotas %+v", q)
	}
	srv.SetQuotas(t, emulator.Quotas{})
	for _, n := range []string{"c", "d", "e"} {
		create(t, c, n, "v")
	}
	if n := srv.Stats(t).Throttled["CreateSecret"]; n != 1 {
		t.Fatalf("throttled creates %d, want 1", n)
	}
}

func TestQuotas_RoundTripAndBadInput(t *testing.T) {
	srv, _ := frozen(t)
	in := emulator.Quotas{Quotas: true, QuotaScale: 0.5, QuotaScales: map[string]float64{"DescribeSecret": 0.1, "GetSecretValue": 0.1}}
	srv.SetQuotas(t, in)
	got, err := srv.Control().Quotas(ctx)
	if err != nil || !got.Quotas || got.QuotaScale != 0.5 || len(got.QuotaScales) != 2 || got.QuotaScales["GetSecretValue"] != 0.1 {
		t.Fatalf("quotas %+v %v", got, err)
	}
	for _, tc := range []struct{ path, body, want string }{
		{"/_emulator/quotas", `{"quota_scales": {"Nope": 0.5}}`, "not an operation with a request quota"},
		{"/_emulator/quotas", `{"quota_scales": {"CreateSecret": 0}}`, "must be a finite number"},
		{"/_emulator/quotas", `{"quota_scales": {"DescribeSecret": 0.1, "GetSecretValue": 0.2}}`, "share the quota"},
		{"/_emulator/quotas", `{"quota_scale": -1}`, "quota_scale"},
		{"/_emulator/quotas", `{"seed": 1}`, "unknown field"},
		{"/_emulator/faults", `{"quota_scales": {"CreateSecret": -1}}`, "quota_scales"},
	} {
		code, body := control(t, srv.URL, "PUT", tc.path, tc.body)
		if code != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("PUT %s %s: %d %s (want 400 mentioning %q)", tc.path, tc.body, code, body, tc.want)
		}
	}
	if code, _ := control(t, srv.URL, "POST", "/_emulator/quotas", `{}`); code != 405 {
		t.Errorf("POST quotas: %d, want 405", code)
	}
	if q := srv.Emu.Quotas(); q.QuotaScale != 0.5 {
		t.Fatalf("a rejected request changed the quotas: %+v", q)
	}
}
