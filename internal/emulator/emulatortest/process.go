package emulatortest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a running secretsmanager-emulator binary
// (cmd/secretsmanager-emulator) listening on a free loopback port, for the
// callers that test built binaries: e2e tests, the chaos campaign and the
// benchmark harness.
type Process struct {
	// URL is the base URL the emulator announced (http://127.0.0.1:port).
	URL  string
	cmd  *exec.Cmd
	done chan error

	stopOnce sync.Once
	stopErr  error
}

// processHTTP bounds every control request to a process, so a wedged
// emulator fails the caller instead of hanging it.
var processHTTP = &http.Client{Timeout: time.Minute}

// StartProcess runs `bin --listen 127.0.0.1:0 args...` and waits for its
// first stdout line, "listening on http://127.0.0.1:PORT", for at most 30 s
// or until ctx ends. The emulator's stderr goes to stderr (nil discards it;
// after a failed start it holds all the process wrote). Stop ends it.
func StartProcess(ctx context.Context, bin string, stderr io.Writer, args ...string) (*Process, error) {
	cmd := exec.Command(bin, append([]string{"--listen", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to start the emulator: %w", err)
	}
	p := &Process{cmd: cmd, done: make(chan error, 1)}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- l
		_, _ = io.Copy(io.Discard, stdout)
		p.done <- cmd.Wait()
	}()
	fail := func(err error) (*Process, error) {
		_ = cmd.Process.Kill()
		<-p.done
		return nil, err
	}
	select {
	case l := <-line:
		u, ok := strings.CutPrefix(strings.TrimSpace(l), "listening on ")
		if !ok || !strings.HasPrefix(u, "http://127.0.0.1:") {
			return fail(fmt.Errorf("emulator printed %q instead of its listening line", l))
		}
		p.URL = u
		return p, nil
	case <-time.After(30 * time.Second):
		return fail(errors.New("emulator did not print its listening line within 30s"))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
}

// Pid is the emulator's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Control is the control API client of this process (requests time out
// after a minute).
func (p *Process) Control() Control { return Control{URL: p.URL, HTTP: processHTTP} }

// Stop sends SIGTERM and waits for the emulator to exit: nil when it exited
// 0; an error when it exited otherwise or had to be killed after 10 s.
// Later calls return the first call's result.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case p.stopErr = <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
			p.stopErr = errors.New("emulator did not stop within 10s of SIGTERM")
		}
	})
	return p.stopErr
}
