package engine_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// onRecord is a log handler that calls fire (once) when a record whose
// message contains msg is handled, then writes it as its Handler does.
type onRecord struct {
	slog.Handler
	msg  string
	fire func()
}

func (h onRecord) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.msg) {
		h.fire()
	}
	return h.Handler.Handle(ctx, r)
}

func (h onRecord) WithAttrs(as []slog.Attr) slog.Handler {
	return onRecord{h.Handler.WithAttrs(as), h.msg, h.fire}
}

func (h onRecord) WithGroup(name string) slog.Handler {
	return onRecord{h.Handler.WithGroup(name), h.msg, h.fire}
}

// runArrivingLate runs st as one scope whose values arrive only once the
// first observation has ended (the engine's record that it waits for the
// desired state is the signal): the whole first observation runs with the
// outline alone, and every judgement of a value happens after the values
// arrived. It returns the result and the arrival (whose outline the caller
// may inspect).
func (e *env) runArrivingLate(t *testing.T, mode engine.Mode, st model.State, p engine.Port) (engine.Result, *model.Arrival) {
	t.Helper()
	a := model.NewArrival(st)
	var once sync.Once
	finish := func() {
		once.Do(func() {
			for i, s := range st.Secrets {
				a.Publish(i, s.Value)
			}
			a.Finish(nil)
		})
	}
	log := slog.New(onRecord{slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
		"waiting for the desired state to finish decrypting", finish})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	got := engine.RunScopes(ctx, []engine.ScopeRun{{Config: e.cfg(mode, 2), Arrival: a, Port: p, Log: log}}, 0, log)
	if !strings.Contains(e.logs.String(), "waiting for the desired state to finish decrypting") {
		t.Fatalf("the values were needed before the first observation ended:\n%s", e.logs)
	}
	return got[0], a
}

// With the values arriving after the first observation, a Surveyor's
// listed names are confirmed once the values are whole (SPEC §3.2, §16):
// only the changed name is described, never a converged one (which a
// confirmation before the values would have described for want of its
// value), and the write lands.
func TestSurveyor_ValuesArrivingLateConfirmOnlyTheChangedName(t *testing.T) {
	e := newEnv(t)
	e.sync(t, 2, state(doc{"a", "1"}, doc{"b", "2"}, doc{"c", "3"}))
	sp := &surveyPort{Port: e.port, client: e.client}
	got, _ := e.runArrivingLate(t, engine.ModeSync, state(doc{"a", "1"}, doc{"b", "two"}, doc{"c", "3"}), sp)
	wantResult(t, got, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 1, Unchanged: 2})
	d, _ := sp.counted()
	if len(d) == 0 {
		t.Fatal("the changed listed name was never described")
	}
	for _, id := range d {
		if !strings.Contains(id, nameOf("b")) {
			t.Fatalf("a converged listed name was described: %v", d)
		}
	}
}

// With the values arriving after the first observation, a listed entry is
// still judged from its direct describe before planning: a secret of this
// scope whose source tag names another document is a conflict, not an
// update the listing alone (which cannot show the source tag) would plan.
func TestSurveyor_ValuesArrivingLateStillJudgeFromTheDirectDescribe(t *testing.T) {
	e := newEnv(t)
	e.seed(t, nameOf("b"), aws.String("x"), nil, testScope.Tags(pathOf("other")))
	sp := &surveyPort{Port: e.port, client: e.client}
	got, _ := e.runArrivingLate(t, engine.ModePlan, state(doc{"b", "2"}), sp)
	if got.Counts != (vocab.Counts{Conflicts: 1}) {
		t.Fatalf("counts = %+v, want 1 conflict", got.Counts)
	}
}

// The engine fills the values that arrive into its own copy of the
// desired state: the arrival's outline (model.Arrival: names, no values)
// is never written, so a caller that reads it after the run reads no
// value.
func TestValues_TheArrivalsOutlineStaysWithoutValues(t *testing.T) {
	e := newEnv(t)
	got, a := e.runArrivingLate(t, engine.ModeSync, state(doc{"a", "1"}, doc{"b", "2"}), e.port)
	wantResult(t, got, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
	for _, s := range a.Outline().Secrets {
		if s.Value != nil {
			t.Errorf("the outline's %s holds a value after the run", s.Name)
		}
	}
}
