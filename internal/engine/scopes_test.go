package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// scopeDef is one scope of a multi-scope test run: its identity (prefix
// and source root derived from name) and its quota bucket.
type scopeDef struct {
	name, bucket string
	docs         []doc
}

func (s scopeDef) scope() model.Scope {
	return model.Scope{RepositoryID: "acme/app", SourceRoot: "secrets/" + s.name, Prefix: "app-" + s.name}
}

func (s scopeDef) secretName(base string) string { return s.scope().Prefix + "/" + base }

// state is the desired state of s as the loader builds it (names sorted,
// ordinals by path order).
func (s scopeDef) state() model.State {
	sc := s.scope()
	st := model.State{Commit: "0123456789abcdef0123456789abcdef01234567", Scope: sc}
	docs := slices.Clone(s.docs)
	slices.SortFunc(docs, func(a, b doc) int { return strings.Compare(a.base, b.base) })
	for i, d := range docs {
		path := sc.SourceRoot + "/" + d.base + ".sops.json"
		st.Secrets = append(st.Secrets, model.Secret{Name: s.secretName(d.base), Value: []byte(d.value),
			SourceDigest: model.SourceDigest(path), Path: path, Ordinal: i + 1})
	}
	slices.SortFunc(st.Secrets, func(a, b model.Secret) int { return bytes.Compare([]byte(a.Name), []byte(b.Name)) })
	return st
}

// runScopes runs defs as one run against e's emulator, each scope with its
// own adapter and a logger that carries the scope field (as the CLI's).
func (e *env) runScopes(t *testing.T, mode engine.Mode, conc int, defs ...scopeDef) []engine.Result {
	t.Helper()
	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var runs []engine.ScopeRun
	for _, d := range defs {
		cfg := e.cfg(mode, conc)
		cfg.Scope = d.name
		runs = append(runs, engine.ScopeRun{Bucket: d.bucket, Config: cfg, Arrival: model.Arrived(d.state()),
			Port: newAdapter(e.client), Log: log.With(slog.String(vocab.FieldScope, d.name))})
	}
	return engine.RunScopes(context.Background(), runs, 0, log)
}

// writesUnder counts the versions the emulator holds of the secrets under
// prefix (0: nothing was ever written there).
func (e *env) writesUnder(t *testing.T, prefix string) int {
	t.Helper()
	n := 0
	for _, s := range e.srv.State(t).Secrets {
		if strings.HasPrefix(s.Name, prefix+"/") {
			n += len(s.Versions)
		}
	}
	return n
}

// TestRunScopes_CreatesAllThenNoOp: three scopes in two buckets are created
// by one run, each verified, and the re-run makes no mutating call.
func TestRunScopes_CreatesAllThenNoOp(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		defs := []scopeDef{
			{"one", "a", []doc{{"x", `{"a":1}`}, {"y", `{"b":2}`}}},
			{"two", "b", []doc{{"x", `{"c":3}`}}},
			{"three", "a", []doc{{"z", `{"d":4}`}}},
		}
		got := e.runScopes(t, engine.ModeSync, conc, defs...)
		if len(got) != 3 {
			t.Fatalf("got %d results, want 3", len(got))
		}
		wantResult(t, got[0], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
		wantResult(t, got[1], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
		wantResult(t, got[2], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
		for _, d := range defs {
			for _, doc := range d.docs {
				if v := current(e.secret(t, d.secretName(doc.base))); v != doc.value {
					t.Errorf("%s = %q, want %q", d.secretName(doc.base), v, doc.value)
				}
			}
		}

		before := e.calls(t)
		got = e.runScopes(t, engine.ModeSync, conc, defs...)
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("re-run made %d mutating calls, want 0", n)
		}
		wantResult(t, got[0], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
		wantResult(t, got[1], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 1})
		wantResult(t, got[2], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 1})
	})
}

// TestRunScopes_ConflictInOneScopeAppliesNothing: a foreign secret in the
// second scope's prefix blocks the whole run at planning; the other scopes
// report their plan (drift, verification not-run) and nothing is written
// anywhere.
func TestRunScopes_ConflictInOneScopeAppliesNothing(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		defs := []scopeDef{
			{"one", "a", []doc{{"x", `{"a":1}`}}},
			{"two", "b", []doc{{"x", `{"c":3}`}}},
			{"three", "b", []doc{{"z", `{"d":4}`}}},
		}
		e.seed(t, defs[1].secretName("x"), aws.String(`{"foreign":true}`), nil, nil)
		before := e.calls(t)
		got := e.runScopes(t, engine.ModeSync, conc, defs...)
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("blocked run made %d mutating calls, want 0", n)
		}
		wantResult(t, got[0], vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{})
		wantResult(t, got[1], vocab.StatusConflict, vocab.VerificationNotRun, vocab.Counts{Conflicts: 1})
		wantResult(t, got[2], vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{})
		if len(got[0].Plan) != 1 || got[0].Plan[0].Action != vocab.ActionCreate {
			t.Errorf("scope one's shown plan = %+v, want its one create", got[0].Plan)
		}
		if !strings.Contains(e.logs.String(), "nothing was applied in any scope") {
			t.Errorf("the run's record of the block is missing:\n%s", e.logs.String())
		}
	})
}

// TestRunScopes_GateInOneScopeAppliesNothing: the deletion gate of one
// scope (invalid) blocks the others' creates.
func TestRunScopes_GateInOneScopeAppliesNothing(t *testing.T) {
	e := newEnv(t)
	gated := scopeDef{"two", "a", nil}
	e.seed(t, gated.secretName("old"), aws.String(`{}`), nil, gated.scope().Tags(gated.scope().SourceRoot+"/old.sops.json"))
	before := e.calls(t)
	got := e.runScopes(t, engine.ModeSync, 4, scopeDef{"one", "a", []doc{{"x", `{}`}}}, gated)
	if n := mutations(before, e.calls(t)); n != 0 {
		t.Fatalf("blocked run made %d mutating calls, want 0", n)
	}
	wantResult(t, got[0], vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{})
	if got[1].Status != vocab.StatusInvalid || len(got[1].Diagnostics) != 1 || got[1].Diagnostics[0].Class != diag.GateEmptyScope {
		t.Fatalf("gated scope = %+v, want invalid with gate:empty-scope", got[1])
	}
}

// TestRunScopes_FailureHaltsTheRestOfItsBucket: the first scope of a bucket
// fails to apply (AccessDenied on its create); the next scope of the bucket
// starts no operation (apply-failed, apply:halted) and writes nothing.
func TestRunScopes_FailureHaltsTheRestOfItsBucket(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.srv.SetFaults(t, emulator.Faults{Script: script("CreateSecret", "error:AccessDeniedException", 1)})
		defs := []scopeDef{
			{"one", "a", []doc{{"x", `{"a":1}`}}},
			{"two", "a", []doc{{"x", `{"c":3}`}, {"y", `{}`}}},
		}
		got := e.runScopes(t, engine.ModeSync, conc, defs...)
		wantResult(t, got[0], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{})
		wantResult(t, got[1], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{})
		if ds := got[1].Diagnostics; len(ds) != 1 || ds[0].Class != diag.ApplyHalted {
			t.Errorf("halted scope's diagnostics = %+v, want apply:halted", ds)
		}
		if n := e.writesUnder(t, defs[1].scope().Prefix); n != 0 {
			t.Errorf("halted scope has %d versions written, want 0", n)
		}
		if calls := e.calls(t)["CreateSecret"]; calls != 1 {
			t.Errorf("CreateSecret calls = %d, want 1 (the failed one; the halted scope starts none)", calls)
		}

		// The fault is gone: the re-run converges every scope.
		e.srv.SetFaults(t, emulator.Faults{})
		got = e.runScopes(t, engine.ModeSync, conc, defs...)
		wantResult(t, got[0], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
		wantResult(t, got[1], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
	})
}

// TestRunScopes_ScopeAppliedBeforeAFailureIsVerified: a scope that finished
// its apply before another scope of its bucket failed is verified
// (converged); only the failing scope fails.
func TestRunScopes_ScopeAppliedBeforeAFailureIsVerified(t *testing.T) {
	e := newEnv(t)
	e.srv.SetFaults(t, emulator.Faults{Script: script("CreateSecret", "error:AccessDeniedException", 2)})
	got := e.runScopes(t, engine.ModeSync, 1,
		scopeDef{"one", "a", []doc{{"x", `{"a":1}`}}},
		scopeDef{"two", "a", []doc{{"x", `{"c":3}`}}})
	wantResult(t, got[0], vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})
	wantResult(t, got[1], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{})
}

// TestRunScopes_PlanReportsEveryScope: plan mode observes and plans every
// scope and applies none; drift in one scope only is that scope's status.
func TestRunScopes_PlanReportsEveryScope(t *testing.T) {
	e := newEnv(t)
	defs := []scopeDef{
		{"one", "a", []doc{{"x", `{"a":1}`}}},
		{"two", "b", []doc{{"x", `{"c":3}`}}},
	}
	e.runScopes(t, engine.ModeSync, 4, defs...)
	defs[1].docs = []doc{{"x", `{"c":4}`}}
	before := e.calls(t)
	got := e.runScopes(t, engine.ModePlan, 4, defs...)
	if n := mutations(before, e.calls(t)); n != 0 {
		t.Fatalf("plan made %d mutating calls", n)
	}
	wantResult(t, got[0], vocab.StatusConverged, vocab.VerificationNotRun, vocab.Counts{Unchanged: 1})
	wantResult(t, got[1], vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Update: 1})
	if s := vocab.MostSevere(got[0].Status, got[1].Status); vocab.ExitCode(s, true) != vocab.ExitDrift {
		t.Errorf("run status %s, want drift (exit 2 with --detailed-exit-code)", s)
	}
}

// TestRunScopes_EveryScopeRecordCarriesItsScope: each record a scope's
// engine logs carries that scope's name.
func TestRunScopes_EveryScopeRecordCarriesItsScope(t *testing.T) {
	e := newEnv(t)
	e.runScopes(t, engine.ModeSync, 2,
		scopeDef{"one", "a", []doc{{"x", `{"a":1}`}}},
		scopeDef{"two", "b", []doc{{"x", `{"c":3}`}}})
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if s, ok := rec[vocab.FieldScope].(string); ok {
			seen[s]++
		}
		if rec["msg"] == "plan built" && rec[vocab.FieldScope] == nil {
			t.Errorf("a scope's record lacks the scope field: %s", line)
		}
	}
	if seen["one"] == 0 || seen["two"] == 0 {
		t.Errorf("records per scope = %v, want both scopes", seen)
	}
}

// failingCreates is a port whose creates fail closed (AccessDenied, never
// ambiguous) without reaching AWS, once after is closed.
type failingCreates struct {
	Port
	after <-chan struct{}
}

func (f failingCreates) Create(context.Context, engine.CreateRequest) (engine.WriteResult, error) {
	<-f.after
	return engine.WriteResult{}, &engine.Error{Operation: "CreateSecret", Code: "AccessDeniedException", Fault: "client", AccessDenied: true}
}

// heldCreates is a port whose first create closes entered, then waits for
// release before it goes to AWS.
type heldCreates struct {
	Port
	entered chan<- struct{}
	release <-chan struct{}
	once    sync.Once
}

func (h *heldCreates) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	h.once.Do(func() { close(h.entered); <-h.release })
	return h.Port.Create(ctx, req)
}

// watch is a log handler that closes seen at the first record whose
// message is msg (and that carries attr, when set), and drops every
// record.
type watch struct {
	msg  string
	attr slog.Attr
	seen chan struct{}
	once *sync.Once
}

func (w watch) Enabled(context.Context, slog.Level) bool { return true }
func (w watch) Handle(_ context.Context, r slog.Record) error {
	has := w.attr.Key == ""
	r.Attrs(func(a slog.Attr) bool {
		has = has || a.Equal(w.attr)
		return !has
	})
	if r.Message == w.msg && has {
		w.once.Do(func() { close(w.seen) })
	}
	return nil
}
func (w watch) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w watch) WithGroup(string) slog.Handler      { return w }

// TestRunScopes_FailureHaltsOtherBuckets: a failure in one bucket stops
// every other bucket from starting a new operation. Scope one (bucket a)
// fails its create once scope two (bucket b) has its first create in
// flight, which is held until scope one's failed phase is over: that create
// finishes (in flight, never abandoned), the next two never start.
func TestRunScopes_FailureHaltsOtherBuckets(t *testing.T) {
	e := newEnv(t)
	entered, over := make(chan struct{}), make(chan struct{})
	one := scopeDef{"one", "a", []doc{{"x", `{"a":1}`}}}
	two := scopeDef{"two", "b", []doc{{"x", `{}`}, {"y", `{}`}, {"z", `{}`}}}
	cfg := e.cfg(engine.ModeSync, 1)
	runs := []engine.ScopeRun{
		{Bucket: one.bucket, Config: cfg, Arrival: model.Arrived(one.state()), Port: failingCreates{Port: newAdapter(e.client), after: entered},
			Log: slog.New(watch{msg: "phase applied", seen: over, once: &sync.Once{}})},
		{Bucket: two.bucket, Config: cfg, Arrival: model.Arrived(two.state()), Port: &heldCreates{Port: newAdapter(e.client), entered: entered, release: over},
			Log: slog.New(slog.DiscardHandler)},
	}
	got := engine.RunScopes(context.Background(), runs, 0, nil)
	wantResult(t, got[0], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{})
	wantResult(t, got[1], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Create: 1})
	if ds := got[1].Diagnostics; len(ds) != 1 || ds[0].Class != diag.ApplyHalted {
		t.Errorf("scope two's diagnostics = %+v, want apply:halted", ds)
	}
	if n := e.calls(t)["CreateSecret"]; n != 1 {
		t.Errorf("CreateSecret calls = %d, want 1 (the one in flight)", n)
	}
}

// TestRunScopes_FailureHaltsOtherBucketsWhileItsPhaseRuns: the halt rises
// as the failed operation returns, not when its scope's phase is over: no
// new operation starts anywhere after a failure even while the failing
// scope still has an operation in flight (SPEC §10). Scope one (bucket a,
// concurrency 2) creates x and y: x fails once scope two's first create is
// in flight, y is held until scope two's phase is over. Scope two (bucket
// b) holds its first create until scope one has counted x done (its apply
// progress record, logged after the failure is settled): that create
// finishes, the next two never start. The only halt that can stop them is
// the one x raised, since y keeps scope one's phase open.
func TestRunScopes_FailureHaltsOtherBucketsWhileItsPhaseRuns(t *testing.T) {
	e := newEnv(t)
	entered, counted, twoOver := make(chan struct{}), make(chan struct{}), make(chan struct{})
	one := scopeDef{"one", "a", []doc{{"x", `{}`}, {"y", `{}`}}}
	two := scopeDef{"two", "b", []doc{{"a", `{}`}, {"b", `{}`}, {"c", `{}`}}}
	cfgOne := e.cfg(engine.ModeSync, 2)
	cfgOne.ProgressInterval = time.Nanosecond // a progress record for every operation done
	cfgTwo := e.cfg(engine.ModeSync, 1)
	runs := []engine.ScopeRun{
		{Bucket: one.bucket, Config: cfgOne, Arrival: model.Arrived(one.state()),
			Port: splitCreates{Port: newAdapter(e.client), fail: one.secretName("x"), failAfter: entered, hold: twoOver},
			Log:  slog.New(watch{msg: "progress", attr: slog.String(vocab.FieldPhase, vocab.PhaseApply), seen: counted, once: &sync.Once{}})},
		{Bucket: two.bucket, Config: cfgTwo, Arrival: model.Arrived(two.state()), Port: &heldCreates{Port: newAdapter(e.client), entered: entered, release: counted},
			Log: slog.New(watch{msg: "phase applied", seen: twoOver, once: &sync.Once{}})},
	}
	got := engine.RunScopes(context.Background(), runs, 0, nil)
	wantResult(t, got[0], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Create: 1})
	wantResult(t, got[1], vocab.StatusApplyFailed, vocab.VerificationNotRun, vocab.Counts{Create: 1})
	if ds := got[1].Diagnostics; len(ds) != 1 || ds[0].Class != diag.ApplyHalted {
		t.Errorf("scope two's diagnostics = %+v, want apply:halted", ds)
	}
	if n := e.calls(t)["CreateSecret"]; n != 2 {
		t.Errorf("CreateSecret calls = %d, want 2 (scope one's y and scope two's first, both in flight)", n)
	}
}

// splitCreates is a port whose create of fail fails closed (AccessDenied,
// without reaching AWS) once failAfter is closed, and whose every other
// create waits for hold before it goes to AWS.
type splitCreates struct {
	Port
	fail            string
	failAfter, hold <-chan struct{}
}

func (s splitCreates) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	if req.Name == s.fail {
		<-s.failAfter
		return engine.WriteResult{}, &engine.Error{Operation: "CreateSecret", Code: "AccessDeniedException", Fault: "client", AccessDenied: true}
	}
	<-s.hold
	return s.Port.Create(ctx, req)
}
