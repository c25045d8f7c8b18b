package emulator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/secretsmanager"
)

// The control API under /_emulator/ (docs/emulator.md): JSON in, JSON out; bad input
// gets 400 {"error": "..."}; a wrong method gets 405.

// State returns the live state (see StateDump).
func (e *Emulator) State() StateDump {
	e.mu.Lock()
	defer e.mu.Unlock()
	d := StateDump{Secrets: []SecretDump{}}
	for _, p := range e.partOrder {
		d.Secrets = append(d.Secrets, e.smCall(p).Dump()...)
		d.Parameters = append(d.Parameters, e.ssmCall(p).Dump()...)
	}
	return d
}

// SetConditions applies c to the secret named (or ARN'd) by c.Name. It
// returns an error when the secret does not exist or c is invalid.
func (e *Emulator) SetConditions(c Conditions) error {
	if err := secretsmanager.CheckConditions(c); err != nil {
		return err
	}
	p, err := e.controlPart(c.Name, c.Account, c.Region)
	if err != nil {
		return err
	}
	return e.smCall(p).SetConditions(c)
}

// Rotate runs one step of a rotation (see Rotation). Errors: unknown
// secret, rotation not enabled, a step out of order (set, test or finish
// without a rotation in flight, create while one is), an invalid pointer,
// a current value that is not a JSON object where a key is named,
// remove_pending on a step other than finish.
func (e *Emulator) Rotate(rot Rotation) (RotationStep, error) {
	if err := secretsmanager.CheckRotation(rot); err != nil {
		return RotationStep{}, err
	}
	p, err := e.controlPart(rot.Name, rot.Account, rot.Region)
	if err != nil {
		return RotationStep{}, err
	}
	return e.smCall(p).Rotate(rot)
}

// controlPart returns the partition that serves a control request about
// the secret name (a name or ARN) in account and Region: the given ones,
// else the ARN's, else the default ones.
func (e *Emulator) controlPart(name, account, region string) (*part, error) {
	if f := strings.SplitN(name, ":", 6); len(f) == 6 && f[0] == "arn" {
		account, region = cmp.Or(account, f[4]), cmp.Or(region, f[3])
	}
	e.mu.Lock()
	account, region = cmp.Or(account, e.defAccount), cmp.Or(region, e.defRegion)
	e.mu.Unlock()
	if !core.ValidAccount(account) || !core.ValidRegion(region) {
		return nil, fmt.Errorf("account %q or region %q is malformed", account, region)
	}
	e.mu.Lock()
	p := e.partFor(account, region)
	e.mu.Unlock()
	return p, nil
}

// ClockAdvance is the body of POST /_emulator/clock: seconds to move the
// emulator clock forward, 0 to 3,153,600,000 (100 years); required.
type ClockAdvance struct {
	AdvanceSeconds *float64 `json:"advance_seconds"`
}

// Clock is the answer of GET and POST /_emulator/clock: the emulator clock.
type Clock struct {
	Now time.Time `json:"now"`
}

// Status is the answer of the control requests that return nothing else
// (health, reset, conditions): {"status":"ok"}.
type Status struct {
	Status string `json:"status"`
}

// ControlError is the body of every control API error (HTTP 400, 404,
// 405): what is wrong, in words.
type ControlError struct {
	Error string `json:"error"`
}

var statusOK = Status{Status: "ok"}

func (e *Emulator) serveControl(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	method := r.Method
	allow := func(m string) bool {
		if method != m {
			w.Header().Set("Allow", m)
			writeControlError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s needs %s", path, m))
			return false
		}
		return true
	}
	switch path {
	case "/_emulator/health":
		if allow(http.MethodGet) {
			writeJSON(w, statusOK)
		}
	case "/_emulator/state":
		if allow(http.MethodGet) {
			writeJSON(w, e.State())
		}
	case "/_emulator/stats":
		if allow(http.MethodGet) {
			writeJSON(w, e.Stats())
		}
	case "/_emulator/reset":
		if allow(http.MethodPost) {
			e.Reset()
			writeJSON(w, statusOK)
		}
	case "/_emulator/faults":
		serveSettings(w, r, e.Faults, e.SetFaults)
	case "/_emulator/release":
		if allow(http.MethodPost) {
			e.Release()
			writeJSON(w, statusOK)
		}
	case "/_emulator/quotas":
		serveSettings(w, r, e.Quotas, e.SetQuotas)
	case "/_emulator/iam":
		serveSettings(w, r, e.IAM, e.SetIAM)
	case "/_emulator/sessions":
		if allow(http.MethodGet) {
			writeJSON(w, e.Sessions())
		}
	case "/_emulator/user-agents":
		if allow(http.MethodGet) {
			writeJSON(w, e.UserAgents())
		}
	case "/_emulator/conditions":
		if !allow(http.MethodPost) {
			return
		}
		var c Conditions
		if !readControl(w, r, &c) {
			return
		}
		if err := e.SetConditions(c); err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, statusOK)
	case "/_emulator/rotation":
		if !allow(http.MethodPost) {
			return
		}
		var rot Rotation
		if !readControl(w, r, &rot) {
			return
		}
		out, err := e.Rotate(rot)
		if err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, out)
	case "/_emulator/clock":
		switch method {
		case http.MethodGet:
			writeJSON(w, Clock{Now: e.Now()})
		case http.MethodPost:
			var c ClockAdvance
			if !readControl(w, r, &c) {
				return
			}
			if c.AdvanceSeconds == nil || *c.AdvanceSeconds < 0 || math.IsInf(*c.AdvanceSeconds, 0) || *c.AdvanceSeconds > 100*365*24*3600 {
				writeControlError(w, http.StatusBadRequest, "advance_seconds is required: a number of seconds between 0 and 3153600000")
				return
			}
			e.AdvanceClock(time.Duration(*c.AdvanceSeconds * float64(time.Second)))
			writeJSON(w, Clock{Now: e.Now()})
		default:
			w.Header().Set("Allow", "GET, POST")
			writeControlError(w, http.StatusMethodNotAllowed, "/_emulator/clock needs GET or POST")
		}
	case "/_emulator/organizations":
		if allow(http.MethodGet) {
			writeJSON(w, e.Organizations())
		}
	case "/_emulator/organizations/account-status":
		if !allow(http.MethodPost) {
			return
		}
		var s AccountStatus
		if !readControl(w, r, &s) {
			return
		}
		if err := e.SetAccountStatus(s); err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, statusOK)
	case "/_emulator/kms", "/_emulator/kms/keys", "/_emulator/kms/aliases":
		e.serveKMS(w, r)
	default:
		writeControlError(w, http.StatusNotFound, "unknown control endpoint "+path+"; see docs/emulator.md")
	}
}

// serveSettings serves one settings endpoint: GET answers get(); PUT
// decodes a strict body, answers 400 when set refuses it, else get().
func serveSettings[T any](w http.ResponseWriter, r *http.Request, get func() T, set func(T) error) {
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, get())
	case http.MethodPut:
		var v T
		if !readControl(w, r, &v) {
			return
		}
		if err := set(v); err != nil {
			writeControlError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, get())
	default:
		w.Header().Set("Allow", "GET, PUT")
		writeControlError(w, http.StatusMethodNotAllowed, r.URL.Path+" needs GET or PUT")
	}
}

// readControl decodes a strict JSON body (unknown fields are errors, so a
// typo never silently does nothing).
func readControl(w http.ResponseWriter, r *http.Request, v any) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, core.MaxBody+1))
	if err != nil || len(body) > core.MaxBody {
		writeControlError(w, http.StatusBadRequest, "cannot read the request body (at most 1 MiB)")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		writeControlError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return false
	}
	if dec.More() {
		writeControlError(w, http.StatusBadRequest, "invalid JSON body: trailing data after the object")
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeControlError(w, http.StatusInternalServerError, "cannot encode the response")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(b, '\n'))
}

func writeControlError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(ControlError{Error: msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
