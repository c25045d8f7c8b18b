package engine_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const (
	testKeyID  = "1234abcd-12ab-34cd-56ef-1234567890ab"
	testKeyARN = "arn:aws:kms:us-east-1:" + emulator.DefaultAccountID + ":key/" + testKeyID
)

// newMetaEnv is newEnv with a customer managed key (and its alias) the
// emulator knows: it refuses unknown keys as AWS does.
func newMetaEnv(t *testing.T) *env {
	srv := emulatortest.Start(t, emulator.WithKMSKeys(emulator.KMSKey{KeyID: testKeyID},
		emulator.KMSKey{KeyID: "5678abcd-12ab-34cd-56ef-1234567890ab", Aliases: []string{"alias/app-secrets"}}))
	c := srv.Client(t)
	return &env{srv: srv, client: c, port: newAdapter(c), logs: &syncBuffer{}}
}

func (e *env) syncMeta(t *testing.T, conc int, st model.State, m model.Metadata) engine.Result {
	t.Helper()
	cfg := e.cfg(engine.ModeSync, conc)
	cfg.Metadata = m
	return e.run(t, cfg, st)
}

// TestMetadataCreateChangeAndNoOp is issue 14 items 2 and 3 with the real
// SDK against the emulator: a create carries the KMS key, description and
// tags in its one CreateSecret; each change of the configuration is one
// metadata update per secret (UpdateSecret for key and description,
// TagResource for tags) and writes no version; then a run is a no-op; a tag
// set by someone else survives every run, and ownership tags are untouched.
func TestMetadataCreateChangeAndNoOp(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newMetaEnv(t)
		st := state(doc{"api", `{"key":"a1"}`}, doc{"db", `{"password":"p1"}`})
		m := model.Metadata{KMSKeyID: testKeyARN, Description: "from owner/repo", Tags: map[string]string{"team": "platform", "env": "prod"}}

		before := e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
		wantCalls(t, e, before, map[string]int64{"CreateSecret": 2})
		for _, base := range []string{"api", "db"} {
			s := e.secret(t, nameOf(base))
			if s.KmsKeyID != testKeyARN || s.Description != m.Description || s.Tags["team"] != "platform" || s.Tags["env"] != "prod" || s.Tags[model.TagScope] != testScope.Digest() {
				t.Fatalf("%s created without its metadata: %+v", base, s)
			}
		}

		// Someone else tags one secret; it must survive every run.
		arn := e.secret(t, nameOf("db")).ARN
		if _, err := e.client.TagResource(context.Background(), &secretsmanager.TagResourceInput{SecretId: aws.String(arn),
			Tags: []types.Tag{{Key: aws.String("by-hand"), Value: aws.String("keep")}}}); err != nil {
			t.Fatal(err)
		}

		before = e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
		wantCalls(t, e, before, map[string]int64{})

		versions := len(e.secret(t, nameOf("db")).Versions)
		for _, change := range []struct {
			name  string
			edit  func(*model.Metadata)
			calls map[string]int64
		}{
			{"description", func(m *model.Metadata) { m.Description = "moved to owner/other" }, map[string]int64{"UpdateSecret": 2}},
			{"kms key", func(m *model.Metadata) { m.KMSKeyID = "alias/app-secrets" }, map[string]int64{"UpdateSecret": 2}},
			{"tag value", func(m *model.Metadata) { m.Tags = map[string]string{"team": "payments", "env": "prod"} }, map[string]int64{"TagResource": 2}},
			{"new tag", func(m *model.Metadata) { m.Tags = map[string]string{"team": "payments", "env": "prod", "cost": "42"} }, map[string]int64{"TagResource": 2}},
		} {
			change.edit(&m)
			before = e.calls(t)
			wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 2})
			wantCalls(t, e, before, change.calls)
			before = e.calls(t)
			wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
			wantCalls(t, e, before, map[string]int64{})
		}
		db := e.secret(t, nameOf("db"))
		if len(db.Versions) != versions {
			t.Fatalf("metadata updates wrote versions: %d, want %d", len(db.Versions), versions)
		}
		if db.Tags["by-hand"] != "keep" || db.Tags["team"] != "payments" || db.Tags["cost"] != "42" || db.KmsKeyID != "alias/app-secrets" || db.Description != "moved to owner/other" {
			t.Fatalf("db metadata: %+v", db)
		}

		// Dropping a setting stops managing it: nothing changes.
		before = e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st, model.Metadata{}), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
		wantCalls(t, e, before, map[string]int64{})

		// A value change and a metadata change of one secret: one
		// PutSecretValue and one TagResource, counted as one update.
		st2 := state(doc{"api", `{"key":"a1"}`}, doc{"db", `{"password":"p2"}`})
		m.Tags["cost"] = "43"
		before = e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st2, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 2})
		wantCalls(t, e, before, map[string]int64{"PutSecretValue": 1, "TagResource": 2})
		if got := current(e.secret(t, nameOf("db"))); got != `{"password":"p2"}` {
			t.Fatalf("db value = %q", got)
		}
	})
}

// metaWriterPort runs after on the id of every metadata write of the run
// that landed: the way a test makes another writer act right after it.
type metaWriterPort struct {
	Port
	after func(id string)
}

func (p *metaWriterPort) UpdateMetadata(ctx context.Context, id string, kmsKeyID, description *string) error {
	err := p.Port.UpdateMetadata(ctx, id, kmsKeyID, description)
	if err == nil {
		p.after(id)
	}
	return err
}

// metaLagPort models read-after-write lag of metadata: once a metadata
// write of the run lands, Describe of that id keeps answering what it
// answered just before.
type metaLagPort struct {
	Port
	mu     sync.Mutex
	last   map[string]plan.ObservedSecret
	frozen map[string]bool
}

func (p *metaLagPort) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	p.mu.Lock()
	if p.frozen[id] {
		defer p.mu.Unlock()
		return p.last[id], nil
	}
	p.mu.Unlock()
	o, err := p.Port.Describe(ctx, id)
	p.mu.Lock()
	p.last[id] = o
	p.mu.Unlock()
	return o, err
}

func (p *metaLagPort) UpdateMetadata(ctx context.Context, id string, kmsKeyID, description *string) error {
	err := p.Port.UpdateMetadata(ctx, id, kmsKeyID, description)
	if err == nil {
		p.mu.Lock()
		p.frozen[id] = true
		p.mu.Unlock()
	}
	return err
}

// TestRegression_MetadataChangedElsewhereDuringSync: a description this run
// writes is set to another value by someone else before verification. The
// observed description is neither what was written nor what planning saw,
// so nothing of this run is pending: verification fails at its first round
// with verify:changed-elsewhere instead of polling to the timeout and
// calling it inconclusive (the code before this fix: 9 rounds, then
// verification-inconclusive). Read lag, where the observation still shows
// what planning saw, stays inconclusive at the timeout.
func TestRegression_MetadataChangedElsewhereDuringSync(t *testing.T) {
	meta := model.Metadata{Description: "ours"}
	st := state(doc{"a", `{"v":1}`})
	run := func(t *testing.T, e *env, port engine.Port) engine.Result {
		cfg := e.cfg(engine.ModeSync, 1)
		cfg.Metadata = meta
		cfg.Clock = &stepClock{now: time.Unix(1_700_000_000, 0)}
		cfg.PollInterval, cfg.VerificationTimeout = 250*time.Millisecond, 2*time.Second
		return e.runPort(t, cfg, st, port)
	}

	t.Run("another writer", func(t *testing.T) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":1}`)
		p := &metaWriterPort{Port: e.port, after: func(id string) {
			if _, err := e.client.UpdateSecret(context.Background(), &secretsmanager.UpdateSecretInput{
				SecretId: aws.String(id), Description: aws.String("theirs")}); err != nil {
				t.Errorf("the other writer: %v", err)
			}
		}}
		res := run(t, e, p)
		wantResult(t, res, vocab.StatusVerificationFailed, vocab.VerificationFailed, vocab.Counts{Update: 1})
		if len(res.Diagnostics) != 1 || res.Diagnostics[0].Class != diag.VerifyChangedElsewhere {
			t.Fatalf("diagnostics = %+v, want %s", res.Diagnostics, diag.VerifyChangedElsewhere)
		}
		// The plan file's failure record of the operation says so too.
		if fs := res.Failures; len(fs) != 1 || fs[0].Class != diag.VerifyChangedElsewhere || fs[0].Action != vocab.ActionUpdate {
			t.Fatalf("failures = %+v, want the update's, class %s", fs, diag.VerifyChangedElsewhere)
		}
		logs := e.logs.String()
		if !strings.Contains(logs, `"verification":"failed","count":1,`) {
			t.Fatalf("want verification to stop at its first round:\n%s", logs)
		}
		if !strings.Contains(logs, `"resource":"resource-0001","error_class":"verify:changed-elsewhere"`) {
			t.Fatalf("want the record naming the resource and class:\n%s", logs)
		}
	})

	t.Run("read lag", func(t *testing.T) {
		e := newEnv(t)
		e.seedOwned(t, "a", `{"v":1}`)
		p := &metaLagPort{Port: e.port, last: map[string]plan.ObservedSecret{}, frozen: map[string]bool{}}
		res := run(t, e, p)
		wantResult(t, res, vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, vocab.Counts{Update: 1})
		if len(res.Diagnostics) != 0 {
			t.Fatalf("lag is no other writer: %+v", res.Diagnostics)
		}
		if !strings.Contains(e.logs.String(), `"verification":"inconclusive","count":9,`) {
			t.Fatalf("want the whole timeout polled:\n%s", e.logs.String())
		}
	})
}

// tagWatch records, after every Secrets Manager call of the client it is
// installed on, the value of one tag key on each watched secret as the
// emulator holds it ("" when the key is absent): the state a tag-based
// IAM condition would see between two calls.
type tagWatch struct {
	srv   *emulatortest.Server
	key   string
	names []string
	armed atomic.Bool

	mu   sync.Mutex
	seen []string // "<operation> <name>=<value>", in call order
	errs []error
}

// install adds the watch to a client's middleware stack (the client's
// own options, so every call the adapter makes passes through it).
func (w *tagWatch) install(o *secretsmanager.Options) {
	o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
		return s.Initialize.Add(middleware.InitializeMiddlewareFunc("TagWatch",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleInitialize(ctx, in)
				if w.armed.Load() {
					w.observe(awsmiddleware.GetOperationName(ctx))
				}
				return out, md, err
			}), middleware.Before)
	})
}

func (w *tagWatch) observe(op string) {
	dump, err := w.srv.Control().State(context.Background())
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.errs = append(w.errs, err)
		return
	}
	for _, s := range dump.Secrets {
		if slices.Contains(w.names, s.Name) {
			w.seen = append(w.seen, op+" "+s.Name+"="+s.Tags[w.key])
		}
	}
}

// TestRegression_ChangedTagValueIsOneTagResourceNeverUntag: a configured
// tag whose value changes is rewritten by one TagResource per secret,
// never UntagResource then TagResource. A tag may be what an IAM policy
// grants access by (aws:ResourceTag condition keys); between an untag and
// the tag the secret would carry no value for it and readers granted by
// either value would be refused. Checked two ways: the emulator's call
// counters (exactly one TagResource per secret, no UntagResource, no other
// write), and the secret's tags read after every SDK call of the run (the
// key always holds the old or the new value, never nothing).
func TestRegression_ChangedTagValueIsOneTagResourceNeverUntag(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		srv := emulatortest.Start(t)
		w := &tagWatch{srv: srv, key: "team", names: []string{nameOf("api"), nameOf("db")}}
		c := srv.Client(t, w.install)
		e := &env{srv: srv, client: c, port: newAdapter(c), logs: &syncBuffer{}}
		st := state(doc{"api", `{"key":"a1"}`}, doc{"db", `{"password":"p1"}`})

		m := model.Metadata{Tags: map[string]string{"team": "platform", "env": "prod"}}
		wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})

		m.Tags = map[string]string{"team": "payments", "env": "prod"}
		before := e.calls(t)
		w.armed.Store(true)
		wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 2})
		w.armed.Store(false)
		wantCalls(t, e, before, map[string]int64{"TagResource": 2})

		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.errs) > 0 {
			t.Fatalf("reading the emulator's state: %v", w.errs)
		}
		if len(w.seen) == 0 {
			t.Fatal("the watch saw no call of the run")
		}
		for _, name := range w.names {
			if !slices.Contains(w.seen, "TagResource "+name+"=payments") {
				t.Errorf("no TagResource of %s was watched: %q", name, w.seen)
			}
		}
		for _, s := range w.seen {
			if !strings.HasSuffix(s, "=platform") && !strings.HasSuffix(s, "=payments") {
				t.Errorf("the tag was neither value after a call: %s\nall: %q", s, w.seen)
			}
		}
		for _, name := range w.names {
			s := e.secret(t, name)
			if s.Tags["team"] != "payments" || s.Tags["env"] != "prod" || s.Tags[model.TagScope] != testScope.Digest() {
				t.Errorf("%s tags after the change: %v", name, s.Tags)
			}
		}
	})
}
