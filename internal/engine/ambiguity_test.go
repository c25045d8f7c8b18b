package engine_test

import (
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// countingTokens mints distinct valid tokens and counts them.
type countingTokens struct{ n atomic.Int64 }

func (c *countingTokens) NewToken() string {
	return fmt.Sprintf("%064d", c.n.Add(1))
}

var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

func script(op string, fault string, nths ...int64) []emulator.ScriptedFault {
	var s []emulator.ScriptedFault
	for _, n := range nths {
		s = append(s, emulator.ScriptedFault{Operation: op, Nth: n, Fault: fault})
	}
	return s
}

func noSDKRetry(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 }

// TestAmbiguousCreateAndUpdate_ConvergeWithOneVersion: the response of a
// create/update is lost (before or after the write landed), with the SDK
// retrying or not; the run converges in the same run with exactly one new
// version, and exactly one token was minted per logical write.
func TestAmbiguousCreateAndUpdate_ConvergeWithOneVersion(t *testing.T) {
	cases := []struct {
		name      string
		sdkRetry  bool
		fault     string
		wantCalls int64 // calls of the faulted operation
	}{
		{"after-apply, SDK retries with the same token", true, "ambiguous-after-apply", 2},
		{"before-apply, SDK retries", true, "ambiguous-before-apply", 2},
		{"after-apply, proven by re-observation", false, "ambiguous-after-apply", 1},
		{"before-apply, one engine retry with the same token", false, "ambiguous-before-apply", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			eachConcurrency(t, func(t *testing.T, conc int) {
				var opts []func(*secretsmanager.Options)
				if !tc.sdkRetry {
					opts = append(opts, noSDKRetry)
				}
				e := newEnv(t, opts...)
				e.seedOwned(t, "upd", `{"v":0}`)
				st := state(doc{"new", `{"v":1}`}, doc{"upd", `{"v":1}`})
				faults := append(script("CreateSecret", tc.fault, 1), script("PutSecretValue", tc.fault, 1)...)
				e.srv.SetFaults(t, emulator.Faults{Script: faults})
				tokens := &countingTokens{}
				cfg := e.cfg(engine.ModeSync, conc)
				cfg.Tokens = tokens
				before := e.calls(t)
				wantResult(t, e.run(t, cfg, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1, Update: 1})
				after := e.calls(t)
				for _, op := range []string{"CreateSecret", "PutSecretValue"} {
					if got := after[op] - before[op]; got != tc.wantCalls {
						t.Errorf("%s calls = %d, want %d", op, got, tc.wantCalls)
					}
				}
				if tokens.n.Load() != 2 {
					t.Errorf("minted %d tokens, want one per logical write (2)", tokens.n.Load())
				}
				if v := e.secret(t, nameOf("new")).Versions; len(v) != 1 {
					t.Errorf("created secret has %d versions, want 1", len(v))
				}
				if v := e.secret(t, nameOf("upd")).Versions; len(v) != 2 {
					t.Errorf("updated secret has %d versions, want the seed + exactly one new", len(v))
				}
			})
		})
	}
}

// TestAmbiguousDeleteUnproven_FailsThenNextRunConverges: a schedule-delete
// whose every attempt loses its response before applying cannot be proven;
// it is never re-issued in the same run, the run ends apply-failed, and the
// next run converges.
func TestAmbiguousDeleteUnproven_FailsThenNextRunConverges(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "keep", `{}`)
		e.seedOwned(t, "gone", `{}`)
		st := state(doc{"keep", `{}`})
		e.srv.SetFaults(t, emulator.Faults{Script: script("DeleteSecret", "ambiguous-before-apply", 1, 2, 3)})
		before := e.calls(t)
		wantResult(t, e.sync(t, conc, st), vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Unchanged: 1})
		if got := e.calls(t)["DeleteSecret"] - before["DeleteSecret"]; got != 3 {
			t.Fatalf("DeleteSecret calls = %d, want the SDK's 3 attempts and no engine retry", got)
		}
		e.srv.SetFaults(t, emulator.Faults{})
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{ScheduleDelete: 1, Unchanged: 1})
	})
}

// TestAmbiguousRestoreUnproven_FailsThenNextRunConverges mirrors the delete
// case for RestoreSecret.
func TestAmbiguousRestoreUnproven_FailsThenNextRunConverges(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t, noSDKRetry)
		e.del(t, e.seedOwned(t, "back", `{"v":1}`))
		st := state(doc{"back", `{"v":1}`})
		e.srv.SetFaults(t, emulator.Faults{Script: script("RestoreSecret", "ambiguous-before-apply", 1)})
		wantResult(t, e.sync(t, conc, st), vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{})
		if e.calls(t)["RestoreSecret"] != 1 {
			t.Fatal("an unproven restore must not be re-issued in the same run")
		}
		e.srv.SetFaults(t, emulator.Faults{})
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Restore: 1})
	})
}

// TestAmbiguousDeleteAndRestoreProven_AreAccepted: when the lost response
// hid a write that landed, re-observation proves it and the run converges
// (the SDK's own retry gets an error from the already-changed secret).
func TestAmbiguousDeleteAndRestoreProven_AreAccepted(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "gone", `{}`)
		e.del(t, e.seedOwned(t, "back", `{"v":1}`))
		st := state(doc{"back", `{"v":1}`})
		e.srv.SetFaults(t, emulator.Faults{Script: append(script("DeleteSecret", "ambiguous-after-apply", 1), script("RestoreSecret", "ambiguous-after-apply", 1)...)})
		wantResult(t, e.sync(t, conc, st), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Restore: 1, ScheduleDelete: 1})
	})
}

// TestFailureStopsNewOperations: after a non-ambiguous failure no new
// operation starts, and no later phase runs.
func TestFailureStopsNewOperations(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "upd", `{"v":0}`)
		e.seedOwned(t, "gone", `{}`)
		var docs []doc
		for i := range 5 {
			docs = append(docs, doc{fmt.Sprintf("new%d", i), `{}`})
		}
		st := state(append(docs, doc{"upd", `{"v":1}`})...)
		e.srv.SetFaults(t, emulator.Faults{Script: script("CreateSecret", "error:InvalidParameterException", 1)})
		before := e.calls(t)
		res := e.sync(t, conc, st)
		if res.Status != vocab.StatusApplyFailed || res.Verification != vocab.VerificationNotRun {
			t.Fatalf("result = %+v", res)
		}
		c := e.calls(t)
		for op := range c {
			c[op] -= before[op]
		}
		if c["PutSecretValue"] != 0 || c["DeleteSecret"] != 0 {
			t.Fatalf("a later phase ran after a failure: %v", c)
		}
		if conc == 1 && c["CreateSecret"] != 1 {
			t.Fatalf("sequential: %d creates started after the first failed", c["CreateSecret"]-1)
		}
		if c["CreateSecret"] > int64(conc) {
			t.Fatalf("%d creates: more than the in-flight bound started after a failure", c["CreateSecret"])
		}
		if int64(res.Counts.Create) != c["CreateSecret"]-1 {
			t.Fatalf("counts %+v must reflect the creates that took effect", res.Counts)
		}
	})
}

// TestTokens_AreFreshAndLongEnough: the default token source gives 64 hex
// characters, different each time (SPEC §6).
func TestTokens_AreFreshAndLongEnough(t *testing.T) {
	a, b := engine.CryptoTokens{}.NewToken(), engine.CryptoTokens{}.NewToken()
	if !hex64.MatchString(a) || a == b {
		t.Fatalf("tokens %q %q", a, b)
	}
}
