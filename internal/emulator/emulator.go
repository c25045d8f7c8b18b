package emulator

import (
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/kms"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/organizations"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/sts"
)

// Defaults for New.
const (
	DefaultRegion    = "us-east-1"
	DefaultAccountID = "123456789012"
)

// Emulator is an in-memory AWS Secrets Manager. It is an http.Handler that
// serves the awsJson1_1 API on POST / (any path outside /_emulator/) and the
// JSON control API under /_emulator/. Safe for concurrent use.
type Emulator struct {
	defRegion  string // Region of requests without a credential scope
	defAccount string // account of access keys not in iam.AccessKeys

	mu         sync.Mutex
	base       func() time.Time
	offset     time.Duration
	parts      map[partKey]*part // one per (account, Region) served so far
	partOrder  []*part           // in creation order, the default one first
	iam        IAM
	sessions   *sts.Issued // temporary credentials STS issued; survives Reset
	faults     Faults
	faultRNG   *rand.Rand
	idRNG      *rand.Rand
	idGen      uint64
	logger     *slog.Logger
	nth        map[string]int64
	stats      Stats
	userAgents userAgentLog  // GET /_emulator/user-agents; cleared with stats
	inFlight   int64         // API requests being served now
	release    chan struct{} // closed by Release: the scripted holds go on

	orgs        *organizations.Store // Organizations' organizations; emptied by Reset
	kms         *kms.Registry        // KMS keys and aliases; survives Reset
	pendingKeys []KMSKey             // from WithKMSKeys, added by New
}

// Option configures New.
type Option func(*Emulator)

// WithRegion sets the default Region (default us-east-1): the Region of
// requests that carry no SigV4 credential scope.
func WithRegion(region string) Option { return func(e *Emulator) { e.defRegion = region } }

// WithAccountID sets the default account id (default 123456789012): the
// account of every access key that IAM.AccessKeys does not map elsewhere.
func WithAccountID(id string) Option { return func(e *Emulator) { e.defAccount = id } }

// WithClock sets the time source (default time.Now). AdvanceClock adds to it.
func WithClock(now func() time.Time) Option { return func(e *Emulator) { e.base = now } }

// WithFaults sets the initial fault configuration. It panics on an invalid
// configuration (see ValidateFaults), since it is a programming error.
func WithFaults(f Faults) Option {
	return func(e *Emulator) {
		if err := ValidateFaults(f); err != nil {
			panic("emulator.WithFaults: " + err.Error())
		}
		e.faults = f
		e.faults.Script = append([]ScriptedFault(nil), f.Script...)
		e.faults.KMSKeyFaults = append([]KMSKeyFault(nil), f.KMSKeyFaults...)
		e.faults.QuotaScales = maps.Clone(f.QuotaScales)
		e.faults.ReplicaFailures = slices.Clone(f.ReplicaFailures)
		e.faults.STSHang = slices.Clone(f.STSHang)
		e.faults.STSRefuseAccounts = slices.Clone(f.STSRefuseAccounts)
		e.faults.STSSilentAccounts = slices.Clone(f.STSSilentAccounts)
	}
}

// WithLogger logs one line per API call (operation, HTTP status, error code,
// injected fault, duration; never names, ids or values). Nil disables it.
func WithLogger(l *slog.Logger) Option { return func(e *Emulator) { e.logger = l } }

// New returns an empty emulator.
func New(opts ...Option) *Emulator {
	e := &Emulator{defRegion: DefaultRegion, defAccount: DefaultAccountID, base: time.Now}
	for _, o := range opts {
		o(e)
	}
	e.resetParts()
	e.resetFaultState()
	e.resetStats()
	e.kms = kms.NewRegistry()
	e.sessions = sts.NewIssued()
	e.orgs = organizations.NewStore()
	for _, k := range e.pendingKeys {
		if _, err := e.kms.Add(e.defAccount, e.defRegion, k, e.newVersionID); err != nil {
			panic("emulator.WithKMSKeys: " + err.Error())
		}
	}
	e.pendingKeys = nil
	return e
}

// Region returns the default Region (see WithRegion).
func (e *Emulator) Region() string { return e.defRegion }

// AccountID returns the default account id (see WithAccountID).
func (e *Emulator) AccountID() string { return e.defAccount }

// Now returns the emulator clock: the time source plus every AdvanceClock.
func (e *Emulator) Now() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.now()
}

func (e *Emulator) now() time.Time { return e.base().Add(e.offset) }

// AdvanceClock moves the emulator clock forward by d (negative d is ignored):
// recovery windows end, list lag elapses and quota buckets refill as if d had
// passed.
func (e *Emulator) AdvanceClock(d time.Duration) {
	if d <= 0 {
		return
	}
	e.mu.Lock()
	e.offset += d
	e.mu.Unlock()
}

// SetClock replaces the time source (the accumulated advance is kept).
func (e *Emulator) SetClock(now func() time.Time) {
	e.mu.Lock()
	e.base = now
	e.mu.Unlock()
}

// Reset empties the state and the stats and restarts the fault generators
// and script counters from the current seed. Faults and the clock stay.
func (e *Emulator) Reset() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.resetParts()
	e.resetFaultState()
	e.resetStats()
	e.orgs = organizations.NewStore()
}

func (e *Emulator) resetStats() {
	e.userAgents = userAgentLog{}
	e.stats = Stats{Calls: map[string]int64{}, Retries: map[string]int64{}, Throttled: map[string]int64{}, Faults: map[string]int64{}}
	for _, p := range e.partOrder {
		p.calls = map[string]int64{}
	}
}

// Stats returns a copy of the counters.
func (e *Emulator) Stats() Stats {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := Stats{Calls: maps.Clone(e.stats.Calls), Retries: maps.Clone(e.stats.Retries),
		Throttled: maps.Clone(e.stats.Throttled), Faults: maps.Clone(e.stats.Faults)}
	for _, p := range e.partOrder {
		if len(p.calls) > 0 {
			if c.CallsByAccountRegion == nil {
				c.CallsByAccountRegion = map[string]map[string]int64{}
			}
			c.CallsByAccountRegion[p.account+"/"+p.region] = maps.Clone(p.calls)
		}
	}
	c.Connections = e.stats.Connections
	c.MaxInFlight = e.stats.MaxInFlight
	return c
}

// ConnState is an http.Server ConnState hook that counts accepted
// connections in Stats.Connections.
func (e *Emulator) ConnState(_ net.Conn, s http.ConnState) {
	if s != http.StateNew {
		return
	}
	e.mu.Lock()
	e.stats.Connections++
	e.mu.Unlock()
}

// ServeHTTP serves the control API under /_emulator/, and the Secrets
// Manager API and STS (Query protocol requests, package sts) everywhere
// else.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_emulator/") {
		e.serveControl(w, r)
		return
	}
	e.mu.Lock()
	e.inFlight++
	e.stats.MaxInFlight = max(e.stats.MaxInFlight, e.inFlight)
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		e.inFlight--
		e.mu.Unlock()
	}()
	e.serveAPI(w, r)
}

func (e *Emulator) serveAPI(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	op, status, code, fault := e.handleAPI(w, r)
	e.noteUserAgent(op, r.Header.Get("User-Agent"))
	if e.logger != nil {
		// Never values or ids: operation, outcome and fault only.
		e.logger.Info("call", "operation", op, "status", status, "error_code", code, "fault", fault,
			"duration_ms", float64(time.Since(began).Microseconds())/1000)
	}
}

// handleAPI answers one API request and reports what happened: the
// operation, the HTTP status (0 when the connection was closed without a
// response), the error code if any, and the injected fault kind if any.
func (e *Emulator) handleAPI(w http.ResponseWriter, r *http.Request) (op string, status int, code, fault string) {
	fail := func(err *core.Error) (string, int, string, string) {
		core.WriteError(w, err)
		return op, err.Status, err.Code, fault
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, core.MaxBody+1))
	if err != nil {
		return fail(core.Errf("SerializationException", "failed to read the request body"))
	}
	if len(body) > core.MaxBody {
		return fail(core.Errf("SerializationException", "the request body is larger than %d bytes", core.MaxBody))
	}
	if sts.Is(r) {
		return sts.Serve(host{e}, w, r, body)
	}
	op, h := lookupOperation(r.Header.Get("X-Amz-Target"))
	if r.Method != http.MethodPost || h == nil {
		e.countUnknown()
		msg := notServed(r.Method, r.Header.Get("X-Amz-Target"))
		op = "Unknown"
		return fail(core.Errf("UnknownOperationException", "%s", msg))
	}

	e.mu.Lock()
	p, aerr := e.route(r)
	e.mu.Unlock()
	if aerr != nil {
		e.countUnrouted(op)
		return fail(aerr)
	}
	plan := e.admit(p, op, core.SDKAttempt(r.Header))
	fault = plan.name()
	if plan.delay > 0 {
		t := time.NewTimer(plan.delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return op, 0, "", fault
		}
	}
	switch plan.kind {
	case faultHang:
		// Never answered, never applied: held until the client gives up.
		<-r.Context().Done()
		return op, 0, "", fault
	case faultHold:
		select {
		case <-plan.hold:
		case <-r.Context().Done():
			return op, 0, "", fault
		}
	case faultAmbiguousBefore:
		core.Abort(w)
		return op, 0, "", fault
	case faultError:
		return fail(plan.err)
	}
	out, aerr := h(e, p, body)
	if plan.kind == faultAmbiguousAfter {
		core.Abort(w)
		return op, 0, "", fault
	}
	if aerr != nil {
		return fail(aerr)
	}
	b, merr := json.Marshal(out)
	if merr != nil {
		return fail(core.Errf("InternalServiceError", core.MsgInternal))
	}
	core.WriteAPI(w, http.StatusOK, b)
	return op, http.StatusOK, "", fault
}

// lookupOperation splits an X-Amz-Target into the operation, qualified by
// its service's opPrefix, and its handler: "<target prefix><Operation>" of
// a service of jsonServices ("secretsmanager.", "AmazonSSM.",
// "AWSOrganizationsV20161128.": the services' model target prefixes). The
// handler is nil for anything else.
func lookupOperation(target string) (string, handler) {
	for _, s := range jsonServices {
		if op, ok := strings.CutPrefix(target, s.target); ok {
			return s.opPrefix + op, s.handler(s.opPrefix + op)
		}
	}
	return target, nil
}

// notServed is the message of UnknownOperationException for a request no
// handler serves. A POST whose X-Amz-Target names an operation of a served
// service (jsonServices: secretsmanager.X, AmazonSSM.X) was addressed
// right: the operation is not modelled, followed by the service's own
// advice for it if any (secretsmanager.Unmodelled: RotateSecret points to
// the rotation control calls). Anything else was not sent the way the
// services are called.
func notServed(method, target string) string {
	if method == http.MethodPost {
		for _, s := range jsonServices {
			op, ok := strings.CutPrefix(target, s.target)
			if !ok || op == "" {
				continue
			}
			msg := "the emulator does not model the operation " + target + " (the operations it serves: docs/emulator.md)"
			if s.unmodelled != nil {
				if advice := s.unmodelled(op); advice != "" {
					msg += "; " + advice
				}
			}
			return msg
		}
	}
	return "the emulator does not serve this request; send POST with X-Amz-Target: secretsmanager.<Operation> or AmazonSSM.<Operation>"
}

// handler answers one API request of an operation in partition p.
type handler func(e *Emulator, p *part, body []byte) (any, *core.Error)

func (e *Emulator) countUnknown() {
	e.mu.Lock()
	e.stats.Calls["Unknown"]++
	e.mu.Unlock()
}

// countUnrouted counts a call refused before it reached a partition (its
// credentials were refused).
func (e *Emulator) countUnrouted(op string) {
	e.mu.Lock()
	e.stats.Calls[op]++
	e.mu.Unlock()
}
