package chaos

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/smithy-go"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

func proxied(t *testing.T) (*emulatortest.Server, *Proxy, *secretsmanager.Client) {
	t.Helper()
	srv := emulatortest.Start(t)
	px, err := NewProxy(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(px.Close)
	c := srv.Client(t, func(o *secretsmanager.Options) {
		o.BaseEndpoint = aws.String(px.URL)
		o.RetryMaxAttempts = 1
	})
	return srv, px, c
}

const tok1 = "0123456789abcdef0123456789abcdef-1"

// TestProxyRecordsTokensAndDeleteFlags: every call is seen with its target,
// token and DeleteSecret flags, and answered unchanged.
func TestProxyRecordsTokensAndDeleteFlags(t *testing.T) {
	_, px, c := proxied(t)
	ctx := context.Background()
	px.Arm(1, nil, nil)
	if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("p/a"), SecretString: aws.String("{}"), ClientRequestToken: aws.String(tok1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String("p/a"), RecoveryWindowInDays: aws.Int64(9)}); err != nil {
		t.Fatal(err)
	}
	_, err := c.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String("p/a"), RecoveryWindowInDays: aws.Int64(9)})
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != "InvalidRequestException" {
		t.Fatalf("second delete of a pending secret: %v, want the emulator's InvalidRequestException through the proxy", err)
	}
	if _, err := c.DeleteSecret(ctx, &secretsmanager.DeleteSecretInput{SecretId: aws.String("p/a"), ForceDeleteWithoutRecovery: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	calls := px.Calls()
	if len(calls) != 4 {
		t.Fatalf("%d calls recorded, want 4", len(calls))
	}
	if c0 := calls[0]; c0.Op != "CreateSecret" || c0.Target != "p/a" || c0.Token != tok1 || c0.Status != 200 || c0.Run != 1 {
		t.Fatalf("create recorded as %+v", c0)
	}
	if c1 := calls[1]; c1.Op != "DeleteSecret" || c1.Window != 9 || c1.Force {
		t.Fatalf("delete recorded as %+v", c1)
	}
	if c2 := calls[2]; c2.Force || c2.Status != 400 {
		t.Fatalf("refused delete recorded as %+v", c2)
	}
	if c3 := calls[3]; !c3.Force || c3.Status != 200 {
		t.Fatalf("force delete recorded as %+v", c3)
	}
}

// TestProxyPassesLostResponsesThrough: an ambiguous-after-apply fault of the
// emulator reaches the SDK as a dropped connection, and the write is there.
func TestProxyPassesLostResponsesThrough(t *testing.T) {
	srv, px, c := proxied(t)
	ctx := context.Background()
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 1, Fault: "ambiguous-after-apply"}}})
	px.Arm(1, nil, nil)
	_, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("p/b"), SecretString: aws.String("{}"), ClientRequestToken: aws.String(tok1)})
	if err == nil {
		t.Fatal("the SDK got an answer to a call whose response was lost")
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		t.Fatalf("the SDK got an API error (%s), want a transport error", ae.ErrorCode())
	}
	if calls := px.Calls(); len(calls) != 1 || !calls[0].Lost {
		t.Fatalf("calls = %+v, want one lost call", calls)
	}
	if st := srv.State(t); len(st.Secrets) != 1 {
		t.Fatal("the write applied before the lost response is missing")
	}
}

// TestProxyKillPlans: mutation-before kills without forwarding,
// mutation-after kills once the emulator applied the write, call counts
// every operation; each fires exactly once.
func TestProxyKillPlans(t *testing.T) {
	for _, tc := range []struct {
		plan    KillPlan
		applied int // secrets in the state after two creates
	}{
		{KillPlan{Mode: "mutation-before", Nth: 2}, 1},
		{KillPlan{Mode: "mutation-after", Nth: 2}, 2},
		{KillPlan{Mode: "call", Nth: 3}, 1}, // describe, create, [create]
	} {
		t.Run(tc.plan.String(), func(t *testing.T) {
			srv, px, c := proxied(t)
			ctx := context.Background()
			var kills atomic.Int32
			px.Arm(1, &tc.plan, func() { kills.Add(1) })
			_, _ = c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("p/x")})
			if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("p/1"), SecretString: aws.String("{}")}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("p/2"), SecretString: aws.String("{}")}); err == nil {
				t.Fatal("the call at which the CLI is killed got an answer")
			}
			_, _ = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("p/3"), SecretString: aws.String("{}")})
			px.Drain()
			if kills.Load() != 1 || !px.Killed() {
				t.Fatalf("kill fired %d times, want exactly once", kills.Load())
			}
			got := 0
			for _, s := range srv.State(t).Secrets {
				if s.Name == "p/1" || s.Name == "p/2" {
					got++
				}
			}
			if got != tc.applied {
				t.Fatalf("%d of the first two creates applied, want %d", got, tc.applied)
			}
		})
	}
}

// TestRegression_LateRequestOfAKilledRunIsItsOwn: a killed CLI's last
// request can reach the proxy's handler only after the runner has drained
// and re-armed for run 0; it was recorded under run 0, so the replica
// checker judged it against no configured Regions (a false replica-config
// in a 300-scenario campaign). A request is attributed to the run named in
// its User-Agent (AWS_SDK_UA_APP_ID, which the runner sets per run).
func TestRegression_LateRequestOfAKilledRunIsItsOwn(t *testing.T) {
	srv, px, _ := proxied(t)
	late := srv.Client(t, func(o *secretsmanager.Options) {
		o.BaseEndpoint = aws.String(px.URL)
		o.RetryMaxAttempts = 1
		o.AppID = RunAppID(3)
	})
	px.Arm(0, nil, nil)
	if _, err := late.CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{Name: aws.String("p/late"), SecretString: aws.String("{}"), ClientRequestToken: aws.String(tok1)}); err != nil {
		t.Fatal(err)
	}
	calls := px.Calls()
	if len(calls) != 1 || calls[0].Run != 3 {
		t.Fatalf("calls %+v, want one call of run 3", calls)
	}
	if n, ok := runOfUserAgent("aws-sdk-go-v2/1.0 os/linux app/chaos-run-12 m/E"); !ok || n != 12 {
		t.Errorf("runOfUserAgent = %d, %v, want 12", n, ok)
	}
	if _, ok := runOfUserAgent("aws-sdk-go-v2/1.0 app/other"); ok {
		t.Error("a User-Agent without the run's app id names a run")
	}
}
