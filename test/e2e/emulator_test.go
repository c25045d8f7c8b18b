package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// emu is one running secretsmanager-emulator process.
type emu struct {
	t   *testing.T
	URL string
}

// mutating lists the Secrets Manager operations that change state.
var mutating = []string{
	"CreateSecret", "PutSecretValue", "UpdateSecret", "DeleteSecret", "RestoreSecret",
	"TagResource", "UntagResource", "UpdateSecretVersionStage",
}

// startEmulator starts the emulator binary on a free loopback port and stops
// it (SIGTERM, then wait) when the test ends.
func startEmulator(t *testing.T, args ...string) *emu {
	t.Helper()
	cmd := exec.Command(emulatorBin, append([]string{"--listen", "127.0.0.1:0", "--seed", "1"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go func() {
		_, _ = io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	if err != nil || !strings.HasPrefix(line, "listening on http://127.0.0.1:") {
		t.Fatalf("emulator did not announce its address: %q %v; stderr: %s", line, err, stderr.String())
	}
	return &emu{t: t, URL: strings.TrimSpace(strings.TrimPrefix(line, "listening on "))}
}

func (e *emu) control(method, path string, in, out any) {
	e.t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			e.t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.URL+"/_emulator/"+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("emulator control %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("emulator control %s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			e.t.Fatalf("emulator control %s %s: %v", method, path, err)
		}
	}
}

func (e *emu) state() emulator.StateDump {
	var s emulator.StateDump
	e.control(http.MethodGet, "state", nil, &s)
	return s
}

func (e *emu) stats() emulator.Stats {
	var s emulator.Stats
	e.control(http.MethodGet, "stats", nil, &s)
	return s
}

func (e *emu) setFaults(f emulator.Faults) {
	e.control(http.MethodPut, "faults", f, nil)
}

func (e *emu) conditions(c emulator.Conditions) {
	e.control(http.MethodPost, "conditions", c, nil)
}

// mutatingCalls is the number of state-changing calls the emulator has seen.
func (e *emu) mutatingCalls() int64 {
	st := e.stats()
	var n int64
	for _, op := range mutating {
		n += st.Calls[op]
	}
	return n
}

// secret returns the secret named name from the emulator state, or nil.
func (e *emu) secret(name string) *emulator.SecretDump {
	for _, s := range e.state().Secrets {
		if s.Name == name {
			s := s
			return &s
		}
	}
	return nil
}

// currentValue is the AWSCURRENT SecretString of name ("" if none).
func (e *emu) currentValue(name string) string {
	s := e.secret(name)
	if s == nil {
		return ""
	}
	for _, v := range s.Versions {
		for _, st := range v.Stages {
			if st == "AWSCURRENT" && v.SecretString != nil {
				return *v.SecretString
			}
		}
	}
	return ""
}

// sdk returns a real aws-sdk-go-v2 client on the emulator, used by tests to
// play an out-of-band writer or a foreign owner.
func (e *emu) sdk() *secretsmanager.Client {
	return secretsmanager.New(secretsmanager.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(e.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDE2E", "e2e-secret", ""),
	})
}

func (e *emu) putValue(name, value string) {
	e.t.Helper()
	_, err := e.sdk().PutSecretValue(context.Background(), &secretsmanager.PutSecretValueInput{
		SecretId: aws.String(name), SecretString: aws.String(value),
	})
	if err != nil {
		e.t.Fatalf("out-of-band PutSecretValue: %v", err)
	}
}

func (e *emu) String() string { return fmt.Sprintf("emulator at %s", e.URL) }
