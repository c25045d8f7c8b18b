package awssm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
)

// TestGetCurrentValues_TwentyIdsAreOneBatch: BatchGetSecretValue takes up
// to 20 ids (engine.MaxValueBatch, AWS API reference), so exactly 20 are
// read in one call; 21 are refused before any call.
func TestGetCurrentValues_TwentyIdsAreOneBatch(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	a := awssm.New(c, awssm.Options{})
	ctx := context.Background()
	reqs := make([]engine.ValueRequest, engine.MaxValueBatch)
	for i := range reqs {
		name := fmt.Sprintf("app/v%02d", i)
		arn := create(t, c, name, fmt.Sprintf(`{"i":%d}`, i), nil)
		o, err := a.Describe(ctx, arn)
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = engine.ValueRequest{ID: arn, Name: name, CurrentVersionID: o.CurrentVersionIDs()[0]}
	}
	before := srv.Stats(t).Calls
	vs, err := a.GetCurrentValues(ctx, reqs)
	if err != nil || len(vs) != len(reqs) {
		t.Fatalf("20 ids = %d values, %v", len(vs), err)
	}
	for i, v := range vs {
		if string(v.String) != fmt.Sprintf(`{"i":%d}`, i) || v.StageMismatch || v.Missing {
			t.Fatalf("value %d = %+v", i, v)
		}
	}
	calls := srv.Stats(t).Calls
	if n := calls["BatchGetSecretValue"] - before["BatchGetSecretValue"]; n != 1 || calls["GetSecretValue"] != before["GetSecretValue"] {
		t.Fatalf("BatchGetSecretValue calls = %d, GetSecretValue %d; want one batch of 20", n, calls["GetSecretValue"]-before["GetSecretValue"])
	}
	_, err = a.GetCurrentValues(ctx, append(reqs, reqs[0]))
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != awscore.CodeClientValidation || e.Fault != engine.FaultClient {
		t.Fatalf("21 ids → %#v; want a client validation error", err)
	}
}

// TestErrors_ServerFaultByStatusAndNotFoundByCode: an error code the SDK
// does not model (here SSM's InternalServerError) answered with HTTP 500 is
// a server fault and ambiguous, by its status alone, and its code is not
// reported verbatim; ResourceNotFoundException on a write sets NotFound, an
// access denial does not.
func TestErrors_ServerFaultByStatusAndNotFoundByCode(t *testing.T) {
	srv := emulatortest.Start(t)
	a := awssm.New(srv.Client(t, func(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 }), awssm.Options{})
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "DescribeSecret", Nth: 1, Fault: "error:InternalServerError"},
		{Operation: "DescribeSecret", Nth: 2, Fault: "error:AccessDeniedException"},
	}})
	ctx := context.Background()
	_, err := a.Describe(ctx, "app/x")
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != awscore.CodeUnknown || e.Fault != engine.FaultServer || !e.Ambiguous || e.NotFound {
		t.Fatalf("unmodelled code with HTTP 500 → %#v; want UnknownError, server fault, ambiguous", err)
	}
	_, err = a.Describe(ctx, "app/x")
	if !errors.As(err, &e) || !e.AccessDenied || e.NotFound {
		t.Fatalf("access denied → %#v; want AccessDenied and not NotFound", err)
	}
	_, err = a.PutValue(ctx, "app/missing", []byte("{}"), model.KindJSON, strings.Repeat("e", 64))
	if !errors.As(err, &e) || e.Code != "ResourceNotFoundException" || !e.NotFound || e.Ambiguous || e.AccessDenied {
		t.Fatalf("write to a missing secret → %#v; want NotFound", err)
	}
}

// TestListCandidates_SaysWhichArePendingDeletion: a candidate scheduled for
// deletion is listed (IncludePlannedDeletion) and marked Deleted; an active
// one is not.
func TestListCandidates_SaysWhichArePendingDeletion(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t)
	a := awssm.New(c, awssm.Options{})
	ctx := context.Background()
	create(t, c, "app/live", "{}", sc.Tags("secrets/live.sops.json"))
	gone := create(t, c, "app/gone", "{}", sc.Tags("secrets/gone.sops.json"))
	if err := a.Delete(ctx, gone, 7); err != nil {
		t.Fatal(err)
	}
	got, err := a.ListCandidates(ctx, sc.Digest())
	if err != nil || len(got) != 2 {
		t.Fatalf("candidates = %+v, %v", got, err)
	}
	for _, cand := range got {
		if cand.Deleted != (cand.Name == "app/gone") {
			t.Fatalf("candidate %s Deleted = %v", cand.Name, cand.Deleted)
		}
	}
}

// TestCreate_KeyAndDescriptionOnlyWhenConfigured: a create with a KMS key
// and a description sends both (DescribeSecret shows them); a create
// without leaves both to AWS's defaults (none shown).
func TestCreate_KeyAndDescriptionOnlyWhenConfigured(t *testing.T) {
	srv := emulatortest.Start(t)
	srv.Control().Must(t).AddKMSKey(emulator.KMSKey{KeyID: "1234abcd-12ab-34cd-56ef-1234567890ab", Aliases: []string{"alias/app"}})
	a := awssm.New(srv.Client(t), awssm.Options{})
	ctx := context.Background()
	with, err := a.Create(ctx, engine.CreateRequest{Name: "app/with", Value: []byte("{}"), Token: strings.Repeat("a", 64),
		KMSKeyID: "alias/app", Description: "the app's database"})
	if err != nil {
		t.Fatal(err)
	}
	without, err := a.Create(ctx, engine.CreateRequest{Name: "app/without", Value: []byte("{}"), Token: strings.Repeat("b", 64)})
	if err != nil {
		t.Fatal(err)
	}
	if o, err := a.Describe(ctx, with.ARN); err != nil || o.KMSKeyID != "alias/app" || o.Description != "the app's database" {
		t.Fatalf("configured create observed as %+v, %v", o, err)
	}
	if o, err := a.Describe(ctx, without.ARN); err != nil || o.KMSKeyID != "" || o.Description != "" || len(o.ReplicaRegions) != 0 {
		t.Fatalf("default create observed as %+v, %v", o, err)
	}
}

// jumpClock is a pace.Clock whose time moves only when a waiter waits: an
// After(d) moves it by d and fires at once. Every turn after a cut then
// waits, deterministically.
type jumpClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *jumpClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// TestReadPace_OnlyAnAnswerRaisesTheLimit: after a throttle cut, a read the
// service answered (even with an error, like an access denial) shows the
// quota admitted it and raises the read limit by pace.Recovery; a read that
// got no answer (a lost response, our own operation timeout) shows nothing
// and leaves the limit where the cut put it.
func TestReadPace_OnlyAnAnswerRaisesTheLimit(t *testing.T) {
	srv := emulatortest.Start(t)
	c := srv.Client(t, func(o *secretsmanager.Options) { o.RetryMaxAttempts = 1 })
	p := pace.New(&jumpClock{now: time.Unix(1_700_000_000, 0)}, pace.DefaultLimits())
	const ceiling = 40.0
	p.SetCeiling(pace.Reads, ceiling)
	a := awssm.New(c, awssm.Options{Pace: p, OperationTimeout: 5 * time.Second})
	const thr = "error:ThrottlingException"
	srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "DescribeSecret", Nth: 1, Fault: thr},
		{Operation: "DescribeSecret", Nth: 2, Fault: "ambiguous-before-apply"},
		{Operation: "DescribeSecret", Nth: 3, Fault: thr},
		{Operation: "DescribeSecret", Nth: 4, Fault: "error:AccessDeniedException"},
	}})
	ctx := context.Background()
	var e *engine.Error

	_, err := a.Describe(ctx, "app/x")
	if !errors.As(err, &e) || e.Code != awscore.CodeConnection {
		t.Fatalf("lost response → %#v", err)
	}
	cut := pace.Backoff * ceiling
	if got := p.Limit(pace.Reads); got != cut {
		t.Fatalf("read limit after a throttle then a lost response = %v, want the cut %v", got, cut)
	}

	_, err = a.Describe(ctx, "app/x")
	if !errors.As(err, &e) || !e.AccessDenied {
		t.Fatalf("access denied → %#v", err)
	}
	raised := pace.Backoff*cut + pace.Recovery
	if got := p.Limit(pace.Reads); got != raised {
		t.Fatalf("read limit after a throttle then an answer = %v, want the cut raised %v", got, raised)
	}

	srv.SetFaults(t, emulator.Faults{LatencyMS: 400})
	short := awssm.New(c, awssm.Options{Pace: p, OperationTimeout: 50 * time.Millisecond})
	_, err = short.Describe(ctx, "app/x")
	if !errors.As(err, &e) || e.Code != awscore.CodeTimeout {
		t.Fatalf("operation timeout → %#v", err)
	}
	if got := p.Limit(pace.Reads); got != raised {
		t.Fatalf("read limit after an operation timeout = %v, want it unchanged %v", got, raised)
	}
}
