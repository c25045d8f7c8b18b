package awssm_test

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Regression (request-body-close race, seen as an SDK retry of one
// BatchGetSecretValue or ListSecrets in about one bench run in four at
// --concurrency 1): smithy-go closes the request body as soon as the
// transport returns the response, and its body's WriteTo then answers
// io.EOF; when net/http's write goroutine had not yet made its final copy of
// the body (the check for bytes past Content-Length), it took that io.EOF for
// a failed request body and closed the connection while the SDK was reading
// the 200 answer ("use of closed network connection").
//
// closeRace forces that interleaving: each socket write of a request waits
// until the SDK has closed the request body (or 100 ms: the header write,
// sent before the body, gets no answer), and once the body is closed the
// next socket read waits until the connection is closed (or 100 ms), so the
// rest of the answer is read after the write goroutine's last step. Without awssm.KeepConnections
// every call fails (retries are off) and no connection is reused.
func TestRequestBodyCloseRace(t *testing.T) {
	srv := emulatortest.Start(t)
	seed := srv.Client(t)
	ctx := context.Background()
	const n = 10 // 10 values of 1 KiB: an answer larger than the transport's 4 KiB read buffer
	ids := make([]string, n)
	for i := range ids {
		out, err := seed.CreateSecret(ctx, &secretsmanager.CreateSecretInput{
			Name: aws.String(fmt.Sprintf("regression/body-close/%02d", i)), SecretString: aws.String(strings.Repeat("v", 1024))})
		if err != nil {
			t.Fatalf("seed: %v", err)
		}
		ids[i] = aws.ToString(out.ARN)
	}

	race := &closeRace{}
	hc := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) { tr.DialContext = race.dial })
	c := secretsmanager.New(secretsmanager.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDTEST", "test", ""),
		BaseEndpoint: aws.String(srv.URL),
		HTTPClient:   hc,
		Retryer:      aws.NopRetryer{},
	}, awssm.KeepConnections, race.observe)

	before := srv.Emu.Stats().Connections
	const calls = 3
	for i := range calls {
		out, err := c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: ids})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if len(out.SecretValues) != n {
			t.Errorf("call %d: %d values, want %d", i+1, len(out.SecretValues), n)
		}
	}
	if got := race.released.Load(); got != calls {
		t.Errorf("writes released by a body close = %d, want %d: each request's last write waits for the SDK to close its body", got, calls)
	}
	if got := srv.Emu.Stats().Connections - before; got != 1 {
		t.Errorf("connections = %d, want 1: the calls share one connection", got)
	}
}

// closeRace is the test's dialer and HTTP client wrapper (see
// TestRequestBodyCloseRace). Calls are sequential: one request at a time.
type closeRace struct {
	mu         sync.Mutex
	bodyClosed chan struct{} // of the current request
	released   atomic.Int64  // writes released by a body close
}

func (r *closeRace) current() chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bodyClosed
}

// observe wraps the client's HTTP client (outermost, so the body the SDK
// closes is closeRace's).
func (r *closeRace) observe(o *secretsmanager.Options) {
	next := o.HTTPClient
	o.HTTPClient = doFunc(func(req *http.Request) (*http.Response, error) {
		ch := make(chan struct{})
		r.mu.Lock()
		r.bodyClosed = ch
		r.mu.Unlock()
		if req.Body != nil && req.Body != http.NoBody {
			b := &observedBody{ReadCloser: req.Body, closed: ch}
			if wt, ok := req.Body.(io.WriterTo); ok {
				// Keep the SDK body's WriteTo visible to the transport.
				req.Body = observedWriterTo{b, wt}
			} else {
				req.Body = b
			}
		}
		return next.Do(req)
	})
}

func (r *closeRace) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &raceConn{Conn: c, race: r, closed: make(chan struct{})}, nil
}

type doFunc func(*http.Request) (*http.Response, error)

func (f doFunc) Do(req *http.Request) (*http.Response, error) { return f(req) }

type observedBody struct {
	io.ReadCloser
	once   sync.Once
	closed chan struct{}
}

func (b *observedBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(func() { close(b.closed) })
	return err
}

type observedWriterTo struct {
	*observedBody
	wt io.WriterTo
}

func (b observedWriterTo) WriteTo(w io.Writer) (int64, error) { return b.wt.WriteTo(w) }

// raceConn is a client connection whose writes wait for the request body to
// be closed and whose reads, after that, wait for the connection to close.
type raceConn struct {
	net.Conn
	race      *closeRace
	closeOnce sync.Once
	closed    chan struct{}
	waited    chan struct{} // the body close the reads last waited after (read goroutine only)
}

func (c *raceConn) Write(p []byte) (int, error) {
	body := c.race.current()
	n, err := c.Conn.Write(p)
	select {
	case <-body:
		c.race.released.Add(1)
	case <-time.After(100 * time.Millisecond):
	}
	return n, err
}

func (c *raceConn) Read(p []byte) (int, error) {
	body := c.race.current()
	select {
	case <-body:
		if c.waited != body { // once per request
			c.waited = body
			select {
			case <-c.closed:
			case <-time.After(100 * time.Millisecond):
			}
		}
	default:
	}
	return c.Conn.Read(p)
}

func (c *raceConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// TestRegression_RequestBodyCloseEveryAdapterCall: the adapter applies
// KeepConnections to every call itself, so a client built without it (the
// engine's and the adapter's tests build theirs with emulatortest) cannot
// re-send an answered call through the body-close race. Before, only the
// CLI's factory wrapped its clients, and under CPU load the tests counted
// an SDK retry as a call the engine made (ListSecrets 2 for 1 in
// TestDecisionRows, 4 for 3 in TestThrottledReadsAreResentUntilAnswered).
// Every request with a body must reach the HTTP client without WriteTo.
func TestRegression_RequestBodyCloseEveryAdapterCall(t *testing.T) {
	srv := emulatortest.Start(t)
	var mu sync.Mutex
	seen := map[string]bool{} // operation → its body showed WriteTo
	c := srv.Client(t, func(o *secretsmanager.Options) {
		next := o.HTTPClient
		o.HTTPClient = doFunc(func(req *http.Request) (*http.Response, error) {
			_, wt := req.Body.(io.WriterTo)
			mu.Lock()
			seen[req.Header.Get("X-Amz-Target")] = wt
			mu.Unlock()
			return next.Do(req)
		})
	})
	a := awssm.New(c, awssm.Options{})
	ctx := context.Background()
	if _, err := a.Describe(ctx, "app/x"); err != nil {
		t.Fatalf("describe: %v", err)
	}
	if _, err := a.ListCandidates(ctx, ""); err != nil {
		t.Fatalf("list: %v", err)
	}
	if _, err := a.GetCurrentValues(ctx, nil); err != nil {
		t.Fatalf("values: %v", err)
	}

	mu.Lock()
	got := maps.Clone(seen)
	mu.Unlock()
	for _, op := range []string{"secretsmanager.DescribeSecret", "secretsmanager.ListSecrets"} {
		if _, ok := got[op]; !ok {
			t.Fatalf("%s was not sent (sent %v)", op, got)
		}
	}
	for op, wt := range got {
		if wt {
			t.Errorf("%s: the request body showed WriteTo to the HTTP client", op)
		}
	}
	// The SDK's own body does show it: without the adapter's wrapper the
	// assertion above would fail.
	if _, err := c.ListSecrets(ctx, &secretsmanager.ListSecretsInput{}); err != nil {
		t.Fatalf("direct list: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !seen["secretsmanager.ListSecrets"] {
		t.Error("the SDK's own request body has no WriteTo: this test no longer tells the guard apart")
	}
}
