package engine_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// firstRead is a port that closes read when the scope's first
// DescribeSecret is sent: the proof that observation began.
func firstRead(p Port) (*hookPort, <-chan struct{}) {
	read := make(chan struct{})
	var once sync.Once
	return &hookPort{Port: p, beforeDesc: func(int, string) { once.Do(func() { close(read) }) }}, read
}

// afterRead is an arrival of st that is finished (with st's values, or
// rejected with err) only once read is closed, so the scope's observation
// must have begun without the values: an engine that waited for them
// first would never read, and the run would end interrupted at the test's
// deadline.
func afterRead(t *testing.T, read <-chan struct{}, st model.State, err error) *model.Arrival {
	a := model.NewArrival(st)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		select {
		case <-read:
		case <-ctx.Done():
			a.Finish(ctx.Err())
			return
		}
		if err == nil {
			for i, s := range st.Secrets {
				a.Publish(i, s.Value)
			}
		}
		a.Finish(err)
	}()
	return a
}

func (e *env) runValues(t *testing.T, mode engine.Mode, runs ...engine.ScopeRun) []engine.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for i := range runs {
		runs[i].Config = e.cfg(mode, 4)
		runs[i].Log = log
	}
	return engine.RunScopes(ctx, runs, 0, log)
}

// TestValues_ObservationBeginsBeforeTheValuesAndThePlanUsesThem: the scope
// is observed with the outline while its values are still on their way
// (they arrive only after the first DescribeSecret), and the plan is built
// from the values: the one changed document is updated to its new value,
// the others are unchanged.
func TestValues_ObservationBeginsBeforeTheValuesAndThePlanUsesThem(t *testing.T) {
	e := newEnv(t)
	first := state(doc{"a", `{"k":"1"}`}, doc{"b", `{"k":"2"}`}, doc{"c", `{"k":"3"}`})
	wantResult(t, e.sync(t, 4, first), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 3})

	next := state(doc{"a", `{"k":"1"}`}, doc{"b", `{"k":"changed"}`}, doc{"c", `{"k":"3"}`})
	port, read := firstRead(e.port)
	got := e.runValues(t, engine.ModeSync, engine.ScopeRun{Arrival: afterRead(t, read, next, nil), Port: port})
	wantResult(t, got[0], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1, Unchanged: 2})
	if v := current(e.secret(t, nameOf("b"))); v != `{"k":"changed"}` {
		t.Fatalf("b = %q, want the value that arrived after observation began", v)
	}
}

// TestValues_RejectedAfterObservationBeganWritesNothing: one scope's
// desired state is rejected after its observation began; the other scope,
// whose values arrived and whose plan creates two secrets, is not applied
// either (all or nothing, SPEC §10): not one mutating call.
func TestValues_RejectedAfterObservationBeganWritesNothing(t *testing.T) {
	for _, mode := range []engine.Mode{engine.ModeSync, engine.ModePlan} {
		e := newEnv(t)
		bad := scopeDef{"bad", "a", []doc{{"x", `{"a":1}`}}}
		good := scopeDef{"good", "a", []doc{{"x", `{"b":2}`}, {"y", `{"c":3}`}}}
		port, read := firstRead(e.port)
		before := e.calls(t)
		rejected := errors.New("desired: decrypt:malformed")
		got := e.runValues(t, mode,
			engine.ScopeRun{Bucket: "a", Arrival: afterRead(t, read, bad.state(), rejected), Port: port},
			engine.ScopeRun{Bucket: "a", Arrival: afterRead(t, read, good.state(), nil), Port: e.port})
		after := e.calls(t)
		if after["DescribeSecret"] == before["DescribeSecret"] {
			t.Fatalf("%v: no DescribeSecret: observation did not begin before the values", mode)
		}
		if n := mutations(before, after); n != 0 {
			t.Fatalf("%v: %d mutating calls after a rejected desired state, want 0", mode, n)
		}
		if got[0].Status != vocab.StatusInvalid || got[0].Verification != vocab.VerificationNotRun {
			t.Fatalf("%v: rejected scope = %+v, want invalid, not-run", mode, got[0])
		}
		if got[1].Status != vocab.StatusDrift || len(got[1].Plan) != 2 || got[1].Plan[0].Action != vocab.ActionCreate || got[1].Verification != vocab.VerificationNotRun {
			t.Fatalf("%v: other scope = %+v, want its plan (drift, 2 creates) not applied", mode, got[1])
		}
	}
}

// TestValues_InterruptedWhileDecryptingWritesNothing: a run cancelled
// (signal, run timeout) after its observation began and before its values
// arrived ends interrupted with no mutating call.
func TestValues_InterruptedWhileDecryptingWritesNothing(t *testing.T) {
	e := newEnv(t)
	st := state(doc{"a", `{"k":"1"}`}, doc{"b", `{"k":"2"}`})
	port, read := firstRead(e.port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	never := model.NewArrival(st) // never finished
	go func() {
		<-read
		cancel() // the signal arrives while the documents are decrypted
	}()
	before := e.calls(t)
	got := engine.RunScopes(ctx, []engine.ScopeRun{{Config: e.cfg(engine.ModeSync, 4), Arrival: never, Port: port}}, 0, nil)
	wantResult(t, got[0], vocab.StatusInterrupted, vocab.VerificationNotRun, vocab.Counts{})
	if n := mutations(before, e.calls(t)); n != 0 {
		t.Fatalf("%d mutating calls after an interruption during decryption, want 0", n)
	}
}

// TestValues_StateWithoutEveryValueFailsClosed: an arrival finished
// without every value (a bug of the loader: model.ErrIncomplete) ends the
// scope invalid with an internal diagnostic and nothing written.
func TestValues_StateWithoutEveryValueFailsClosed(t *testing.T) {
	st := state(doc{"a", `{"k":"1"}`}, doc{"b", `{"k":"2"}`})
	for name, published := range map[string][]int{"none": nil, "one of two": {1}} {
		e := newEnv(t)
		before := e.calls(t)
		a := model.NewArrival(st)
		for _, i := range published {
			a.Publish(i, st.Secrets[i].Value)
		}
		a.Finish(nil)
		got := e.runValues(t, engine.ModeSync, engine.ScopeRun{Arrival: a, Port: e.port})
		if got[0].Status != vocab.StatusInvalid {
			t.Fatalf("%s: status %s, want invalid", name, got[0].Status)
		}
		if len(got[0].Diagnostics) != 1 || got[0].Diagnostics[0].Class != diag.Internal {
			t.Fatalf("%s: diagnostics %+v, want one %s", name, got[0].Diagnostics, diag.Internal)
		}
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%s: %d mutating calls, want 0", name, n)
		}
	}
}
