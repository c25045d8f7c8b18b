package emulatortest_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
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

// Every request of the typed client, against one in-process server, with
// the emulator's own body types.
func TestControl_EveryRequestRoundTrips(t *testing.T) {
	srv := emulatortest.Start(t)
	ctl := srv.Control()
	ctx := context.Background()
	if err := ctl.Health(ctx); err != nil {
		t.Fatal(err)
	}
	f := emulator.Faults{Seed: 3, ListLagMS: 5, QuotaScales: map[string]float64{"ListSecrets": 0.5}, Quotas: true,
		Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 9, Fault: "ambiguous-after-apply"}}}
	if err := ctl.SetFaults(ctx, f); err != nil {
		t.Fatal(err)
	}
	got, err := ctl.Faults(ctx)
	if err != nil || got.Seed != 3 || got.ListLagMS != 5 || got.QuotaScales["ListSecrets"] != 0.5 || len(got.Script) != 1 {
		t.Fatalf("faults %+v %v", got, err)
	}
	if err := ctl.SetQuotas(ctx, emulator.Quotas{Quotas: true, QuotaScale: 0.2}); err != nil {
		t.Fatal(err)
	}
	q, err := ctl.Quotas(ctx)
	if err != nil || !q.Quotas || q.QuotaScale != 0.2 || q.QuotaScales != nil {
		t.Fatalf("quotas %+v %v", q, err)
	}
	if got, _ := ctl.Faults(ctx); got.Seed != 3 || got.QuotaScale != 0.2 || len(got.Script) != 1 {
		t.Fatalf("SetQuotas changed more than the quotas: %+v", got)
	}
	before, err := ctl.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, err := ctl.AdvanceClock(ctx, 36*time.Hour)
	if err != nil || after.Sub(before) < 36*time.Hour {
		t.Fatalf("clock %v → %v %v", before, after, err)
	}
	c := srv.Client(t)
	if _, err := c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("x"), SecretString: aws.String("v")}); err != nil {
		t.Fatal(err)
	}
	if err := ctl.SetConditions(ctx, emulator.Conditions{Name: "x", RotationEnabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	st, err := ctl.State(ctx)
	if err != nil || len(st.Secrets) != 1 || !st.Secrets[0].RotationEnabled {
		t.Fatalf("state %+v %v", st, err)
	}
	stats, err := ctl.Stats(ctx)
	if err != nil || stats.Calls["CreateSecret"] != 1 {
		t.Fatalf("stats %+v %v", stats, err)
	}
	key := srv.Control().Must(t).AddKMSKey(emulator.KMSKey{KeyID: "1234abcd-12ab-34cd-56ef-1234567890ab", Aliases: []string{"alias/app"}})
	if key.ARN == "" {
		t.Fatalf("added key %+v", key)
	}
	if err := ctl.SetKMSAlias(ctx, emulator.KMSAlias{AliasName: "alias/other", TargetKeyID: key.KeyID}); err != nil {
		t.Fatal(err)
	}
	keys, err := ctl.KMSKeys(ctx)
	if err != nil || len(keys.Keys) != 2 || !keys.Keys[0].AWSManaged || len(keys.Keys[1].Aliases) != 2 {
		t.Fatalf("kms %+v %v", keys, err)
	}
	if err := ctl.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := ctl.State(ctx); len(st.Secrets) != 0 {
		t.Fatalf("state after reset %+v", st)
	}
}

// A refused request is a *ControlError carrying the emulator's own words.
func TestControl_RefusalIsControlErrorWithTheEmulatorsMessage(t *testing.T) {
	srv := emulatortest.Start(t)
	err := srv.Control().SetFaults(context.Background(), emulator.Faults{ErrorRate: 2})
	var ce *emulatortest.ControlError
	if !errors.As(err, &ce) || ce.Status != 400 || ce.Path != "/_emulator/faults" || ce.Message != "error_rate must be between 0 and 1" {
		t.Fatalf("error %#v", err)
	}
	err = srv.Control().SetConditions(context.Background(), emulator.Conditions{Name: "missing", RotationEnabled: aws.Bool(true)})
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "not found") {
		t.Fatalf("error %#v", err)
	}
	if err := (emulatortest.Control{URL: "http://127.0.0.1:1"}).Health(context.Background()); err == nil {
		t.Fatal("no error from a closed port")
	}
}

// The built binary, as e2e, chaos and bench run it: started on a free
// port, driven through its Control, stopped with exit 0.
func TestProcess_StartsTheBinaryAndStopsItCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/secretsmanager-emulator")
	}
	bin := filepath.Join(t.TempDir(), "secretsmanager-emulator")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/sops-aws-sync/sops-aws-sync/cmd/secretsmanager-emulator").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var stderr bytes.Buffer
	p, err := emulatortest.StartProcess(context.Background(), bin, &stderr, "--seed", "4", "--quotas")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.URL, "http://127.0.0.1:") || p.Pid() <= 0 {
		t.Fatalf("process %+v", p)
	}
	f, err := p.Control().Faults(context.Background())
	if err != nil || f.Seed != 4 || !f.Quotas {
		t.Fatalf("flags not applied: %+v %v", f, err)
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("stop: %v (stderr %s)", err, stderr.String())
	}
	if err := p.Stop(); err != nil {
		t.Fatalf("second stop: %v", err)
	}
	if err := p.Control().Health(context.Background()); err == nil {
		t.Fatal("the emulator still answers after Stop")
	}
}

func TestProcess_RefusesABinaryThatDoesNotAnnounceItself(t *testing.T) {
	echo, err := exec.LookPath("echo")
	if err != nil {
		t.Skip("no echo on PATH")
	}
	_, err = emulatortest.StartProcess(context.Background(), echo, nil)
	if err == nil || !strings.Contains(err.Error(), "instead of its listening line") {
		t.Fatalf("error %v", err)
	}
}
