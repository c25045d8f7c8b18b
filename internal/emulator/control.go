package emulator

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// The control API under /_emulator/ (docs/emulator.md): JSON in, JSON out; bad input
// gets 400 {"error": "..."}; a wrong method gets 405.

// State returns the live state (see StateDump).
func (e *Emulator) State() StateDump {
	e.mu.Lock()
	defer e.mu.Unlock()
	now, lag := e.now(), e.lag()
	d := StateDump{Secrets: []SecretDump{}}
	for _, p := range e.partOrder {
		p.st.sweep(now, lag)
		e.dumpPart(p, &d)
		d.Parameters = append(d.Parameters, e.ssmCall(p).Dump()...)
	}
	return d
}

// dumpPart appends partition p's live secrets to d. e.mu is held.
func (e *Emulator) dumpPart(p *part, d *StateDump) {
	for _, r := range p.st.order {
		s := r.cur()
		if s == nil {
			continue
		}
		sd := SecretDump{
			Account:         p.account,
			Region:          p.region,
			Name:            s.name,
			ARN:             s.arn,
			Description:     s.description,
			KmsKeyID:        s.kmsKeyID,
			Tags:            map[string]string{},
			RotationEnabled: s.rotationEnabled,
			LastRotatedDate: timePtr(s.lastRotated),
			OwningService:   s.owningService,
			ReplicaRegions:  s.replicaRegions(),
			PrimaryRegion:   s.primaryRegion,
			Replica:         s.replica,
			ResourcePolicy:  s.policy,
			Versions:        []VersionDump{},
		}
		if s.pending() {
			t := s.deletedDate
			sd.DeletedDate = &t
		}
		for _, t := range s.tags {
			sd.Tags[t.key] = t.value
		}
		for _, rs := range s.replicas {
			st, msg := rs.status(e.now())
			sd.ReplicationStatus = append(sd.ReplicationStatus, ReplicaStatusDump{Region: rs.region, KmsKeyID: rs.kmsKeyID, Status: st, StatusMessage: msg})
		}
		for _, v := range s.versions {
			vd := VersionDump{VersionID: v.id, Stages: append([]string{}, s.stages[v.id]...), SecretBinary: slices.Clone(v.bin), CreatedDate: v.created, KmsKeyIDs: keyIDsOut(v)}
			if v.str != nil {
				str := *v.str
				vd.SecretString = &str
			}
			sd.Versions = append(sd.Versions, vd)
		}
		d.Secrets = append(d.Secrets, sd)
	}
}

// SetConditions applies c to the secret named (or ARN'd) by c.Name. It
// returns an error when the secret does not exist or c is invalid.
func (e *Emulator) SetConditions(c Conditions) error {
	if c.Name == "" {
		return errors.New("name is required (a secret name or ARN)")
	}
	for _, reg := range c.ReplicaRegions {
		if !core.ValidRegion(reg) {
			return fmt.Errorf("replica region %q is not a Region name like us-west-2", reg)
		}
	}
	if c.CurrentPayload != nil && *c.CurrentPayload != "both" && *c.CurrentPayload != "neither" {
		return fmt.Errorf("current_payload must be \"both\" or \"neither\"")
	}
	ec, err := e.controlCall(c.Name, c.Account, c.Region)
	if err != nil {
		return err
	}
	return ec.setConditions(c)
}

// controlCall returns the call that serves a control request about the
// secret name (a name or ARN) in account and Region: the given ones, else
// the ARN's, else the default ones.
func (e *Emulator) controlCall(name, account, region string) (*call, error) {
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
	ec := &call{Emulator: e, part: e.partFor(account, region)}
	e.mu.Unlock()
	return ec, nil
}

func (e *call) setConditions(c Conditions) error {
	now, lag := e.begin()
	defer e.mu.Unlock()
	r := e.st.lookup(c.Name)
	if r == nil || r.cur() == nil {
		return fmt.Errorf("secret %q not found in account %s, Region %s", c.Name, e.account, e.region)
	}
	n := r.cur().clone()
	if c.RotationEnabled != nil {
		if *c.RotationEnabled && !n.rotationEnabled {
			n.rotationSince = now
		}
		n.rotationEnabled = *c.RotationEnabled
		n.rotationSet = true
	}
	if c.OwningService != nil {
		n.owningService = *c.OwningService
	}
	if c.ReplicaRegions != nil {
		if n.replica {
			return fmt.Errorf("secret %q is a replica; set conditions on its primary", c.Name)
		}
		if slices.Contains(c.ReplicaRegions, e.region) {
			return fmt.Errorf("replica_regions: a secret cannot be replicated to its own Region %s", e.region)
		}
		// Replicas made by conditions are InSync at once (no lag, no
		// failure faults); a name clash in the Region still fails.
		var keep []replicaState
		for _, rs := range n.replicas {
			if slices.Contains(c.ReplicaRegions, rs.region) {
				keep = append(keep, rs)
			} else {
				e.removeReplica(n.name, rs.region, now)
			}
		}
		n.replicas = keep
		for _, reg := range c.ReplicaRegions {
			if n.replicaIndex(reg) >= 0 {
				continue
			}
			rs := replicaState{region: reg}
			tp := e.partFor(e.account, reg)
			tp.st.sweep(now, lag)
			if tp.st.byName[n.name] != nil {
				rs.failed = fmt.Sprintf("Replication failed: Secret name %s already exists in region %s.", n.name, reg)
			} else {
				tp.st.create(replicaCopy(n, e.region, rs, now, now), now)
			}
			rs.syncAt = now
			n.replicas = append(n.replicas, rs)
		}
		n.primaryRegion = ""
		if len(n.replicas) > 0 {
			n.primaryRegion = e.region
		}
	}
	if c.PendingVersion != nil {
		if *c.PendingVersion {
			id := e.newVersionID()
			var str *string
			var bin []byte
			if cur := n.holder("AWSCURRENT"); cur != "" {
				v := n.version(cur)
				str, bin = v.str, v.bin
			} else {
				p := "pending"
				str = &p
			}
			n.versions = append(n.versions, newVersion(id, str, bin, now, e.storedKeyID(n)))
			n.removeLabel("AWSPENDING")
			n.addLabel(id, "AWSPENDING")
		} else {
			n.removeLabel("AWSPENDING")
		}
	}
	if c.ExtraCurrentStage != nil {
		var holders []string
		for _, v := range n.versions {
			if slices.Contains(n.stages[v.id], "AWSCURRENT") {
				holders = append(holders, v.id)
			}
		}
		if *c.ExtraCurrentStage {
			target := ""
			for i := len(n.versions) - 1; i >= 0; i-- {
				if id := n.versions[i].id; !slices.Contains(holders, id) {
					target = id
					break
				}
			}
			if target == "" {
				target = e.newVersionID()
				p := "extra-current"
				n.versions = append(n.versions, newVersion(target, &p, nil, now, e.storedKeyID(n)))
			}
			n.addLabel(target, "AWSCURRENT")
			if len(holders) == 0 { // needs two holders
				other := e.newVersionID()
				p := "extra-current"
				n.versions = append(n.versions, newVersion(other, &p, nil, now, e.storedKeyID(n)))
				n.addLabel(other, "AWSCURRENT")
			}
		} else if len(holders) > 1 {
			keep := holders[len(holders)-1]
			n.removeLabel("AWSCURRENT")
			n.addLabel(keep, "AWSCURRENT")
		}
	}
	if c.CurrentPayload != nil {
		id := e.newVersionID()
		v := &version{id: id, created: now, keys: []string{e.storedKeyID(n)}}
		if *c.CurrentPayload == "both" {
			str := "string-part"
			v.str, v.bin = &str, []byte("binary-part")
		}
		n.versions = append(n.versions, v)
		n.moveCurrent(id)
	}
	n.lastChanged = now
	e.commitPrimaryWith(r, n, now, lag, 0, false)
	return nil
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
