package emulatortest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Every helper of the harness against one server.
func TestHarness_EveryHelper(t *testing.T) {
	srv := emulatortest.Start(t, emulator.WithRegion("eu-north-1"), emulator.WithAccountID("111122223333"))
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || srv.Emu == nil {
		t.Fatalf("server %+v", srv)
	}
	c := srv.Client(t, func(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 })
	ctx := context.Background()
	out, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("h"), SecretString: aws.String("v")})
	if err != nil || !strings.HasPrefix(*out.ARN, "arn:aws:secretsmanager:eu-north-1:111122223333:secret:h-") {
		t.Fatalf("create %v %v", out, err)
	}
	if st := srv.State(t); len(st.Secrets) != 1 || st.Secrets[0].ARN != *out.ARN {
		t.Fatalf("state %+v", st)
	}
	if s := srv.Stats(t); s.Calls["CreateSecret"] != 1 {
		t.Fatalf("stats %+v", s)
	}
	srv.SetConditions(t, emulator.Conditions{Name: "h", OwningService: aws.String("rds")})
	if st := srv.State(t); st.Secrets[0].OwningService != "rds" {
		t.Fatalf("conditions not applied %+v", st)
	}
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "DescribeSecret", Nth: 1, Fault: "error:InternalServiceError"}}})
	if _, err := c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("h")}); err == nil {
		t.Fatal("scripted fault not applied")
	}
	srv.SetQuotas(t, emulator.Quotas{Quotas: true, QuotaScales: map[string]float64{"CreateSecret": 0.5}})
	if q := srv.Emu.Quotas(); !q.Quotas || q.QuotaScales["CreateSecret"] != 0.5 {
		t.Fatalf("quotas not applied %+v", q)
	}
	before := srv.Emu.Now()
	srv.AdvanceClock(t, time.Hour)
	if d := srv.Emu.Now().Sub(before); d < time.Hour {
		t.Fatalf("clock advanced %v", d)
	}
	srv.Reset(t)
	if st := srv.State(t); len(st.Secrets) != 0 {
		t.Fatalf("state after reset %+v", st)
	}
}
