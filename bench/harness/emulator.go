package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// EmulatorProc is a running secretsmanager-emulator binary.
type EmulatorProc struct {
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// StartEmulator starts the emulator binary on 127.0.0.1 with a free port and
// extra flags, and waits for its "listening on http://..." first line.
func StartEmulator(ctx context.Context, bin string, flags ...string) (*EmulatorProc, error) {
	cmd := exec.Command(bin, append([]string{"--listen", "127.0.0.1:0"}, flags...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to start the emulator: %w", err)
	}
	p := &EmulatorProc{cmd: cmd, done: make(chan error, 1)}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		} else {
			line <- ""
		}
		_, _ = io.Copy(io.Discard, stdout)
		p.done <- cmd.Wait()
	}()
	select {
	case l := <-line:
		u, ok := strings.CutPrefix(l, "listening on ")
		if !ok || !strings.HasPrefix(u, "http://127.0.0.1:") {
			_ = cmd.Process.Kill()
			return nil, fmt.Errorf("emulator printed %q instead of its listening line", l)
		}
		p.URL = u
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("emulator did not print its listening line within 30s")
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		return nil, ctx.Err()
	}
	return p, nil
}

// Pid is the emulator's process id.
func (p *EmulatorProc) Pid() int { return p.cmd.Process.Pid }

// Stop sends SIGTERM and waits for the emulator to exit (it must exit 0).
func (p *EmulatorProc) Stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		return err
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		return fmt.Errorf("emulator did not stop within 10s of SIGTERM")
	}
}

// Control drives the emulator's JSON control API under /_emulator/
// (issue 2).
type Control struct {
	URL  string
	HTTP *http.Client
}

func (c Control) client() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c Control) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.client().Do(req)
	if err != nil {
		return fmt.Errorf("emulator %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("emulator %s %s: read: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("emulator %s %s: HTTP %d: %s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("emulator %s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

// Stats returns GET /_emulator/stats.
func (c Control) Stats(ctx context.Context) (emulator.Stats, error) {
	var s emulator.Stats
	err := c.do(ctx, http.MethodGet, "/_emulator/stats", nil, &s)
	return s, err
}

// SetFaults replaces the fault configuration (PUT /_emulator/faults); it
// also refills the quota buckets.
func (c Control) SetFaults(ctx context.Context, f emulator.Faults) error {
	return c.do(ctx, http.MethodPut, "/_emulator/faults", f, nil)
}

// Reset clears state and statistics (POST /_emulator/reset).
func (c Control) Reset(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/_emulator/reset", nil, nil)
}

// State returns GET /_emulator/state.
func (c Control) State(ctx context.Context) (emulator.StateDump, error) {
	var d emulator.StateDump
	err := c.do(ctx, http.MethodGet, "/_emulator/state", nil, &d)
	return d, err
}

// Calls is a per-operation call count.
type Calls map[string]int64

// Total is the sum over operations.
func (c Calls) Total() int64 {
	var t int64
	for _, n := range c {
		t += n
	}
	return t
}

// Delta is what happened between two stats snapshots.
type Delta struct {
	Calls     Calls // every request received, throttled ones and retries included
	Throttled Calls // requests answered ThrottlingException by the quota buckets
	Faults    Calls // injected faults by kind (latency counts every delayed call)
	// Connections is the number of TCP connections the client opened.
	Connections int64
}

// Sub returns after − before per operation, dropping zeros.
func Sub(after, before emulator.Stats) Delta {
	sub := func(a, b map[string]int64) Calls {
		out := Calls{}
		for k, v := range a {
			if d := v - b[k]; d != 0 {
				out[k] = d
			}
		}
		return out
	}
	return Delta{Calls: sub(after.Calls, before.Calls), Throttled: sub(after.Throttled, before.Throttled), Faults: sub(after.Faults, before.Faults),
		Connections: after.Connections - before.Connections}
}

// Mutations sums the mutating operations in c.
func (c Calls) Mutations() int64 {
	var t int64
	for _, op := range []string{"CreateSecret", "PutSecretValue", "UpdateSecret", "DeleteSecret", "RestoreSecret", "TagResource", "UntagResource", "UpdateSecretVersionStage"} {
		t += c[op]
	}
	return t
}
