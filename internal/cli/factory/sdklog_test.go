package factory

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/stretchr/testify/require"
)

// Regression (stderr-output, found by the reliability campaign, seed 1
// scenarios 348 and 381): the SDK's default logger wrote a raw library
// warning ("SDK … WARN failed to discard remaining HTTP response body …
// read tcp 127.0.0.1:…: use of closed network connection") to stderr during
// a converged sync. SPEC §7.3: stderr carries only usage and configuration
// diagnostics, and no raw provider or library text reaches the user. The
// server here answers DescribeSecret with a complete JSON body but a longer
// Content-Length and then drops the connection, which makes the SDK log
// exactly that warning when it discards the rest of the body.
func TestSDKLogNeverReachesStderr(t *testing.T) {
	body := []byte(`{"Name":"p/a","ARN":"arn:aws:secretsmanager:us-east-1:123456789012:secret:p/a-AbCdEf"}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)+64))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
	}))
	t.Cleanup(srv.Close)
	awsEnv(t, srv.URL)

	r, w, err := os.Pipe()
	require.NoError(t, err)
	saved := os.Stderr
	os.Stderr = w
	restored := false
	restore := func() {
		if !restored {
			os.Stderr = saved
			_ = w.Close()
			restored = true
		}
	}
	t.Cleanup(restore)

	p, err := onePort(context.Background(), config.AWS{MaxAttempts: 1})
	require.NoError(t, err)
	_, _ = p.Describe(context.Background(), "p/a") // the outcome does not matter here
	restore()
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Empty(t, string(got), "the SDK wrote to stderr")
}
