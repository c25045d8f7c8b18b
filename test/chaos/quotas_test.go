package chaos

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// The -quotas draw: half the scenarios, every run of those (final ones
// included), scales in [0.05, 1], a third changing mid-run; the rest of a
// scenario is the one the flag-off campaign plays, byte for byte.
func TestGenerateQuotasDrawsReducedQuotasWithoutChangingTheRest(t *testing.T) {
	on, off := DefaultGenOptions, DefaultGenOptions
	on.Quotas, off.Quotas = true, false
	on.ParameterStore, off.ParameterStore = false, false // its own quota plans: TestGenerateParameterStore
	var scenarios, runs, changes, finals, shared int
	lo, hi := 1.0, 0.0
	for i := range 300 {
		a, err := Generate(11, i, off)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(11, i, on)
		if err != nil {
			t.Fatal(err)
		}
		planned := 0
		for ri := range b.Runs {
			q := b.Runs[ri].Quotas
			if a.Runs[ri].Quotas != nil {
				t.Fatalf("scenario %d: a quota plan without -quotas", i)
			}
			if q == nil {
				continue
			}
			planned++
			if b.Runs[ri].Faults.Quotas {
				t.Fatalf("scenario %d run %d: a quota plan on a run with its own throttling fault", i, ri)
			}
			for _, sc := range []float64{q.Scale, q.ChangeTo} {
				if sc == 0 && q.ChangeAtCall == 0 {
					continue // no mid-run change
				}
				if sc < 0.05 || sc > 1 {
					t.Fatalf("scenario %d run %d: scale %v outside [0.05, 1]", i, ri, sc)
				}
				lo, hi = min(lo, sc), max(hi, sc)
			}
			sLo, sHi := 0.3, 0.9
			if b.Runs[ri].Final {
				sLo, sHi = 0.2, 0.5
			}
			smScript := slices.ContainsFunc(b.Runs[ri].Faults.Script, func(f emulator.ScriptedFault) bool { return !slices.Contains(psScriptOps, f.Operation) })
			if q.Share != 0 && (q.Share < sLo || q.Share > sHi || smScript) { // other clients shift Secrets Manager counts alone
				t.Fatalf("scenario %d run %d: other clients' share %v (script %v)", i, ri, q.Share, b.Runs[ri].Faults.Script)
			}
			if q.Share > 0 {
				shared++
			}
			runs++
			if q.ChangeAtCall > 0 {
				changes++
			}
			if b.Runs[ri].Final {
				finals++
			}
			b.Runs[ri].Quotas = nil
		}
		if planned > 0 {
			scenarios++
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("scenario %d: -quotas changed more than the quota plans", i)
		}
	}
	if scenarios < 120 || scenarios > 180 || finals < 2*scenarios-5 || changes < runs/5 || changes > runs/2 {
		t.Fatalf("draw: %d of 300 scenarios, %d runs (%d final), %d mid-run changes", scenarios, runs, finals, changes)
	}
	if shared < runs/3 || shared > runs*2/3 {
		t.Fatalf("other clients in %d of %d runs", shared, runs)
	}
	if lo > 0.07 || hi < 0.8 {
		t.Fatalf("scales span only [%v, %v]", lo, hi)
	}
}

// OnCall runs its function once, before the n-th call reaches the
// emulator: here it turns the quotas down to one create per 100 s between
// two creates, so the second is throttled.
func TestProxyOnCallRunsBeforeTheNthCallIsForwarded(t *testing.T) {
	srv, px, c := proxied(t)
	ctx := context.Background()
	srv.SetFaults(t, emulator.Faults{Quotas: true})
	px.Arm(1, nil, nil)
	fired := 0
	px.OnCall(2, func() {
		fired++
		srv.SetQuotas(t, emulator.Quotas{Quotas: true, QuotaScale: 0.0002})
	})
	for _, n := range []string{"q/1", "q/2", "q/3"} {
		_, _ = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String(n), SecretString: aws.String("{}")})
	}
	px.Drain()
	if fired != 1 {
		t.Fatalf("OnCall fired %d times", fired)
	}
	// The first create emptied nothing (burst 50); the change keeps the 49
	// tokens left but caps them at the new burst of 1: call 2 passes, 3 is throttled.
	if st := srv.Stats(t); st.Throttled["CreateSecret"] != 1 || len(srv.State(t).Secrets) != 2 {
		t.Fatalf("throttled %v, %d secrets", st.Throttled, len(srv.State(t).Secrets))
	}
}

func TestCLIThrottlingSumsPhaseRecordsNotProgress(t *testing.T) {
	log := []byte(`{"level":"INFO","msg":"plan built","phase":"plan"}
{"level":"INFO","msg":"progress","phase":"apply","done":3,"total":9,"throttled":40}
{"level":"INFO","msg":"phase applied","phase":"apply","throttled":41,"wait_ms":2500}
not json
{"level":"INFO","msg":"verified","phase":"verify","throttled":2,"wait_ms":100}
`)
	th, ok := cliThrottling(log)
	if !ok || th.Throttled != 43 || th.WaitMS != 2600 {
		t.Fatalf("got %+v %v", th, ok)
	}
	if _, ok := cliThrottling([]byte(`{"msg":"plan built"}` + "\n")); ok {
		t.Fatal("a log without the fields reported throttling")
	}
}

// The other clients' request takes a quota token and changes nothing.
func TestNoiseRequestSpendsTheQuotaAndChangesNothing(t *testing.T) {
	srv := emulatortest.Start(t)
	e := &Emu{Control: srv.Control(), hc: http.DefaultClient}
	srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScale: 0.02}) // CreateSecret 1/s, burst 1
	if e.malformed("CreateSecret") {
		t.Fatal("the first request was throttled")
	}
	if !e.malformed("CreateSecret") {
		t.Fatal("the second request within the second was not throttled")
	}
	st := srv.Stats(t)
	if st.Calls["CreateSecret"] != 2 || st.Throttled["CreateSecret"] != 1 || len(srv.State(t).Secrets) != 0 {
		t.Fatalf("stats %+v, state %+v", st, srv.State(t))
	}
}

// Regression (noise-after-quota-change, seed 2 scenario 44 of a
// 300-scenario campaign): the other clients kept spending their share of
// the quota as it was before the run cut it (47 % of 35 % of 50 PutSecretValue/s
// = 8.3/s against a new quota of 3.2/s), so the CLI got no token and its
// final sync ran into the run timeout. Their rate follows the quota now.
func TestRegression_NoiseFollowsAQuotaChangedMidRun(t *testing.T) {
	n := &Noise{share: 0.47}
	n.SetScale(0.352)
	put := -1
	for i, f := range noiseFamilies {
		if f.op == "PutSecretValue" {
			put = i
		}
	}
	if got := n.rates()[put]; math.Abs(got-0.47*0.352*50) > 1e-9 {
		t.Fatalf("PutSecretValue noise %v/s before the change", got)
	}
	n.SetScale(0.063)
	if got, quota := n.rates()[put], 0.063*50; got >= quota || math.Abs(got-0.47*quota) > 1e-9 {
		t.Fatalf("PutSecretValue noise %v/s after the quota became %v/s: want its 47 %% share", got, quota)
	}
}

func TestNoiseDueSpreadsTheRateOverTicks(t *testing.T) {
	var credit float64
	sent := 0
	for range 20 { // one second of 50 ms ticks at 45 requests/s
		sent += due(&credit, 45)
	}
	if sent != 45 && sent != 44 {
		t.Fatalf("sent %d in a second at 45/s", sent)
	}
	credit = 0
	if n := due(&credit, 1e6); n != noiseCap || credit > noiseCap {
		t.Fatalf("a fast family sent %d, credit %v", n, credit)
	}
}

func TestSummaryReportsThrottlingAndTheCLIsOwnFigures(t *testing.T) {
	s := &Summary{Quotas: true, QuotaRuns: 38, QuotaChanges: 7, Throttled: 116, NoiseCalls: 6551, NoiseThrottled: 95}
	md := s.Markdown()
	if md := (&Summary{}).Markdown(); !strings.Contains(md, "CHAOS_ARGS=-quotas=false") {
		t.Error("a campaign without reduced quotas says how it was run")
	}
	for _, want := range []string{"SEED=0` with", "21 calls of the CLI throttled", "38 runs played under reduced quotas", "7 of them with the quota changed while the CLI ran",
		"other clients sharing the quotas sent 6551 requests (95 throttled)", "the CLI logged no throttling figures"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	s.CLIThrottleLogged, s.CLIThrottled, s.CLIWaitMS = true, 20, 12345
	if md := s.Markdown(); !strings.Contains(md, "the CLI logged 20 throttled calls and 12.3 s of waiting") {
		t.Errorf("summary lacks the CLI's figures:\n%s", md)
	}
}

// OnOp runs its function once, before the first call of its operation
// that comes after a call of its "after" operation: here before the first
// DescribeSecret after a PutSecretValue (the point "verify" of a rotation
// step), and it tells Fired.
func TestProxyOnOpRunsBeforeTheFirstMatchingCallAfterItsOperation(t *testing.T) {
	_, px, c := proxied(t)
	ctx := context.Background()
	px.Arm(1, nil, nil)
	if px.Fired() {
		t.Fatal("Fired before any OnOp")
	}
	var seen []int
	px.OnOp("DescribeSecret", "PutSecretValue", func() { seen = append(seen, len(px.Calls())) })
	_, _ = c.CreateSecret(ctx, &secretsmanager.CreateSecretInput{Name: aws.String("o/1"), SecretString: aws.String("{}")})
	_, _ = c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("o/1")})
	if px.Fired() {
		t.Fatal("fired before the PutSecretValue")
	}
	_, _ = c.PutSecretValue(ctx, &secretsmanager.PutSecretValueInput{SecretId: aws.String("o/1"), SecretString: aws.String(`{"a":1}`)})
	_, _ = c.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String("o/1")})
	_, _ = c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("o/1")})
	_, _ = c.DescribeSecret(ctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String("o/1")})
	px.Drain()
	if !px.Fired() || len(seen) != 1 || seen[0] != 5 {
		t.Fatalf("fired %v at calls %v, want once at the 5th call", px.Fired(), seen)
	}
	px.Arm(2, nil, nil)
	if px.Fired() {
		t.Fatal("Arm does not clear OnOp")
	}
}
