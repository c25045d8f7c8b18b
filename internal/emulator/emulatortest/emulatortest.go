package emulatortest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Server is a running emulator: URL is its base URL (http://127.0.0.1:port),
// Emu the emulator itself for direct Go access.
type Server struct {
	URL string
	Emu *emulator.Emulator
}

// Start serves a new emulator built with opts on 127.0.0.1 until the test
// ends.
func Start(t testing.TB, opts ...emulator.Option) *Server {
	t.Helper()
	emu := emulator.New(opts...)
	ts := httptest.NewUnstartedServer(emu)
	ts.Config.ConnState = emu.ConnState
	ts.Start()
	t.Cleanup(ts.Close)
	return &Server{URL: ts.URL, Emu: emu}
}

// Client returns the real aws-sdk-go-v2 Secrets Manager client for this
// server: static credentials, Region us-east-1, BaseEndpoint = URL, the
// SDK's default (standard) retryer. optFns run last and may change anything.
func (s *Server) Client(t testing.TB, optFns ...func(*secretsmanager.Options)) *secretsmanager.Client {
	t.Helper()
	o := secretsmanager.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDEMULATOR", "emulator-secret", ""),
		BaseEndpoint: aws.String(s.URL),
	}
	return secretsmanager.New(o, optFns...)
}

// State returns GET /_emulator/state.
func (s *Server) State(t testing.TB) emulator.StateDump {
	t.Helper()
	var d emulator.StateDump
	s.do(t, http.MethodGet, "/_emulator/state", nil, &d)
	return d
}

// Stats returns GET /_emulator/stats.
func (s *Server) Stats(t testing.TB) emulator.Stats {
	t.Helper()
	var st emulator.Stats
	s.do(t, http.MethodGet, "/_emulator/stats", nil, &st)
	return st
}

// SetFaults does PUT /_emulator/faults (replacing the whole configuration).
func (s *Server) SetFaults(t testing.TB, f emulator.Faults) {
	t.Helper()
	s.do(t, http.MethodPut, "/_emulator/faults", f, nil)
}

// SetConditions does POST /_emulator/conditions.
func (s *Server) SetConditions(t testing.TB, c emulator.Conditions) {
	t.Helper()
	s.do(t, http.MethodPost, "/_emulator/conditions", c, nil)
}

// AdvanceClock does POST /_emulator/clock {"advance_seconds": d}.
func (s *Server) AdvanceClock(t testing.TB, d time.Duration) {
	t.Helper()
	s.do(t, http.MethodPost, "/_emulator/clock", map[string]float64{"advance_seconds": d.Seconds()}, nil)
}

// Reset does POST /_emulator/reset (state and stats).
func (s *Server) Reset(t testing.TB) {
	t.Helper()
	s.do(t, http.MethodPost, "/_emulator/reset", nil, nil)
}

func (s *Server) do(t testing.TB, method, path string, in, out any) {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("emulatortest: encode %s body: %v", path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, body)
	if err != nil {
		t.Fatalf("emulatortest: %s %s: %v", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("emulatortest: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("emulatortest: %s %s: read: %v", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("emulatortest: %s %s: HTTP %d: %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("emulatortest: %s %s: decode: %v", method, path, err)
		}
	}
}
