package emulatortest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// Control is the typed client of the emulator's control API under
// /_emulator/ (docs/emulator.md), used by unit tests, e2e tests, the chaos
// campaign and the benchmark harness alike. Bodies are the emulator's own
// types (emulator.Faults, emulator.Quotas, emulator.Conditions, ...), so a
// field added there reaches every caller. The zero HTTP uses
// http.DefaultClient. Safe for concurrent use.
type Control struct {
	// URL is the emulator's base URL, e.g. http://127.0.0.1:port.
	URL string
	// HTTP sends the requests (nil = http.DefaultClient).
	HTTP *http.Client
}

// ControlError is a control request the emulator refused: the HTTP status
// and the emulator's {"error"} text (or the raw body when it had none).
type ControlError struct {
	Method, Path string
	Status       int
	Message      string
}

func (e *ControlError) Error() string {
	return fmt.Sprintf("emulator %s %s: HTTP %d: %s", e.Method, e.Path, e.Status, e.Message)
}

// Health does GET /_emulator/health; nil means the emulator answers.
func (c Control) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/_emulator/health", nil, nil)
}

// State returns GET /_emulator/state: the live secrets, values included.
func (c Control) State(ctx context.Context) (emulator.StateDump, error) {
	var d emulator.StateDump
	err := c.do(ctx, http.MethodGet, "/_emulator/state", nil, &d)
	return d, err
}

// Stats returns GET /_emulator/stats: the counters since the last reset.
func (c Control) Stats(ctx context.Context) (emulator.Stats, error) {
	var s emulator.Stats
	err := c.do(ctx, http.MethodGet, "/_emulator/stats", nil, &s)
	return s, err
}

// Faults returns GET /_emulator/faults: the whole fault configuration.
func (c Control) Faults(ctx context.Context) (emulator.Faults, error) {
	var f emulator.Faults
	err := c.do(ctx, http.MethodGet, "/_emulator/faults", nil, &f)
	return f, err
}

// SetFaults does PUT /_emulator/faults: it replaces the whole fault
// configuration, re-seeds the generators and restarts the script counters
// and the quota buckets (full).
func (c Control) SetFaults(ctx context.Context, f emulator.Faults) error {
	return c.do(ctx, http.MethodPut, "/_emulator/faults", f, nil)
}

// Quotas returns GET /_emulator/quotas: the quota part of the faults.
func (c Control) Quotas(ctx context.Context) (emulator.Quotas, error) {
	var q emulator.Quotas
	err := c.do(ctx, http.MethodGet, "/_emulator/quotas", nil, &q)
	return q, err
}

// SetQuotas does PUT /_emulator/quotas: it changes the quotas alone, even
// while a client runs (the other faults, script counters and bucket tokens
// stay; see emulator.Quotas).
func (c Control) SetQuotas(ctx context.Context, q emulator.Quotas) error {
	return c.do(ctx, http.MethodPut, "/_emulator/quotas", q, nil)
}

// IAM returns GET /_emulator/iam: the identity configuration.
func (c Control) IAM(ctx context.Context) (emulator.IAM, error) {
	var v emulator.IAM
	err := c.do(ctx, http.MethodGet, "/_emulator/iam", nil, &v)
	return v, err
}

// SetIAM does PUT /_emulator/iam: it replaces the identity configuration
// (access key → account map, roles); secrets and issued sessions stay.
func (c Control) SetIAM(ctx context.Context, v emulator.IAM) error {
	return c.do(ctx, http.MethodPut, "/_emulator/iam", v, nil)
}

// Sessions returns GET /_emulator/sessions: the temporary credentials the
// emulator's STS issued (account, role, session name, expiration; never
// the secret key or token), in issue order.
func (c Control) Sessions(ctx context.Context) (emulator.Sessions, error) {
	var v emulator.Sessions
	err := c.do(ctx, http.MethodGet, "/_emulator/sessions", nil, &v)
	return v, err
}

// UserAgents returns GET /_emulator/user-agents: every distinct pair of
// operation and User-Agent header the API requests carried since the start
// or the last reset, in first-seen order.
func (c Control) UserAgents(ctx context.Context) (emulator.UserAgents, error) {
	var v emulator.UserAgents
	err := c.do(ctx, http.MethodGet, "/_emulator/user-agents", nil, &v)
	return v, err
}

// SetConditions does POST /_emulator/conditions for one secret.
func (c Control) SetConditions(ctx context.Context, cond emulator.Conditions) error {
	return c.do(ctx, http.MethodPost, "/_emulator/conditions", cond, nil)
}

// Rotate does POST /_emulator/rotation: one step of a rotation (see
// emulator.Rotation) and returns the pending version's id.
func (c Control) Rotate(ctx context.Context, rot emulator.Rotation) (string, error) {
	var v emulator.RotationStep
	err := c.do(ctx, http.MethodPost, "/_emulator/rotation", rot, &v)
	return v.VersionID, err
}

// Now returns GET /_emulator/clock: the emulator clock.
func (c Control) Now(ctx context.Context) (time.Time, error) {
	var k emulator.Clock
	err := c.do(ctx, http.MethodGet, "/_emulator/clock", nil, &k)
	return k.Now, err
}

// AdvanceClock does POST /_emulator/clock, moving the emulator clock
// forward by d (whole nanoseconds as fractional seconds; d ≥ 0) and returns
// the new time: recovery windows end, list lag elapses and buckets refill.
func (c Control) AdvanceClock(ctx context.Context, d time.Duration) (time.Time, error) {
	s := d.Seconds()
	var k emulator.Clock
	err := c.do(ctx, http.MethodPost, "/_emulator/clock", emulator.ClockAdvance{AdvanceSeconds: &s}, &k)
	return k.Now, err
}

// Reset does POST /_emulator/reset: state and stats are emptied; faults,
// clock and seed stay (generators and script counters restart).
func (c Control) Reset(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/_emulator/reset", nil, nil)
}

// KMSKeys returns GET /_emulator/kms: every KMS key the emulator knows,
// the AWS managed aws/secretsmanager key first.
func (c Control) KMSKeys(ctx context.Context) (emulator.KMSDump, error) {
	var d emulator.KMSDump
	err := c.do(ctx, http.MethodGet, "/_emulator/kms", nil, &d)
	return d, err
}

// AddKMSKey does POST /_emulator/kms/keys: it adds a customer managed key
// (or aliases to a known one) and returns it with its ARN.
func (c Control) AddKMSKey(ctx context.Context, k emulator.KMSKey) (emulator.KMSKey, error) {
	var out emulator.KMSKey
	err := c.do(ctx, http.MethodPost, "/_emulator/kms/keys", k, &out)
	return out, err
}

// SetKMSAlias does POST /_emulator/kms/aliases: it creates or moves an
// alias.
func (c Control) SetKMSAlias(ctx context.Context, a emulator.KMSAlias) error {
	return c.do(ctx, http.MethodPost, "/_emulator/kms/aliases", a, nil)
}

// Organizations returns GET /_emulator/organizations: every
// organization with its OUs, accounts, statuses and tags.
func (c Control) Organizations(ctx context.Context) (emulator.OrganizationsDump, error) {
	var v emulator.OrganizationsDump
	err := c.do(ctx, http.MethodGet, "/_emulator/organizations", nil, &v)
	return v, err
}

// SetAccountStatus does POST /_emulator/organizations/account-status: the
// account's status becomes s.Status at once (a suspended account is
// unreachable: STS refuses its roles).
func (c Control) SetAccountStatus(ctx context.Context, s emulator.AccountStatus) error {
	return c.do(ctx, http.MethodPost, "/_emulator/organizations/account-status", s, nil)
}

func (c Control) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("emulator %s %s: encode: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+path, body)
	if err != nil {
		return fmt.Errorf("emulator %s %s: %w", method, path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("emulator %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("emulator %s %s: read: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		ce := &ControlError{Method: method, Path: path, Status: resp.StatusCode, Message: strings.TrimSpace(string(b))}
		var e emulator.ControlError
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			ce.Message = e.Error
		}
		return ce
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("emulator %s %s: decode: %w", method, path, err)
		}
	}
	return nil
}

// Release serves every call a scripted hold keeps waiting (POST
// /_emulator/release).
func (c Control) Release(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/_emulator/release", nil, nil)
}

// Must returns c's requests in the form tests want: each fails t
// (t.Fatal) on any error, so callers check nothing.
func (c Control) Must(t testing.TB) Must { return Must{t: t, c: c} }

// Must is a Control whose requests fail the test on error (see
// Control.Must); the methods are Control's, without context and error.
type Must struct {
	t testing.TB
	c Control
}

func fatalIf(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("emulatortest: %v", err)
	}
}

// State is Control.State.
func (m Must) State() emulator.StateDump {
	m.t.Helper()
	d, err := m.c.State(context.Background())
	fatalIf(m.t, err)
	return d
}

// Stats is Control.Stats.
func (m Must) Stats() emulator.Stats {
	m.t.Helper()
	s, err := m.c.Stats(context.Background())
	fatalIf(m.t, err)
	return s
}

// Faults is Control.Faults.
func (m Must) Faults() emulator.Faults {
	m.t.Helper()
	f, err := m.c.Faults(context.Background())
	fatalIf(m.t, err)
	return f
}

// SetFaults is Control.SetFaults.
func (m Must) SetFaults(f emulator.Faults) {
	m.t.Helper()
	fatalIf(m.t, m.c.SetFaults(context.Background(), f))
}

// SetQuotas is Control.SetQuotas.
func (m Must) SetQuotas(q emulator.Quotas) {
	m.t.Helper()
	fatalIf(m.t, m.c.SetQuotas(context.Background(), q))
}

// IAM is Control.IAM.
func (m Must) IAM() emulator.IAM {
	m.t.Helper()
	v, err := m.c.IAM(context.Background())
	fatalIf(m.t, err)
	return v
}

// SetIAM is Control.SetIAM.
func (m Must) SetIAM(v emulator.IAM) {
	m.t.Helper()
	fatalIf(m.t, m.c.SetIAM(context.Background(), v))
}

// Sessions is Control.Sessions.
func (m Must) Sessions() emulator.Sessions {
	m.t.Helper()
	v, err := m.c.Sessions(context.Background())
	fatalIf(m.t, err)
	return v
}

// UserAgents is Control.UserAgents.
func (m Must) UserAgents() emulator.UserAgents {
	m.t.Helper()
	v, err := m.c.UserAgents(context.Background())
	fatalIf(m.t, err)
	return v
}

// SetConditions is Control.SetConditions.
func (m Must) SetConditions(c emulator.Conditions) {
	m.t.Helper()
	fatalIf(m.t, m.c.SetConditions(context.Background(), c))
}

// Rotate is Control.Rotate.
func (m Must) Rotate(rot emulator.Rotation) string {
	m.t.Helper()
	id, err := m.c.Rotate(context.Background(), rot)
	fatalIf(m.t, err)
	return id
}

// AdvanceClock is Control.AdvanceClock.
func (m Must) AdvanceClock(d time.Duration) time.Time {
	m.t.Helper()
	now, err := m.c.AdvanceClock(context.Background(), d)
	fatalIf(m.t, err)
	return now
}

// Reset is Control.Reset.
func (m Must) Reset() {
	m.t.Helper()
	fatalIf(m.t, m.c.Reset(context.Background()))
}

// Release is Control.Release.
func (m Must) Release() {
	m.t.Helper()
	fatalIf(m.t, m.c.Release(context.Background()))
}

// KMSKeys is Control.KMSKeys.
func (m Must) KMSKeys() emulator.KMSDump {
	m.t.Helper()
	d, err := m.c.KMSKeys(context.Background())
	fatalIf(m.t, err)
	return d
}

// AddKMSKey is Control.AddKMSKey.
func (m Must) AddKMSKey(k emulator.KMSKey) emulator.KMSKey {
	m.t.Helper()
	out, err := m.c.AddKMSKey(context.Background(), k)
	fatalIf(m.t, err)
	return out
}

// SetKMSAlias is Control.SetKMSAlias.
func (m Must) SetKMSAlias(a emulator.KMSAlias) {
	m.t.Helper()
	fatalIf(m.t, m.c.SetKMSAlias(context.Background(), a))
}

// Organizations is Control.Organizations.
func (m Must) Organizations() emulator.OrganizationsDump {
	m.t.Helper()
	v, err := m.c.Organizations(context.Background())
	fatalIf(m.t, err)
	return v
}

// SetAccountStatus is Control.SetAccountStatus.
func (m Must) SetAccountStatus(s emulator.AccountStatus) {
	m.t.Helper()
	fatalIf(m.t, m.c.SetAccountStatus(context.Background(), s))
}
