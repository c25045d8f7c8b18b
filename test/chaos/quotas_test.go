package chaos

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// The -quotas draw: half the scenarios, every run of those (final ones
// included), scales in [0.05, 1], a third changing mid-run; the rest of a
// scenario is the one the flag-off campaign plays, byte for byte.
func TestGenerateQuotasDrawsReducedQuotasWithoutChangingTheRest(t *testing.T) {
	on := DefaultGenOptions
	on.Quotas = true
	var scenarios, runs, changes, finals int
	lo, hi := 1.0, 0.0
	for i := range 300 {
		a, err := Generate(11, i, DefaultGenOptions)
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
				if sc == 0 && sc == q.ChangeTo && q.ChangeAtCall == 0 {
					continue
				}
				if sc < 0.05 || sc > 1 {
					t.Fatalf("scenario %d run %d: scale %v outside [0.05, 1]", i, ri, sc)
				}
				lo, hi = min(lo, sc), max(hi, sc)
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
