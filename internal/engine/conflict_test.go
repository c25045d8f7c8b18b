package engine_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestConflictClasses puts one desired secret into each state of SPEC §4.1
// next to a secret that would be created and one that would be deleted: the
// run ends "conflict" with the class counted, and not one mutating call is
// made.
func TestConflictClasses(t *testing.T) {
	boolp := func(b bool) *bool { return &b }
	strp := func(s string) *string { return &s }
	cases := []struct {
		class vocab.ConflictClass
		setup func(t *testing.T, e *env)
	}{
		{vocab.ConflictOwnership, func(t *testing.T, e *env) { e.seed(t, nameOf("x"), aws.String(`{}`), nil, nil) }},
		{vocab.ConflictOwnership, func(t *testing.T, e *env) {
			other := model.Scope{RepositoryID: "acme/other", SourceRoot: "secrets", Prefix: "app"}
			e.seed(t, nameOf("x"), aws.String(`{}`), nil, other.Tags(pathOf("x")))
		}},
		{vocab.ConflictSource, func(t *testing.T, e *env) { e.seed(t, nameOf("x"), aws.String(`{}`), nil, testScope.Tags(pathOf("y"))) }},
		{vocab.ConflictSourceTag, func(t *testing.T, e *env) {
			tags := testScope.Tags(pathOf("x"))
			tags[model.TagSource] = "not-a-digest"
			e.seed(t, nameOf("x"), aws.String(`{}`), nil, tags)
		}},
		{vocab.ConflictServiceOwned, func(t *testing.T, e *env) {
			e.srv.SetConditions(t, emulator.Conditions{Name: e.seedOwned(t, "x", `{}`), OwningService: strp("rds")})
		}},
		{vocab.ConflictRotation, func(t *testing.T, e *env) {
			e.srv.SetConditions(t, emulator.Conditions{Name: e.seedOwned(t, "x", `{}`), RotationEnabled: boolp(true)})
		}},
		{vocab.ConflictRotation, func(t *testing.T, e *env) {
			e.srv.SetConditions(t, emulator.Conditions{Name: e.seedOwned(t, "x", `{}`), PendingVersion: boolp(true)})
		}},
		{vocab.ConflictReplication, func(t *testing.T, e *env) {
			e.srv.SetConditions(t, emulator.Conditions{Name: e.seedOwned(t, "x", `{}`), ReplicaRegions: []string{"eu-west-1"}})
		}},
		{vocab.ConflictStaging, func(t *testing.T, e *env) {
			e.srv.SetConditions(t, emulator.Conditions{Name: e.seedOwned(t, "x", `{}`), ExtraCurrentStage: boolp(true)})
		}},
	}
	for _, tc := range cases {
		t.Run(string(tc.class), func(t *testing.T) {
			eachConcurrency(t, func(t *testing.T, conc int) {
				e := newEnv(t)
				e.seedOwned(t, "stale", `{}`)
				tc.setup(t, e)
				checkConflict(t, e, conc, tc.class)
			})
		})
	}
}

func checkConflict(t *testing.T, e *env, conc int, class vocab.ConflictClass) {
	t.Helper()
	st := state(doc{"x", `{"v":1}`}, doc{"fresh", `{"v":1}`})
	for _, mode := range []string{"plan", "sync"} {
		before := e.calls(t)
		var res = e.plan(t, conc, st)
		if mode == "sync" {
			res = e.sync(t, conc, st)
		}
		if res.Status != vocab.StatusConflict || res.Verification != vocab.VerificationNotRun || res.Counts.Conflicts != 1 || res.Counts.Operations() != 0 {
			t.Fatalf("%s: result = %+v, want conflict with one conflict and no operation", mode, res)
		}
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%s: %d mutating calls on a conflict", mode, n)
		}
	}
	if !strings.Contains(e.logs.String(), `"conflict_class":"`+string(class)+`"`) {
		t.Fatalf("logs do not name the class %s:\n%s", class, e.logs.String())
	}
}

// TestConflictPayload: a current version holding both SecretString and
// SecretBinary cannot be made through the API, so a loopback proxy between
// the SDK and the emulator adds SecretBinary to value reads.
func TestConflictPayload(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		srvEnv := newEnv(t)
		target, _ := url.Parse(srvEnv.srv.URL)
		proxy := httputil.NewSingleHostReverseProxy(target)
		proxy.ModifyResponse = func(r *http.Response) error {
			op := r.Request.Header.Get("X-Amz-Target")
			if r.StatusCode != 200 || (op != "secretsmanager.GetSecretValue" && op != "secretsmanager.BatchGetSecretValue") {
				return nil
			}
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return err
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			bin := base64.StdEncoding.EncodeToString([]byte{1, 2})
			if vs, ok := m["SecretValues"].([]any); ok {
				for _, v := range vs {
					v.(map[string]any)["SecretBinary"] = bin
				}
			} else {
				m["SecretBinary"] = bin
			}
			b, _ = json.Marshal(m)
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			r.Header.Del("Content-Length")
			return nil
		}
		ps := httptest.NewServer(proxy)
		t.Cleanup(ps.Close)
		e := newEnv(t)
		e.srv = srvEnv.srv
		e.client = srvEnv.client
		e.port = newAdapter(e.srv.Client(t, func(o *secretsmanager.Options) { o.BaseEndpoint = aws.String(ps.URL) }))
		e.seedOwned(t, "stale", `{}`)
		e.seedOwned(t, "x", `{"v":0}`)
		checkConflict(t, e, conc, vocab.ConflictPayload)
	})
}

// TestAccessDenied_IsObservationFailure: access denied is never a conflict
// (SPEC §4.1) and nothing is mutated.
func TestAccessDenied_IsObservationFailure(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "stale", `{}`)
		e.srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "DescribeSecret", Nth: 1, Fault: "error:AccessDeniedException:not authorized on arn:aws:secretsmanager:us-east-1:123456789012:secret:app/x"}}})
		before := e.calls(t)
		res := e.sync(t, conc, state(doc{"x", `{}`}))
		wantResult(t, res, vocab.StatusObservationFailed, vocab.VerificationNotRun, vocab.Counts{})
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%d mutating calls after an observation failure", n)
		}
		logs := e.logs.String()
		if !strings.Contains(logs, `"error_code":"AccessDeniedException"`) || strings.Contains(logs, "not authorized") || strings.Contains(logs, "123456789012") {
			t.Fatalf("logs must carry the code and never the provider text:\n%s", logs)
		}
	})
}

// TestNewConflictBeforeApply: a secret that became unsafe between planning
// and its mutation (rotation turned on) stops the run with "conflict" and
// is not written.
func TestNewConflictBeforeApply(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`})
		on := true
		var once sync.Once
		h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
			if n == 2 { // the precondition
				once.Do(func() { e.srv.SetConditions(t, emulator.Conditions{Name: id, RotationEnabled: &on}) })
			}
		}}
		before := e.calls(t)
		res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
		wantResult(t, res, vocab.StatusConflict, vocab.VerificationNotRun, vocab.Counts{Conflicts: 1})
		if n := mutations(before, e.calls(t)); n != 0 {
			t.Fatalf("%d mutating calls after a new conflict", n)
		}
	})
}

// TestConflictDuringVerification_Failed: a conflict that appears after the
// writes (replication added by someone) ends verification failed.
func TestConflictDuringVerification_Failed(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":0}`)
		st := state(doc{"a", `{"v":1}`})
		var afterPut atomic.Bool
		var once sync.Once
		h := &hookPort{Port: &putSpy{Port: e.port, after: func() { afterPut.Store(true) }}, beforeDesc: func(n int, id string) {
			if afterPut.Load() {
				once.Do(func() { e.srv.SetConditions(t, emulator.Conditions{Name: id, ReplicaRegions: []string{"eu-west-1"}}) })
			}
		}}
		res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
		wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Update: 1, Conflicts: 1})
	})
}
