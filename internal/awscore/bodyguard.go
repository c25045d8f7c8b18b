package awscore

import (
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// GuardBody wraps c in bodyGuard (once; nil stays nil). Each adapter
// applies it, as a client option, to the HTTP client the SDK resolved (a
// custom CA bundle and the defaults mode need the SDK's own
// *awshttp.BuildableClient) on every call it makes, so every client an
// adapter is built over, the CLI's and the tests' alike, sends each call
// once when the service answers it.
func GuardBody(c aws.HTTPClient) aws.HTTPClient {
	if c == nil {
		return nil
	}
	if _, ok := c.(bodyGuard); ok {
		return c
	}
	return bodyGuard{c}
}

// bodyGuard sends each request with its body seen only as an io.ReadCloser.
//
// smithy-go closes the request body as soon as the HTTP client returns the
// response (transport/http ClientHandler), while net/http may still be
// finishing the request in its write goroutine: after the Content-Length
// bytes it copies the rest of the body to check that there is none. The
// SDK's body (internal/io safeWriteToReadCloser) answers that copy, through
// its WriteTo, with io.EOF once closed, which io.Copy passes on as an error,
// so the transport takes it for a failed request body and closes the
// connection, in the middle of reading the answer: the SDK reports a
// deserialization error of a 200 ("use of closed network connection") and
// sends the call again. The answer can arrive before that last copy for any
// request with a body: net/http flushes the headers on their own for a body
// it does not know to be in memory and then writes the body straight to the
// socket, so the server has the whole request while the write goroutine
// still has that copy to make (a window of microseconds, open when the
// goroutine waits for a CPU). Without WriteTo, the copy reads, and Read
// after Close returns io.EOF, which ends the copy without an error.
type bodyGuard struct{ c aws.HTTPClient }

func (g bodyGuard) Do(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return g.c.Do(r)
	}
	r2 := r.WithContext(r.Context())
	r2.Body = readCloserOnly{r.Body}
	return g.c.Do(r2)
}

// readCloserOnly hides every method of its body but Read and Close.
type readCloserOnly struct{ io.ReadCloser }
