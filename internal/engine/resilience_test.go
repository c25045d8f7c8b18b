package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestThrottlingAnd5xxBursts_Retried: bursts of InternalServiceError on
// every kind of call are retried by the SDK (its default standard
// retryer), bursts of ThrottlingException are resent by the adapter (reads)
// and the engine (writes), and the run converges.
func TestThrottlingAnd5xxBursts_Retried(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "upd", `{"v":0}`)
		e.seedOwned(t, "upd2", `{"v":0}`)
		e.seedOwned(t, "gone", `{}`)
		e.del(t, e.seedOwned(t, "back", `{"v":1}`))
		e.port = steppedAdapter(e.client)
		const thr, ise = "error:ThrottlingException:Rate exceeded", "error:InternalServiceError"
		var s []emulator.ScriptedFault
		s = append(s, script("ListSecrets", thr, 1)...)
		s = append(s, script("DescribeSecret", thr, 1)...) // at most 2 failures per call: the SDK makes 3 attempts
		s = append(s, script("DescribeSecret", ise, 2)...)
		s = append(s, script("BatchGetSecretValue", ise, 1)...)
		s = append(s, script("CreateSecret", ise, 1, 2)...)
		s = append(s, script("PutSecretValue", thr, 1)...)
		s = append(s, script("DeleteSecret", ise, 1)...)
		s = append(s, script("RestoreSecret", thr, 1)...)
		e.srv.SetFaults(t, emulator.Faults{Script: s})
		st := state(doc{"new", `{}`}, doc{"upd", `{"v":1}`}, doc{"upd2", `{"v":1}`}, doc{"back", `{"v":1}`})
		before := e.calls(t)
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{Create: 1, Update: 2, Restore: 1, ScheduleDelete: 1})
		after := e.calls(t)
		for op, want := range map[string]int64{"CreateSecret": 3, "PutSecretValue": 3, "DeleteSecret": 2, "RestoreSecret": 2} {
			if got := after[op] - before[op]; got != want {
				t.Errorf("%s calls = %d, want %d (retries included)", op, got, want)
			}
		}
		for _, d := range st.Secrets {
			if current(e.secret(t, d.Name)) != string(d.Value) {
				t.Errorf("%s not converged", d.Name)
			}
		}
	})
}

// TestThrottledWritesAreResentAfterANewPrecondition (issue 15): a
// throttled request was not executed, so every kind (restore and
// schedule-delete included) is resent, more often than the SDK's three
// attempts would allow, after a new turn and a new precondition describe;
// a create or update keeps its one ClientRequestToken.
func TestThrottledWritesAreResentAfterANewPrecondition(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "upd", `{"v":0}`)
		e.seedOwned(t, "gone", `{}`)
		e.del(t, e.seedOwned(t, "back", `{"v":1}`))
		e.port = steppedAdapter(e.client)
		const thr = "error:ThrottlingException:Rate exceeded"
		var s []emulator.ScriptedFault
		s = append(s, script("CreateSecret", thr, 1, 2, 3)...) // the SDK gave up after 3 attempts
		for _, op := range []string{"PutSecretValue", "DeleteSecret", "RestoreSecret"} {
			s = append(s, script(op, thr, 1)...)
		}
		e.srv.SetFaults(t, emulator.Faults{Script: s})
		tokens := &countingTokens{}
		cfg := e.cfg(engine.ModeSync, conc)
		cfg.Tokens = tokens
		st := state(doc{"new", `{}`}, doc{"upd", `{"v":1}`}, doc{"back", `{"v":1}`})
		before := e.calls(t)
		wantResult(t, e.run(t, cfg, st), vocab.StatusConverged, vocab.VerificationConverged,
			vocab.Counts{Create: 1, Update: 1, Restore: 1, ScheduleDelete: 1})
		after := e.calls(t)
		for op, want := range map[string]int64{"CreateSecret": 4, "PutSecretValue": 2, "DeleteSecret": 2, "RestoreSecret": 2} {
			if got := after[op] - before[op]; got != want {
				t.Errorf("%s calls = %d, want %d (the throttled ones resent)", op, got, want)
			}
		}
		if n := tokens.n.Load(); n != 2 {
			t.Errorf("%d tokens minted, want one per logical write (2)", n)
		}
		// Observation describes 4 names; each of the 10 attempts is
		// preceded by its precondition describe; verification describes
		// the 4 again.
		if got := after["DescribeSecret"] - before["DescribeSecret"]; got < 4+10+4 {
			t.Errorf("DescribeSecret calls = %d, want a precondition before every attempt", got)
		}
		var logged float64
		for _, line := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "phase applied" {
				logged += rec[vocab.FieldThrottled].(float64)
			}
			if strings.Contains(line, "ThrottlingException") {
				t.Errorf("a throttle was logged as an error: %s", line)
			}
		}
		if logged != 6 {
			t.Errorf("the apply phases' records count %v throttles, want 6:\n%s", logged, e.logs.String())
		}
	})
}

// TestWritePacing_StaysUnderQuota: with AWS's quotas on (scaled down to 5
// creates/s), paced writes are never throttled.
func TestWritePacing_StaysUnderQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("takes a few seconds of real time")
	}
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{Quotas: true, QuotaScale: 0.1})
	var docs []doc
	for i := range 12 {
		docs = append(docs, doc{fmt.Sprintf("s%02d", i), `{}`})
	}
	e.port = newAdapter(e.client, pace.Limits{Writes: 4, Batches: pace.DefaultBatches})
	cfg := e.cfg(engine.ModeSync, config.DefaultConcurrency)
	wantResult(t, e.run(t, cfg, state(docs...)), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 12})
	if th := e.srv.Stats(t).Throttled["CreateSecret"]; th != 0 {
		t.Fatalf("%d creates throttled despite pacing", th)
	}
}

// TestInterrupted: a cancelled run (signal, run timeout) ends interrupted,
// before observing or in the middle of applying.
func TestInterrupted(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := engine.Run(ctx, e.cfg(engine.ModeSync, conc), model.Arrived(state(doc{"a", `{}`})), e.port, nil)
		wantResult(t, res, vocab.StatusInterrupted, vocab.VerificationNotRun, vocab.Counts{})

		ctx, cancel = context.WithCancel(context.Background())
		defer cancel()
		cancelled := make(chan struct{})
		h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
			switch {
			case n == 3: // the first precondition: a signal arrives
				cancel()
				close(cancelled)
			case n > 3: // no other precondition may overtake the signal
				<-cancelled
			}
		}}
		res = engine.Run(ctx, e.cfg(engine.ModeSync, conc), model.Arrived(state(doc{"a", `{}`}, doc{"b", `{}`})), h, nil)
		if res.Status != vocab.StatusInterrupted || res.Verification != vocab.VerificationNotRun {
			t.Fatalf("result = %+v", res)
		}
		if c := e.calls(t)["CreateSecret"]; c != 0 {
			t.Fatalf("%d creates after cancellation", c)
		}
	})
}

// TestLogs_FixedVocabularyAndNoSecrets: every record uses only the fixed
// field vocabulary (SPEC §7.3) and never shows a value, token, ARN or name
// unless names are allowed; resources are ordinals, with not-desired names
// numbered after the documents.
func TestLogs_FixedVocabularyAndNoSecrets(t *testing.T) {
	allowed := map[string]bool{"time": true, "level": true, "msg": true}
	for _, k := range []string{vocab.FieldPhase, vocab.FieldStatus, vocab.FieldOperation, vocab.FieldCount, vocab.FieldDurationMS,
		vocab.FieldResource, vocab.FieldConflictClass, vocab.FieldErrorCode, vocab.FieldFaultClass, vocab.FieldRequestID,
		vocab.FieldErrorClass, vocab.FieldVerification, vocab.FieldThrottled, vocab.FieldWaitMS, vocab.FieldDone, vocab.FieldTotal, vocab.FieldIAMActions,
		vocab.FieldDeletion} {
		allowed[k] = true
	}
	for _, show := range []bool{false, true} {
		t.Run(fmt.Sprintf("show-names=%v", show), func(t *testing.T) {
			e := newEnv(t, noSDKRetry)
			arn := e.seedOwned(t, "upd", `{"password":"OLDSECRET"}`)
			e.seedOwned(t, "zz-gone", `{}`)
			e.srv.SetFaults(t, emulator.Faults{Script: script("PutSecretValue", "ambiguous-before-apply", 1)})
			tokens := &countingTokens{}
			cfg := e.cfg(engine.ModeSync, 1)
			cfg.Tokens, cfg.ShowResourceNames = tokens, show
			st := state(doc{"new", `{"password":"NEWSECRET1"}`}, doc{"upd", `{"password":"NEWSECRET2"}`})
			wantResult(t, e.run(t, cfg, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1, Update: 1, ScheduleDelete: 1})
			logs := e.logs.String()
			for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
				var rec map[string]any
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("not JSON: %s", line)
				}
				for k := range rec {
					if !allowed[k] {
						t.Fatalf("field %q outside the vocabulary: %s", k, line)
					}
				}
			}
			forbidden := []string{"SECRET", "arn:", arn, fmt.Sprintf("%064d", 1), fmt.Sprintf("%064d", 2)}
			if !show {
				forbidden = append(forbidden, "app/")
			}
			for _, f := range forbidden {
				if strings.Contains(logs, f) {
					t.Fatalf("logs contain %q:\n%s", f, logs)
				}
			}
			if show && !strings.Contains(logs, `"resource":"app/zz-gone"`) {
				t.Fatalf("names must show with ShowResourceNames:\n%s", logs)
			}
			if !show && !strings.Contains(logs, `"operation":"schedule-delete","resource":"resource-0003"`) {
				t.Fatalf("a not-desired name must get the ordinal after the documents':\n%s", logs)
			}
		})
	}
}

// TestAnsweredWriteErrorCountsAsAdmitted: the write pace learns from every
// answer, not only from successes: a write refused with an error AWS
// answered (a request id, not ambiguous) was admitted by the quota, so
// after a throttle cut the limit, that answer to a turn that had to wait
// raises it again (pace.Recovery), as a success would.
func TestAnsweredWriteErrorCountsAsAdmitted(t *testing.T) {
	e := newEnv(t, noSDKRetry)
	e.seedOwned(t, "x", `{"v":0}`)
	pc := pace.New(&stepClock{now: time.Unix(1_700_000_000, 0)}, testLimits)
	p := &limitPort{Port: awssm.New(e.client, awssm.Options{OperationTimeout: 10 * time.Second, Pace: pc}), pace: pc}
	e.srv.SetFaults(t, emulator.Faults{Script: append(script("PutSecretValue", "error:ThrottlingException:Rate exceeded", 1),
		script("PutSecretValue", "error:InvalidParameterException", 2)...)})
	wantResult(t, e.runPort(t, e.cfg(engine.ModeSync, 1), state(doc{"x", `{"v":1}`}), p), vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{})
	cut, after := p.atSecond, pc.Limit(pace.Writes)
	if math.IsInf(cut, 1) || after <= cut {
		t.Fatalf("write limit %v after the throttle's cut, %v after the answered error: want it raised", cut, after)
	}
}

// limitPort records the write limit as the second PutValue goes out.
type limitPort struct {
	Port
	pace     *pace.Controller
	puts     int
	atSecond float64
}

func (p *limitPort) PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (engine.WriteResult, error) {
	if p.puts++; p.puts == 2 {
		p.atSecond = p.pace.Limit(pace.Writes)
	}
	return p.Port.PutValue(ctx, id, value, kind, token)
}

// Pace is the adapter's controller: the engine takes its write turns from it.
func (p *limitPort) Pace() *pace.Controller { return p.pace }
