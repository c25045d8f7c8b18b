package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

var testScope = model.Scope{RepositoryID: "acme/app", SourceRoot: "secrets", Prefix: "app"}

// concurrencies are the settings every scenario runs with: strictly
// sequential and the default.
var concurrencies = []int{1, config.DefaultConcurrency}

func eachConcurrency(t *testing.T, f func(t *testing.T, conc int)) {
	for _, c := range concurrencies {
		t.Run(fmt.Sprintf("concurrency=%d", c), func(t *testing.T) { f(t, c) })
	}
}

// doc is one desired document: its name under the prefix and its value.
type doc struct{ base, value string }

func pathOf(base string) string { return "secrets/" + base + ".sops.json" }
func nameOf(base string) string { return "app/" + base }

// state builds a desired state as the desired-state loader would: names
// sorted, ordinals by path order.
func state(docs ...doc) model.State {
	slices.SortFunc(docs, func(a, b doc) int {
		if pathOf(a.base) < pathOf(b.base) {
			return -1
		}
		return 1
	})
	st := model.State{Commit: "0123456789abcdef0123456789abcdef01234567", Scope: testScope}
	for i, d := range docs {
		st.Secrets = append(st.Secrets, model.Secret{Name: nameOf(d.base), Value: []byte(d.value),
			SourceDigest: model.SourceDigest(pathOf(d.base)), Path: pathOf(d.base), Ordinal: i + 1})
	}
	slices.SortFunc(st.Secrets, func(a, b model.Secret) int { return bytes.Compare([]byte(a.Name), []byte(b.Name)) })
	return st
}

// Port is the Secrets Manager adapter as these tests hold and wrap it: the
// core port with every capability of its target (model.Target.Capabilities).
// A wrapper embeds it, not engine.Port, so that the engine, which asks the
// port once for each capability (engine.Restorer, engine.Replicator,
// engine.LabelMover), finds them behind the wrapper as on the adapter.
type Port interface {
	engine.Port
	engine.Restorer
	engine.Replicator
	engine.LabelMover
}

// env is one emulator plus the real SDK client and our adapter over it.
type env struct {
	srv    *emulatortest.Server
	client *secretsmanager.Client
	port   Port
	logs   *syncBuffer
}

func newEnv(t *testing.T, clientOpts ...func(*secretsmanager.Options)) *env {
	srv := emulatortest.Start(t)
	c := srv.Client(t, clientOpts...)
	return &env{srv: srv, client: c, port: newAdapter(c), logs: &syncBuffer{}}
}

func (e *env) cfg(mode engine.Mode, conc int) engine.Config {
	return engine.Config{Mode: mode, Engine: config.Engine{RecoveryWindowDays: 7, Concurrency: conc, VerificationTimeout: 10 * time.Second},
		PollInterval: 10 * time.Millisecond}
}

func (e *env) run(t *testing.T, cfg engine.Config, st model.State) engine.Result {
	t.Helper()
	return e.runPort(t, cfg, st, e.port)
}

func (e *env) runPort(t *testing.T, cfg engine.Config, st model.State, p engine.Port) engine.Result {
	t.Helper()
	log := slog.New(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return engine.Run(context.Background(), cfg, model.Arrived(st), p, log)
}

func (e *env) sync(t *testing.T, conc int, st model.State) engine.Result {
	t.Helper()
	return e.run(t, e.cfg(engine.ModeSync, conc), st)
}

func (e *env) plan(t *testing.T, conc int, st model.State) engine.Result {
	t.Helper()
	return e.run(t, e.cfg(engine.ModePlan, conc), st)
}

// seed creates a secret directly through the SDK, as another actor would.
func (e *env) seed(t *testing.T, name string, value *string, binary []byte, tags map[string]string) string {
	t.Helper()
	in := &secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: value, SecretBinary: binary}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		in.Tags = append(in.Tags, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	out, err := e.client.CreateSecret(context.Background(), in)
	if err != nil {
		t.Fatalf("seed %s: %v", name, err)
	}
	return aws.ToString(out.ARN)
}

// seedOwned creates a secret of this scope for document base holding value.
func (e *env) seedOwned(t *testing.T, base, value string) string {
	t.Helper()
	return e.seed(t, nameOf(base), aws.String(value), nil, testScope.Tags(pathOf(base)))
}

func (e *env) put(t *testing.T, id, value string) {
	t.Helper()
	if _, err := e.client.PutSecretValue(context.Background(), &secretsmanager.PutSecretValueInput{SecretId: aws.String(id), SecretString: aws.String(value)}); err != nil {
		t.Fatalf("out-of-band put: %v", err)
	}
}

func (e *env) del(t *testing.T, id string) {
	t.Helper()
	if _, err := e.client.DeleteSecret(context.Background(), &secretsmanager.DeleteSecretInput{SecretId: aws.String(id), RecoveryWindowInDays: aws.Int64(7)}); err != nil {
		t.Fatalf("out-of-band delete: %v", err)
	}
}

// mutatingOps are the operations that change Secrets Manager state.
var mutatingOps = []string{"CreateSecret", "PutSecretValue", "UpdateSecret", "DeleteSecret", "RestoreSecret",
	"TagResource", "UntagResource", "UpdateSecretVersionStage", "RotateSecret", "CancelRotateSecret"}

func (e *env) calls(t *testing.T) map[string]int64 {
	t.Helper()
	return e.srv.Stats(t).Calls
}

func mutations(before, after map[string]int64) int64 {
	var n int64
	for _, op := range mutatingOps {
		n += after[op] - before[op]
	}
	return n
}

// secret returns the emulator's record of name (failing if absent).
func (e *env) secret(t *testing.T, name string) emulator.SecretDump {
	t.Helper()
	for _, s := range e.srv.State(t).Secrets {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("secret %s not in emulator state", name)
	return emulator.SecretDump{}
}

// current returns the AWSCURRENT string of name ("" if none).
func current(s emulator.SecretDump) string {
	for _, v := range s.Versions {
		if slices.Contains(v.Stages, plan.StageCurrent) && v.SecretString != nil {
			return *v.SecretString
		}
	}
	return ""
}

func wantResult(t *testing.T, got engine.Result, status vocab.Status, verification vocab.Verification, counts vocab.Counts) {
	t.Helper()
	if got.Status != status || got.Verification != verification || got.Counts != counts {
		t.Fatalf("result = %+v\nwant     {Status:%s Verification:%s Counts:%+v}", got, status, verification, counts)
	}
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// hookPort wraps the real adapter and runs a hook before chosen calls: the
// way a test makes "another writer" act at an exact point of a run.
type hookPort struct {
	Port
	mu         sync.Mutex
	describes  int
	beforeDesc func(n int, id string)
}

func (h *hookPort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	h.mu.Lock()
	h.describes++
	n := h.describes
	f := h.beforeDesc
	h.mu.Unlock()
	if f != nil {
		f(n, id)
	}
	return h.Port.Describe(ctx, id)
}

// testLimits are the pace ceilings of the tests' adapter: no write ceiling
// (the tests count calls, and pacing has tests of its own), the default
// ceiling of value batches.
var testLimits = pace.Limits{Batches: pace.DefaultBatches}

// newAdapter is the real adapter over c, paced with limits (testLimits
// when none is given).
func newAdapter(c *secretsmanager.Client, limits ...pace.Limits) Port {
	l := testLimits
	if len(limits) > 0 {
		l = limits[0]
	}
	return awssm.New(c, awssm.Options{OperationTimeout: 10 * time.Second, Pace: pace.New(pace.SystemClock{}, l)})
}

// steppedAdapter is the real adapter over c whose pace runs on a
// stepClock: a wait for a turn (after a throttle cut the write limit, a
// turn may be seconds away) passes at once, so a test that counts calls
// after throttles spends no real time waiting. The pacing itself (the cut,
// the waits it orders) is the same; pace's own tests and
// TestWritePacing_StaysUnderQuota hold it against the real clock.
func steppedAdapter(c *secretsmanager.Client) Port {
	p := pace.New(&stepClock{now: time.Unix(1_700_000_000, 0)}, testLimits)
	return awssm.New(c, awssm.Options{OperationTimeout: 10 * time.Second, Pace: p})
}
