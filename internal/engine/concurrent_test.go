package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Issue 15, finding 3: two syncs of one scope at once. A create that meets
// an existing secret is re-observed and then accepted, rebuilt once, a
// conflict, or verification-failed; never a bare apply-failed.

// createHookPort runs before(name) once, just before the real CreateSecret
// of name: the way a test makes a second writer create the name between
// the apply precondition and our own create.
type createHookPort struct {
	Port
	name   string
	once   sync.Once
	before func()
}

func (p *createHookPort) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	if req.Name == p.name {
		p.once.Do(p.before)
	}
	return p.Port.Create(ctx, req)
}

// TestConcurrentCreateResourceExistsReobserved: between the precondition
// and our CreateSecret, another writer creates the name (a direct SDK call).
// AWS answers ResourceExistsException; the engine re-observes the name and
// decides by what it sees.
func TestConcurrentCreateResourceExistsReobserved(t *testing.T) {
	otherScope := model.Scope{RepositoryID: "acme/other", SourceRoot: "secrets", Prefix: "app"}
	for _, c := range []struct {
		name string
		// tags and value of the second writer's secret
		tags   func() map[string]string
		value  string
		status vocab.Status
		counts func(conc int) *vocab.Counts // nil: not checked exactly
		// final is the value app/a must hold at the end
		final    string
		rebuilds int
	}{{
		// Same scope, same commit: the other sync's create. Accepted
		// without writing, not counted as ours.
		name: "same scope and value accepted", tags: func() map[string]string { return testScope.Tags(pathOf("a")) },
		value: `{"v":1}`, status: vocab.StatusConverged, final: `{"v":1}`,
		counts: func(int) *vocab.Counts { return &vocab.Counts{Create: 1, Unchanged: 1} },
	}, {
		// Same scope, another commit's value: the plan changed (an update),
		// so exactly one rebuild, then the run converges.
		name: "same scope other value rebuilds once", tags: func() map[string]string { return testScope.Tags(pathOf("a")) },
		value: `{"v":"other commit"}`, status: vocab.StatusConverged, final: `{"v":1}`, rebuilds: 1,
		counts: func(int) *vocab.Counts { return &vocab.Counts{Create: 1, Update: 1} },
	}, {
		// Another tool's secret: a conflict (exit 4), never overwritten.
		name: "foreign secret is a conflict", tags: func() map[string]string { return nil },
		value: `{"x":1}`, status: vocab.StatusConflict, final: `{"x":1}`,
	}, {
		// Another scope of this tool: an ownership conflict too.
		name: "other scope is a conflict", tags: func() map[string]string { return otherScope.Tags(pathOf("a")) },
		value: `{"v":1}`, status: vocab.StatusConflict, final: `{"v":1}`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			eachConcurrency(t, func(t *testing.T, conc int) {
				e := newEnv(t)
				st := state(doc{"a", `{"v":1}`}, doc{"b", `{"v":2}`})
				h := &createHookPort{Port: e.port, name: nameOf("a"), before: func() {
					e.seed(t, nameOf("a"), aws.String(c.value), nil, c.tags())
				}}
				res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
				if c.status == vocab.StatusConflict {
					if res.Status != vocab.StatusConflict || res.Verification != vocab.VerificationNotRun || res.Counts.Conflicts != 1 {
						t.Fatalf("result = %+v, want conflict with 1 conflict", res)
					}
					s := e.secret(t, nameOf("a"))
					if len(s.Versions) != 1 {
						t.Fatalf("the other writer's secret has %d versions, want 1 (untouched)", len(s.Versions))
					}
					if conc == 1 {
						// Strictly sequential: nothing starts after the conflict.
						for _, d := range e.srv.State(t).Secrets {
							if d.Name == nameOf("b") {
								t.Fatal("an operation started after the late conflict")
							}
						}
					}
				} else {
					wantResult(t, res, c.status, vocab.VerificationConverged, *c.counts(conc))
					if got := current(e.secret(t, nameOf("b"))); got != `{"v":2}` {
						t.Fatalf("app/b = %q", got)
					}
				}
				if got := current(e.secret(t, nameOf("a"))); got != c.final {
					t.Fatalf("app/a = %q, want %q", got, c.final)
				}
				logs := e.logs.String()
				if !strings.Contains(logs, `"msg":"secret already exists; re-observing"`) || !strings.Contains(logs, `"error_code":"ResourceExistsException"`) {
					t.Fatalf("the refused create was not re-observed:\n%s", logs)
				}
				if n := strings.Count(logs, `"msg":"rebuilding plan"`); n != c.rebuilds {
					t.Fatalf("%d rebuilds, want %d", n, c.rebuilds)
				}
				if res.Status == vocab.StatusApplyFailed {
					t.Fatal("a create that met an existing secret must never end apply-failed")
				}
			})
		})
	}
}

// TestConcurrentCreateBeforePrecondition_AcceptedWithoutRebuild: the other
// writer's create lands between planning and the precondition of ours. The
// precondition sees the desired state, owned by this scope: the create is
// accepted without writing and without spending the rebuild budget, so two
// syncs of one commit do not drive each other into verification-failed.
func TestConcurrentCreateBeforePrecondition_AcceptedWithoutRebuild(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		st := state(doc{"a", `{"v":1}`}, doc{"b", `{"v":2}`})
		var once sync.Once
		h := &hookPort{Port: e.port, beforeDesc: func(n int, id string) {
			if n > len(st.Secrets) && id == nameOf("a") { // the precondition of app/a
				once.Do(func() { e.seedOwned(t, "a", `{"v":1}`) })
			}
		}}
		before := e.calls(t)
		res := e.runPort(t, e.cfg(engine.ModeSync, conc), st, h)
		wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1, Unchanged: 1})
		if got := e.calls(t)["CreateSecret"] - before["CreateSecret"]; got != 2 {
			t.Fatalf("CreateSecret calls = %d, want 2 (the other writer's and app/b)", got)
		}
		if n := strings.Count(e.logs.String(), `"msg":"rebuilding plan"`); n != 0 {
			t.Fatalf("%d rebuilds, want none", n)
		}
	})
}

// TestConcurrentCreateExistsButUnobservable_VerificationFailed: AWS refuses
// the create as existing (a scripted ResourceExistsException) while a
// direct observation still finds no secret: only a second writer explains
// it, so the run ends verification-failed (exit 6), not apply-failed.
func TestConcurrentCreateExistsButUnobservable_VerificationFailed(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newEnv(t)
		e.srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 1, Fault: "error:ResourceExistsException"}}})
		st := state(doc{"a", `{"v":1}`}, doc{"b", `{"v":2}`})
		res := e.sync(t, conc, st)
		if res.Status != vocab.StatusVerificationFailed || res.Verification != vocab.VerificationFailed || res.Counts.Create > 1 {
			t.Fatalf("result = %+v, want verification-failed", res)
		}
		if vocab.ExitCode(res.Status, false) != 6 {
			t.Fatalf("exit %d, want 6", vocab.ExitCode(res.Status, false))
		}
		// The resource is named (issue 30): one failure record of the
		// create that met the other writer.
		if n := len(res.Failures); n != 1 || res.Failures[0].Class != diag.VerifySecondWriter || res.Failures[0].Action != vocab.ActionCreate ||
			res.Failures[0].ErrorCode != "ResourceExistsException" || res.Failures[0].Name == "" {
			t.Fatalf("failure records = %+v, want one verify:second-writer of a create", res.Failures)
		}
		// The next run (the other writer gone) converges.
		e.srv.SetFaults(t, emulator.Faults{})
		res = e.sync(t, conc, st)
		if res.Status != vocab.StatusConverged {
			t.Fatalf("re-run = %+v", res)
		}
	})
}

// arnlessPort is the adapter with Create answering no ARN, as Parameter
// Store's PutParameter answers none.
type arnlessPort struct{ Port }

func (p arnlessPort) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	res, err := p.Port.Create(ctx, req)
	res.ARN = ""
	return res, err
}

// TestChangesOfAStoppedApplyNameTheirARNs: a create whose write returned
// no ARN took its ARN from verification's re-observation; when the apply
// stopped first (the third create refused: apply-failed, no
// verification) the run describes each such name once, so every change
// names its ARN (the changes file refuses one without). Before, the two
// creates that took effect had none.
func TestChangesOfAStoppedApplyNameTheirARNs(t *testing.T) {
	e := newEnv(t)
	st := state(doc{"a", `{"k":"a"}`}, doc{"b", `{"k":"b"}`}, doc{"c", `{"k":"c"}`})
	e.srv.SetFaults(t, emulator.Faults{Script: script("CreateSecret", "error:AccessDeniedException", 3)})
	res := e.runPort(t, e.cfg(engine.ModeSync, 3), st, arnlessPort{e.port})
	if res.Status != vocab.StatusApplyFailed || res.Counts.Create != 2 {
		t.Fatalf("result = %+v", res)
	}
	if len(res.Changes) != 2 {
		t.Fatalf("changes %+v: want the two creates that took effect", res.Changes)
	}
	for _, c := range res.Changes {
		if want := e.secret(t, c.Name).ARN; c.ARN != want {
			t.Errorf("change of %s names ARN %q, want %q", c.Name, c.ARN, want)
		}
	}
}
