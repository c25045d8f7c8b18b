package secretsmanager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Rotation rehearsed step by step (POST /_emulator/rotation). A rotation
// Lambda runs four steps (createSecret, setSecret, testSecret,
// finishSecret; the Secrets Manager user guide, "Rotation by Lambda
// function"); each is one control call here, so a test can run a sync
// between any two of them. RotateSecret itself and Lambdas are not served.

// Rotation steps, in the order a rotation runs them.
const (
	RotationCreate = "create" // a new version labelled AWSPENDING: AWSCURRENT's value with Values set
	RotationSet    = "set"    // the Lambda sets the pending value in the database: no change in Secrets Manager
	RotationTest   = "test"   // the Lambda tests the pending value: no change in Secrets Manager
	RotationFinish = "finish" // AWSCURRENT moves to the pending version (AWSPREVIOUS to the old one); AWSPENDING stays on it unless RemovePending
)

// Unmodelled is the advice for an operation of Secrets Manager the
// emulator does not serve ("" when it has none): RotateSecret and
// CancelRotateSecret point to the rotation control calls, since a rotation
// is rehearsed step by step rather than run by a Lambda.
func Unmodelled(op string) string {
	if op == "RotateSecret" || op == "CancelRotateSecret" {
		return "rehearse a rotation with the control API instead: POST /_emulator/conditions with rotation_enabled, " +
			"then POST /_emulator/rotation, one call per step (create, set, test, finish)"
	}
	return ""
}

// rotationDays is the schedule every rotation the emulator configures has:
// RotationRules.AutomaticallyAfterDays.
const rotationDays = 30

// Rotation is the body of POST /_emulator/rotation: one step of a rotation
// of the secret Name (name or ARN; Account and Region as for Conditions).
// The secret must have rotation enabled (conditions rotation_enabled).
type Rotation struct {
	Name    string `json:"name"`
	Account string `json:"account,omitempty"`
	Region  string `json:"region,omitempty"`
	// Step is "create", "set", "test" or "finish".
	Step string `json:"step"`
	// Values, for step "create" only: RFC 6901 pointer into AWSCURRENT's
	// JSON value → the new string value of that key (its parent object must
	// exist); the pointer "" replaces the whole SecretString. At least one.
	Values map[string]string `json:"values,omitempty"`
	// Remove, for step "create" only: pointers of keys the new value drops
	// (a rotation function that removes a key).
	Remove []string `json:"remove,omitempty"`
	// RemovePending, for step "finish" only: remove AWSPENDING from the
	// version that becomes AWSCURRENT. Without it the label stays there,
	// as AWS may leave it after a successful rotation (API reference,
	// RotateSecret: "When rotation is successful, the AWSPENDING staging
	// label might be attached to the same version as the AWSCURRENT
	// version, or it might not be attached to any version"; AWS's sample
	// rotation functions move only AWSCURRENT).
	RemovePending bool `json:"remove_pending,omitempty"`
}

// RotationStep is the answer of POST /_emulator/rotation: the pending
// version the rotation works on.
type RotationStep struct {
	VersionID string `json:"version_id"`
}

// CheckRotation reports what is wrong with rot before its secret is
// looked up: no name, an unknown step, values or remove with a step other
// than create, create without either, remove_pending on a step other than
// finish.
func CheckRotation(rot Rotation) error {
	if rot.Name == "" {
		return errors.New("name is required (a secret name or ARN)")
	}
	switch rot.Step {
	case RotationCreate:
		if len(rot.Values) == 0 && len(rot.Remove) == 0 {
			return errors.New("step create needs values (pointer → new value) or remove")
		}
	case RotationSet, RotationTest, RotationFinish:
		if len(rot.Values) > 0 || len(rot.Remove) > 0 {
			return fmt.Errorf("values and remove belong to step create, not %s", rot.Step)
		}
	default:
		return fmt.Errorf("step must be create, set, test or finish, not %q", rot.Step)
	}
	if rot.RemovePending && rot.Step != RotationFinish {
		return fmt.Errorf("remove_pending belongs to step finish, not %s", rot.Step)
	}
	return nil
}

// Rotate runs one step of a rotation (see Rotation) that CheckRotation
// accepted, on the call's (account, Region). Errors: unknown secret,
// rotation not enabled, a step out of order (set, test or finish without a
// rotation in flight, create while one is), an invalid pointer, a current
// value that is not a JSON object where a key is named.
func (e *Call) Rotate(rot Rotation) (RotationStep, error) {
	now, lag := e.begin()
	defer e.Unlock()
	r := e.Secrets.lookup(rot.Name)
	if r == nil || r.cur() == nil {
		return RotationStep{}, fmt.Errorf("secret %q not found in account %s, Region %s", rot.Name, e.Account, e.Region)
	}
	s := r.cur()
	if !s.rotationEnabled {
		return RotationStep{}, fmt.Errorf("secret %q does not have rotation enabled (conditions rotation_enabled)", rot.Name)
	}
	if s.replica {
		return RotationStep{}, fmt.Errorf("secret %q is a replica; rotate its primary", rot.Name)
	}
	cur := s.holder("AWSCURRENT")
	pending := s.holder("AWSPENDING")
	inFlight := pending != "" && pending != cur
	if rot.Step != RotationCreate {
		if !inFlight {
			return RotationStep{}, fmt.Errorf("no rotation in flight for %q (step create first)", rot.Name)
		}
		if rot.Step != RotationFinish {
			return RotationStep{VersionID: pending}, nil
		}
		n := s.clone()
		n.moveCurrent(pending)
		if rot.RemovePending {
			n.removeLabel("AWSPENDING")
		}
		n.lastRotated = now
		n.lastChanged = now
		e.commitPrimaryWith(r, n, now, lag, 0, false)
		return RotationStep{VersionID: pending}, nil
	}
	if inFlight {
		return RotationStep{}, fmt.Errorf("a rotation of %q is already in flight (version %s holds AWSPENDING)", rot.Name, pending)
	}
	if cur == "" || s.version(cur).str == nil {
		return RotationStep{}, fmt.Errorf("secret %q has no current SecretString to rotate", rot.Name)
	}
	next, err := rotatedValue(*s.version(cur).str, rot.Values, rot.Remove)
	if err != nil {
		return RotationStep{}, err
	}
	n := s.clone()
	id := e.NewID()
	n.versions = append(n.versions, newVersion(id, &next, nil, now, e.storedKeyID(n)))
	n.removeLabel("AWSPENDING")
	n.addLabel(id, "AWSPENDING")
	n.lastChanged = now
	trimVersions(n, now)
	e.commitPrimaryWith(r, n, now, lag, 0, false)
	return RotationStep{VersionID: id}, nil
}

// rotatedValue is current with every pointer of values set to its string
// and every pointer of remove dropped; the pointer "" replaces the whole
// text.
func rotatedValue(current string, values map[string]string, remove []string) (string, error) {
	if whole, ok := values[""]; ok {
		if len(values) > 1 || len(remove) > 0 {
			return "", errors.New(`the pointer "" replaces the whole value and cannot be combined with others`)
		}
		return whole, nil
	}
	dec := json.NewDecoder(strings.NewReader(current))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", errors.New("the current value is not JSON; only the pointer \"\" can rotate it")
	}
	ptrs := make([]string, 0, len(values))
	for p := range values {
		ptrs = append(ptrs, p)
	}
	slices.Sort(ptrs)
	for _, p := range ptrs {
		if err := pointerSet(doc, p, values[p], false); err != nil {
			return "", err
		}
	}
	for _, p := range remove {
		if err := pointerSet(doc, p, "", true); err != nil {
			return "", err
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// pointerSet sets (or with del removes) the member the RFC 6901 pointer p
// names in doc; every parent must exist and be an object or array.
func pointerSet(doc any, p, v string, del bool) error {
	if p == "" || p[0] != '/' {
		return fmt.Errorf("pointer %q must be \"\" or start with /", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	node := doc
	for i, t := range toks {
		last := i == len(toks)-1
		switch n := node.(type) {
		case map[string]any:
			if last {
				if del {
					delete(n, t)
				} else {
					n[t] = v
				}
				return nil
			}
			node = n[t]
		case []any:
			k, err := strconv.Atoi(t)
			if err != nil || k < 0 || k >= len(n) {
				return fmt.Errorf("pointer %q: no element %q", p, t)
			}
			if last {
				if del {
					return fmt.Errorf("pointer %q: remove names an array element", p)
				}
				n[k] = v
				return nil
			}
			node = n[k]
		default:
			return fmt.Errorf("pointer %q: its parent is not an object or array", p)
		}
	}
	return nil
}

// nextRotation is NextRotationDate of a secret with rotation on: the end
// (23:59:59 UTC) of the day AutomaticallyAfterDays after the last rotation,
// or after rotation was turned on when it never ran (DescribeSecret: "The
// next rotation is scheduled to occur on or before this date").
func nextRotation(s *secret) time.Time {
	base := s.lastRotated
	if base.IsZero() {
		base = s.rotationSince
	}
	if base.IsZero() {
		base = s.created
	}
	d := base.UTC().Truncate(24*time.Hour).AddDate(0, 0, rotationDays)
	return d.Add(24*time.Hour - time.Second)
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
