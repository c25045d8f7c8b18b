package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Call is one AWS API request the proxy saw (SDK retries are separate
// calls). Only identifiers are kept, never values.
type Call struct {
	Run int
	Op  string
	// Target is SecretId or Name from the request (a name or an ARN).
	Target string
	// Token is ClientRequestToken (Create, Put, UpdateSecret).
	Token string
	// Force is ForceDeleteWithoutRecovery; Window is RecoveryWindowInDays
	// (0 = absent).
	Force  bool
	Window int
	// Lost is true when the CLI got no response: the emulator dropped the
	// connection (an ambiguous fault), or the proxy killed the CLI.
	Lost bool
	// Status is the HTTP status the emulator answered (0 if lost).
	Status int
	// HasValue: the request carried SecretString or SecretBinary (an
	// UpdateSecret without one changes metadata only).
	HasValue bool
	// TagKeys are the keys of the request's Tags (CreateSecret, TagResource).
	TagKeys []string
	// Region is the Region the request is signed for (SigV4 credential
	// scope of its Authorization header; "" when unsigned).
	Region string
	// AddRegions are the Regions of AddReplicaRegions (CreateSecret,
	// ReplicateSecretToRegions); RemoveRegions RemoveReplicaRegions;
	// ForceOverwrite is ForceOverwriteReplicaSecret.
	AddRegions, RemoveRegions []string
	ForceOverwrite            bool
	// Service is "ssm" for a Parameter Store request (X-Amz-Target
	// AmazonSSM.*), "" for Secrets Manager. Names are the parameter names
	// of GetParameters and DeleteParameters; Overwrite is PutParameter's
	// Overwrite; Type its Type.
	Service   string
	Names     []string
	Overwrite bool
	Type      string
	// Tier is PutParameter's Tier ("" when absent).
	Tier string
}

// Mutating reports whether op changes state.
func Mutating(op string) bool {
	switch op {
	case "CreateSecret", "PutSecretValue", "UpdateSecret", "DeleteSecret", "RestoreSecret",
		"TagResource", "UntagResource", "UpdateSecretVersionStage", "RotateSecret", "CancelRotateSecret",
		"RemoveRegionsFromReplication", "ReplicateSecretToRegions", "StopReplicationToReplica",
		"PutResourcePolicy", "DeleteResourcePolicy":
		return true
	}
	return MutatingSSM(op)
}

// MutatingSSM reports whether the Parameter Store operation op changes
// state (SSM API reference: writes, deletions, tags, labels).
func MutatingSSM(op string) bool {
	switch op {
	case "PutParameter", "DeleteParameter", "DeleteParameters", "AddTagsToResource", "RemoveTagsFromResource",
		"LabelParameterVersion", "UnlabelParameterVersion":
		return true
	}
	return false
}

// Proxy is a recording reverse proxy between the CLI and the emulator. It
// forwards every request unchanged; when the emulator drops a connection
// (an ambiguous fault) it drops the CLI's connection too, so the CLI sees
// exactly what it would see without the proxy. It records every call and
// can SIGKILL the CLI at an exact call (Arm).
type Proxy struct {
	upstream string
	client   *http.Client

	mu      sync.Mutex
	run     int
	calls   []Call
	kill    *KillPlan
	killFn  func()
	killed  bool
	nMut    int
	nCalls  int
	atCall  int    // OnCall: the call number that runs atFn
	atFn    func() // OnCall's function; nil once run
	opTrig  *opTrigger
	server  *http.Server
	flight  int        // requests being served; guarded by mu
	settled *sync.Cond // signalled when flight drops to 0
	URL     string
	closeCh chan struct{}
}

// NewProxy listens on 127.0.0.1:0 and forwards to upstream (http://host:port).
func NewProxy(upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{
		upstream: strings.TrimSuffix(upstream, "/"),
		client: &http.Client{Transport: &http.Transport{
			MaxIdleConnsPerHost: 64,
			IdleConnTimeout:     30 * time.Second,
		}},
		URL:     "http://" + ln.Addr().String(),
		closeCh: make(chan struct{}),
	}
	p.settled = sync.NewCond(&p.mu)
	p.server = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.server.Serve(ln); close(p.closeCh) }()
	return p, nil
}

// Close stops the proxy.
func (p *Proxy) Close() {
	_ = p.server.Close()
	<-p.closeCh
}

// Arm starts recording run number run; kill (may be nil) says when to call
// killFn, which must SIGKILL the CLI.
func (p *Proxy) Arm(run int, kill *KillPlan, killFn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.run, p.kill, p.killFn, p.killed, p.nMut, p.nCalls = run, kill, killFn, false, 0, 0
	p.atCall, p.atFn = 0, nil
	p.opTrig = nil
}

// opTrigger is OnOp's pending function.
type opTrigger struct {
	op, after string
	seenAfter bool
	fn        func()
}

// OnOp runs fn once, just before the first call of the armed run whose
// operation is op ("" = any operation) and that comes after a call of
// operation after ("" = from the start) was sent; the call waits for fn.
// Arm clears it; Fired tells whether it ran.
func (p *Proxy) OnOp(op, after string, fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.opTrig = &opTrigger{op: op, after: after, fn: fn}
}

// Fired reports whether the function OnOp set has run (false when none
// was set).
func (p *Proxy) Fired() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opTrig != nil && p.opTrig.fn == nil
}

// OnCall runs fn once, just before the n-th call of the armed run (n ≥ 1,
// counted as Arm counts them) is forwarded to the emulator; the call waits
// for fn. Arm clears it.
func (p *Proxy) OnCall(n int, fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.atCall, p.atFn = n, fn
}

// Killed reports whether the armed kill plan fired (by call count; delay
// kills are the runner's).
func (p *Proxy) Killed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// Calls returns a copy of every recorded call.
func (p *Proxy) Calls() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.calls...)
}

// Drain waits until every request the proxy accepted has been answered or
// dropped, including upstream calls of a killed CLI that were still in
// flight: the next run then starts from a settled state.
func (p *Proxy) Drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.flight > 0 {
		p.settled.Wait()
	}
}

// Reset forgets the recorded calls.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = nil
}

type reqFields struct {
	SecretID                   string           `json:"SecretId"`
	Name                       string           `json:"Name"`
	ClientRequestToken         string           `json:"ClientRequestToken"`
	ForceDeleteWithoutRecovery *bool            `json:"ForceDeleteWithoutRecovery"`
	RecoveryWindowInDays       *int             `json:"RecoveryWindowInDays"`
	SecretString               *string          `json:"SecretString"`
	SecretBinary               *json.RawMessage `json:"SecretBinary"`
	Tags                       []struct {
		Key string `json:"Key"`
	} `json:"Tags"`
	AddReplicaRegions []struct {
		Region string `json:"Region"`
	} `json:"AddReplicaRegions"`
	RemoveReplicaRegions        []string `json:"RemoveReplicaRegions"`
	ForceOverwriteReplicaSecret bool     `json:"ForceOverwriteReplicaSecret"`
	// Parameter Store's fields.
	ResourceID string   `json:"ResourceId"`
	Names      []string `json:"Names"`
	Overwrite  *bool    `json:"Overwrite"`
	Type       string   `json:"Type"`
	TagKeys    []string `json:"TagKeys"`
	Tier       string   `json:"Tier"`
}

// signedRegion is the Region of a SigV4 Authorization header's credential
// scope (Credential=AKID/DATE/REGION/SERVICE/aws4_request), "" for none.
func signedRegion(auth string) string {
	_, cred, ok := strings.Cut(auth, "Credential=")
	if !ok {
		return ""
	}
	cred, _, _ = strings.Cut(cred, ",")
	parts := strings.Split(cred, "/")
	if len(parts) < 5 {
		return ""
	}
	return parts[2]
}

// RunAppID is the SDK application id (AWS_SDK_UA_APP_ID) the runner gives
// the CLI process of run n; the SDK sends it in every request's User-Agent
// as "app/<id>", so the proxy attributes each request to the process that
// sent it rather than to whichever run is armed when the server reads it.
func RunAppID(n int) string { return "chaos-run-" + strconv.Itoa(n) }

// runOfUserAgent returns n when ua carries app/RunAppID(n).
func runOfUserAgent(ua string) (int, bool) {
	for _, f := range strings.Fields(ua) {
		if id, ok := strings.CutPrefix(f, "app/chaos-run-"); ok {
			if n, err := strconv.Atoi(id); err == nil && n > 0 {
				return n, true
			}
		}
	}
	return 0, false
}

const (
	killNone = iota
	killBefore
	killAfter
)

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.flight++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.flight--
		if p.flight == 0 {
			p.settled.Broadcast()
		}
		p.mu.Unlock()
	}()
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		drop(w)
		return
	}
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "secretsmanager.")
	var f reqFields
	_ = json.Unmarshal(body, &f)
	c := Call{Op: op, Target: f.SecretID, Token: f.ClientRequestToken, HasValue: f.SecretString != nil || f.SecretBinary != nil}
	if ssmOp, ok := strings.CutPrefix(op, "AmazonSSM."); ok {
		c = Call{Op: ssmOp, Service: "ssm", Target: f.Name, Names: f.Names, Type: f.Type, Tier: f.Tier}
		if c.Target == "" {
			c.Target = f.ResourceID
		}
		if f.Overwrite != nil {
			c.Overwrite = *f.Overwrite
		}
		c.TagKeys = append(c.TagKeys, f.TagKeys...) // RemoveTagsFromResource
		op = ssmOp
	}
	for _, t := range f.Tags {
		c.TagKeys = append(c.TagKeys, t.Key)
	}
	c.Region = signedRegion(r.Header.Get("Authorization"))
	for _, a := range f.AddReplicaRegions {
		c.AddRegions = append(c.AddRegions, a.Region)
	}
	c.RemoveRegions, c.ForceOverwrite = f.RemoveReplicaRegions, f.ForceOverwriteReplicaSecret
	if c.Target == "" {
		c.Target = f.Name
	}
	if f.ForceDeleteWithoutRecovery != nil {
		c.Force = *f.ForceDeleteWithoutRecovery
	}
	if f.RecoveryWindowInDays != nil {
		c.Window = *f.RecoveryWindowInDays
	}

	p.mu.Lock()
	c.Run = p.run
	ours := true
	if n, ok := runOfUserAgent(r.Header.Get("User-Agent")); ok {
		// The process that sent it says which run it is: a request of a
		// killed CLI that the server reads only after the runner re-armed
		// belongs to the killed run, not to the next one.
		c.Run, ours = n, n == p.run
	}
	mut := Mutating(op)
	if k := p.kill; k != nil && k.Service != "" {
		mut = mut && c.Service == k.Service // a kill plan aimed at one service counts its writes alone
	}
	if ours {
		p.nCalls++
		if mut {
			p.nMut++
		}
	}
	when := killNone
	if k := p.kill; k != nil && !p.killed {
		switch {
		case k.Mode == "call" && p.nCalls == k.Nth,
			k.Mode == "mutation-before" && mut && p.nMut == k.Nth:
			when = killBefore
		case k.Mode == "mutation-after" && mut && p.nMut == k.Nth:
			when = killAfter
		}
		if when != killNone {
			p.killed = true
		}
	}
	killFn := p.killFn
	var atFn func()
	if p.atFn != nil && p.nCalls == p.atCall {
		atFn, p.atFn = p.atFn, nil
	}
	if t := p.opTrig; ours && t != nil && t.fn != nil && atFn == nil {
		if (t.after == "" || t.seenAfter) && (t.op == "" || t.op == op) {
			atFn, t.fn = t.fn, nil
		} else if t.after != "" && op == t.after {
			t.seenAfter = true
		}
	}
	idx := len(p.calls)
	p.calls = append(p.calls, c)
	p.mu.Unlock()
	if atFn != nil {
		atFn()
	}

	if when == killBefore {
		killFn()
		p.markLost(idx, 0)
		drop(w)
		return
	}
	// The upstream call outlives the CLI: AWS finishes a request whose
	// client went away.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		p.markLost(idx, 0)
		drop(w)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := p.client.Do(req)
	if err != nil {
		p.markLost(idx, 0)
		drop(w)
		return
	}
	rb, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		p.markLost(idx, 0)
		drop(w)
		return
	}
	if when == killAfter {
		killFn()
		p.markLost(idx, resp.StatusCode)
		drop(w)
		return
	}
	p.mu.Lock()
	p.calls[idx].Status = resp.StatusCode
	p.mu.Unlock()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(rb)
}

func (p *Proxy) markLost(idx, status int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[idx].Lost = true
	p.calls[idx].Status = status
}

// drop closes the client connection without a response.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
