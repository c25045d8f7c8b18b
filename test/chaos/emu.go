package chaos

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
)

// Emu is a running secretsmanager-emulator process: its control API
// (docs/emulator.md) through the embedded emulatortest.Control, and its awsJson1_1
// API (Call, to seed state and play out-of-band changes).
type Emu struct {
	emulatortest.Control
	proc *emulatortest.Process
	hc   *http.Client
}

// StartEmulator runs bin on a free loopback port (its stderr discarded).
func StartEmulator(bin string) (*Emu, error) {
	p, err := emulatortest.StartProcess(context.Background(), bin, nil, "--kms-key", ChaosKMSKeyID+"="+ChaosKMSAlias)
	if err != nil {
		return nil, err
	}
	return &Emu{Control: p.Control(), proc: p, hc: &http.Client{Timeout: 30 * time.Second}}, nil
}

// Close stops the emulator (SIGTERM, then waits).
func (e *Emu) Close() { _ = e.proc.Stop() }

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
	return e.post("secretsmanager."+op, b, out)
}

// CallSSM sends one Parameter Store request (X-Amz-Target AmazonSSM.<op>)
// to the emulator, as Call does for Secrets Manager.
func (e *Emu) CallSSM(op string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return e.post("AmazonSSM."+op, b, out)
}

// post sends body as the awsJson1_1 request of target (X-Amz-Target); an
// error answer is an *APIError (wrapped with the target).
func (e *Emu) post(op string, body []byte, out any) error {
	req, err := http.NewRequest(http.MethodPost, e.URL+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-Amz-Target", op)
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
		if len(p.Replicas) > 0 {
			var add []map[string]string
			for _, region := range p.Replicas {
				add = append(add, map[string]string{"Region": region})
			}
			if err := e.Call("ReplicateSecretToRegions", map[string]any{"SecretId": p.Name, "AddReplicaRegions": add}, nil); err != nil {
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
