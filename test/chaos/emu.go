package chaos

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Emu is a running secretsmanager-emulator process and a client of its
// control API (issue 2) and of its awsJson1_1 API (to seed state).
type Emu struct {
	URL string
	cmd *exec.Cmd
	hc  *http.Client
}

// StartEmulator runs bin --listen 127.0.0.1:0 and reads the address from
// its first stdout line.
func StartEmulator(bin string) (*Emu, error) {
	cmd := exec.Command(bin, "--listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("failed to start the emulator: %w", err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("failed to read the emulator's address: %w", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("unexpected first line from the emulator: %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return &Emu{URL: url, cmd: cmd, hc: &http.Client{Timeout: 30 * time.Second}}, nil
}

// Close stops the emulator (SIGTERM, then waits).
func (e *Emu) Close() {
	if e.cmd != nil && e.cmd.Process != nil {
		_ = e.cmd.Process.Signal(syscall.SIGTERM)
		_ = e.cmd.Wait()
	}
}

func (e *Emu) control(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.URL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.hc.Do(req)
	if err != nil {
		return fmt.Errorf("emulator %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("emulator %s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Reset empties state and stats (faults and clock stay).
func (e *Emu) Reset() error { return e.control(http.MethodPost, "/_emulator/reset", nil, nil) }

// SetFaults replaces the fault configuration.
func (e *Emu) SetFaults(f Faults) error {
	if f.Script == nil {
		f.Script = []ScriptedFault{}
	}
	return e.control(http.MethodPut, "/_emulator/faults", f, nil)
}

// State returns the live state.
func (e *Emu) State() (emulator.StateDump, error) {
	var d emulator.StateDump
	err := e.control(http.MethodGet, "/_emulator/state", nil, &d)
	return d, err
}

// Stats returns the counters.
func (e *Emu) Stats() (emulator.Stats, error) {
	var s emulator.Stats
	err := e.control(http.MethodGet, "/_emulator/stats", nil, &s)
	return s, err
}

// Advance moves the emulator clock forward.
func (e *Emu) Advance(d time.Duration) error {
	return e.control(http.MethodPost, "/_emulator/clock", map[string]float64{"advance_seconds": d.Seconds()}, nil)
}

// APIError is an error answer of the Secrets Manager API.
type APIError struct {
	Status int
	Type   string `json:"__type"`
}

func (a *APIError) Error() string { return fmt.Sprintf("HTTP %d %s", a.Status, a.Type) }

// Call sends one awsJson1_1 request to the emulator (no proxy, no faults
// expected: the campaign seeds state with faults off).
func (e *Emu) Call(op string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, e.URL+"/", bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("X-Amz-Target", "secretsmanager."+op)
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	resp, err := e.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		ae := &APIError{Status: resp.StatusCode}
		_ = json.Unmarshal(rb, ae)
		return fmt.Errorf("%s: %w", op, ae)
	}
	if out != nil {
		return json.Unmarshal(rb, out)
	}
	return nil
}

func newToken() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type tag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// Seed writes pre into the emulator: CreateSecret with the first version
// and the tags, PutSecretValue for each later version, then DeleteSecret
// with the recovery window for pending ones.
func (e *Emu) Seed(pre []PreSecret) error {
	for _, p := range pre {
		if len(p.Versions) == 0 {
			return errors.New("seed: a secret needs a version")
		}
		in := map[string]any{"Name": p.Name, "ClientRequestToken": newToken()}
		if p.Description != "" {
			in["Description"] = p.Description
		}
		var tags []tag
		for _, k := range sortedKeys(p.Tags) {
			tags = append(tags, tag{k, p.Tags[k]})
		}
		if len(tags) > 0 {
			in["Tags"] = tags
		}
		putValue(in, p.Versions[0])
		if err := e.Call("CreateSecret", in, nil); err != nil {
			return fmt.Errorf("seed %s: %w", p.Name, err)
		}
		for _, v := range p.Versions[1:] {
			in := map[string]any{"SecretId": p.Name, "ClientRequestToken": newToken()}
			putValue(in, v)
			if err := e.Call("PutSecretValue", in, nil); err != nil {
				return fmt.Errorf("seed %s: %w", p.Name, err)
			}
		}
		if p.DeleteWindowDays > 0 {
			if err := e.Call("DeleteSecret", map[string]any{"SecretId": p.Name, "RecoveryWindowInDays": p.DeleteWindowDays}, nil); err != nil {
				return fmt.Errorf("seed %s: %w", p.Name, err)
			}
		}
	}
	return nil
}

func putValue(in map[string]any, v PreVersion) {
	if v.String != nil {
		in["SecretString"] = *v.String
	} else {
		in["SecretBinary"] = v.Binary // []byte marshals as standard base64
	}
}

// ApplyDrift makes one out-of-band change; the emulator may refuse it.
func (e *Emu) ApplyDrift(d Drift) error {
	switch d.Kind {
	case "value":
		v := `{"drift":"` + newToken() + `"}`
		return e.Call("PutSecretValue", map[string]any{"SecretId": d.Name, "SecretString": v, "ClientRequestToken": newToken()}, nil)
	case "delete":
		return e.Call("DeleteSecret", map[string]any{"SecretId": d.Name, "RecoveryWindowInDays": d.Window}, nil)
	case "restore":
		return e.Call("RestoreSecret", map[string]any{"SecretId": d.Name}, nil)
	}
	return fmt.Errorf("unknown drift kind %q", d.Kind)
}
