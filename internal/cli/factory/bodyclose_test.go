package factory

import (
	"context"
	"fmt"
	"io"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
// rest of the answer is read after the write goroutine's last step. Without keepConnections
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
		require.NoError(t, err)
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
	}, keepConnections, race.observe)

	before := srv.Emu.Stats().Connections
	const calls = 3
	for i := range calls {
		out, err := c.BatchGetSecretValue(ctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: ids})
		require.NoError(t, err, "call %d", i+1)
		assert.Len(t, out.SecretValues, n)
	}
	assert.Equal(t, int64(calls), race.released.Load(), "each request's last write waited for the SDK to close its body")
	assert.Equal(t, int64(1), srv.Emu.Stats().Connections-before, "the calls share one connection")
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
