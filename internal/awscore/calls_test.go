package awscore_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/smithy-go"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
)

// jumpClock is a pace clock whose waits pass at once, moving it forward.
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
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	ch := make(chan time.Time, 1)
	ch <- now
	return ch
}

// TestCalls_BoundIsTheOperationTimeout: a call's context ends at the
// operation timeout; without one it has no deadline, and either ends with
// its parent.
func TestCalls_BoundIsTheOperationTimeout(t *testing.T) {
	parent, cancel := context.WithCancel(context.Background())
	before := time.Now()
	bounded, stop := awscore.Calls{Timeout: time.Hour}.Bound(parent)
	defer stop()
	if d, ok := bounded.Deadline(); !ok || d.Before(before.Add(time.Hour)) || d.After(time.Now().Add(time.Hour)) {
		t.Errorf("deadline %v (%v), want an hour from now", d, ok)
	}
	free, stopFree := awscore.Calls{}.Bound(parent)
	defer stopFree()
	if _, ok := free.Deadline(); ok {
		t.Error("no timeout, yet a deadline")
	}
	cancel()
	if bounded.Err() == nil || free.Err() == nil {
		t.Error("a call's context outlived its parent")
	}
}

// TestCalls_ReadResendsThrottlesAndPacesByTheAnswer: a throttled read is
// resent until answered, each throttle cutting the family's limit; an
// answer, even an error, raises it by pace.Recovery; a read that got no
// answer leaves it; the error returned is the converted one.
func TestCalls_ReadResendsThrottlesAndPacesByTheAnswer(t *testing.T) {
	const ceiling = 40.0
	p := pace.New(&jumpClock{now: time.Unix(1_700_000_000, 0)}, pace.Limits{})
	p.SetCeiling(pace.Reads, ceiling)
	c := awscore.Calls{Timeout: time.Minute, Pace: p, Codes: testCodes}
	ctx := context.Background()

	answers := []error{apiError("ThrottlingException", smithy.FaultClient), apiError("ThrottlingException", smithy.FaultClient), io.ErrUnexpectedEOF}
	calls := 0
	err := c.Read(ctx, pace.Reads, "DescribeSecret", func(cctx context.Context) error {
		if _, ok := cctx.Deadline(); !ok {
			t.Error("a read without the operation timeout")
		}
		calls++
		return answers[calls-1]
	})
	var e *engine.Error
	if calls != 3 || !errors.As(err, &e) || e.Code != awscore.CodeConnection || e.Operation != "DescribeSecret" {
		t.Fatalf("%d calls, %#v; want 3, the lost answer converted", calls, err)
	}
	cut := pace.Backoff * pace.Backoff * ceiling
	if got := p.Limit(pace.Reads); got != cut || p.Stats().Throttled != 2 {
		t.Fatalf("limit %v after two throttles and no answer, throttled %d; want %v, 2", got, p.Stats().Throttled, cut)
	}

	err = c.Read(ctx, pace.Reads, "DescribeSecret", func(context.Context) error { return apiError("AccessDeniedException", smithy.FaultClient) })
	if !errors.As(err, &e) || !e.AccessDenied {
		t.Fatalf("access denied → %#v", err)
	}
	if got := p.Limit(pace.Reads); math.Abs(got-(cut+pace.Recovery)) > 1e-9 {
		t.Fatalf("limit %v after an answer, want %v", got, cut+pace.Recovery)
	}
	if err := c.Read(ctx, pace.Reads, "DescribeSecret", func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := p.Limit(pace.Reads); math.Abs(got-(cut+2*pace.Recovery)) > 1e-9 {
		t.Fatalf("limit %v after a success, want %v", got, cut+2*pace.Recovery)
	}
}

// TestCalls_ReadEndsWithTheRunWhileWaiting: a read waiting for its turn
// when the run ends returns the run's error without calling.
func TestCalls_ReadEndsWithTheRunWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := awscore.Calls{Pace: pace.New(&jumpClock{now: time.Unix(1_700_000_000, 0)}, pace.Limits{Reads: 1}), Codes: testCodes}
	err := c.Read(ctx, pace.Reads, "DescribeSecret", func(context.Context) error {
		t.Error("called after the run ended")
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v, want context.Canceled", err)
	}
}

// recorder is an HTTP client that keeps the request it was given.
type recorder struct{ got *http.Request }

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.got = req
	return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
}

// TestGuardBody: a request body reaches the client as a reader and closer
// only (no WriteTo, which the SDK's body answers with io.EOF once closed),
// with the same bytes; a request without a body is passed as it is; nil
// stays nil and a guarded client is not guarded again.
func TestGuardBody(t *testing.T) {
	if awscore.GuardBody(nil) != nil {
		t.Error("nil client guarded")
	}
	rec := &recorder{}
	g := awscore.GuardBody(rec)
	if awscore.GuardBody(g) != g {
		t.Error("a guarded client was guarded again")
	}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", io.NopCloser(strings.NewReader("body")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Do(req); err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.got.Body.(io.WriterTo); ok || rec.got == req {
		t.Error("the client was handed the request's own body")
	}
	if b, err := io.ReadAll(rec.got.Body); err != nil || string(b) != "body" {
		t.Errorf("body %q, %v", b, err)
	}
	for _, body := range []io.ReadCloser{nil, http.NoBody} {
		req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1/", nil)
		req.Body = body
		if _, err := g.Do(req); err != nil || rec.got != req {
			t.Errorf("a request with body %v was not passed as it is", body)
		}
	}
}
