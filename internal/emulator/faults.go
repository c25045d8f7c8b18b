package emulator

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/kms"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/organizations"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/secretsmanager"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/sts"
)

type faultKind int

const (
	faultNone faultKind = iota
	faultError
	faultAmbiguousBefore
	faultAmbiguousAfter
	faultHang
	faultHold
)

const (
	kindAfter  = "ambiguous-after-apply"
	kindBefore = "ambiguous-before-apply"
	// kindHang holds the call unanswered and unapplied until the client
	// gives up (its context ends or it closes the connection), as a
	// request lost on a black-holed route would be: a test stalls a
	// client at an exact call (an addition to AWS's own faults).
	kindHang = "hang"
	// kindHold holds the call unanswered and unapplied until the control
	// API releases the held calls (POST /_emulator/release), then serves
	// it as usual; a client that gives up first ends it as a hang does.
	// A test holds one exact call and shows what else arrives meanwhile
	// (an addition to AWS's own faults).
	kindHold = "hold"
)

// callPlan is what admit decided for one request.
type callPlan struct {
	delay     time.Duration
	kind      faultKind
	err       *core.Error
	throttled bool // err is the quota's ThrottlingException
	// hold is closed when the control API releases the held calls
	// (faultHold), taken when the call was admitted.
	hold <-chan struct{}
}

// name is the plan's fault kind for logs ("" when none).
func (p callPlan) name() string {
	switch {
	case p.throttled:
		return "throttled"
	case p.kind == faultError:
		return "error:" + p.err.Code
	case p.kind == faultAmbiguousAfter:
		return kindAfter
	case p.kind == faultAmbiguousBefore:
		return kindBefore
	case p.kind == faultHang:
		return kindHang
	case p.kind == faultHold:
		return kindHold
	}
	if p.delay > 0 {
		return "latency"
	}
	return ""
}

// quotaFamilies are AWS's request quotas per operation, of every service
// served (each service's own table).
var quotaFamilies = map[string]core.Quota{}

func init() {
	for _, s := range jsonServices {
		maps.Copy(quotaFamilies, s.quotas)
	}
}

// bucket is a token bucket: it holds at most burst tokens, refills at rate
// per second of emulator time, and a request takes one token.
type bucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func (b *bucket) take(now time.Time) bool {
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// refill adds the tokens earned since the last refill, up to burst.
func (b *bucket) refill(now time.Time) {
	if d := now.Sub(b.last).Seconds(); d > 0 {
		b.tokens = math.Min(b.burst, b.tokens+d*b.rate)
		b.last = now
	}
}

// ValidateFaults reports the first invalid setting, in words fit for a 400.
func ValidateFaults(f Faults) error {
	switch {
	case f.LatencyMS < 0 || f.LatencyJitterMS < 0 || f.ListLagMS < 0 || f.ListScanLimit < 0 || f.ReplicationLagMS < 0:
		return fmt.Errorf("latency_ms, latency_jitter_ms, list_lag_ms, list_scan_limit and replication_lag_ms must be >= 0")
	case f.OrgCreateAccountLagMS < 0 || f.OrgCloseAccountLagMS < 0:
		return fmt.Errorf("org_create_account_lag_ms and org_close_account_lag_ms must be >= 0")
	case !(f.ErrorRate >= 0 && f.ErrorRate <= 1):
		return fmt.Errorf("error_rate must be between 0 and 1")
	case !(f.AmbiguousRate >= 0 && f.AmbiguousRate <= 1):
		return fmt.Errorf("ambiguous_rate must be between 0 and 1")
	}
	if err := validateQuotas(f.quotas()); err != nil {
		return err
	}
	switch f.AmbiguousKind {
	case "", "mixed", "after-apply", "before-apply":
	default:
		return fmt.Errorf("ambiguous_kind must be one of after-apply, before-apply, mixed")
	}
	if err := kms.ValidateFaults(f.KMSKeyFaults); err != nil {
		return err
	}
	if err := secretsmanager.ValidateReplicaFailures(f.ReplicaFailures); err != nil {
		return err
	}
	for i, a := range f.STSHang {
		if !sts.Serves(a) {
			return fmt.Errorf("sts_hang[%d] %q is not a served STS action (AssumeRole, AssumeRoleWithWebIdentity, GetCallerIdentity)", i, a)
		}
	}
	for name, list := range map[string][]string{"sts_refuse_accounts": f.STSRefuseAccounts, "sts_silent_accounts": f.STSSilentAccounts} {
		for i, a := range list {
			if !core.ValidAccount(a) {
				return fmt.Errorf("%s[%d] %q is not a 12-digit account id", name, i, a)
			}
		}
	}
	for i, a := range f.Denied {
		if _, ok := deniedOperation(a); !ok {
			return fmt.Errorf("denied[%d] %q is not the IAM action of a served operation (secretsmanager:<Operation>, ssm:<Operation> or organizations:<Operation>)", i, a)
		}
	}
	for i, s := range f.Script {
		if serviceOf(s.Operation) == nil && !sts.Serves(s.Operation) {
			return fmt.Errorf("script[%d].operation %q is not a served operation", i, s.Operation)
		}
		if s.Nth < 1 {
			return fmt.Errorf("script[%d].nth must be >= 1", i)
		}
		p, err := parseScriptFault(s.Fault)
		if err != nil {
			return fmt.Errorf("script[%d].fault: %v", i, err)
		}
		if sts.Serves(s.Operation) && (p.kind == faultAmbiguousAfter || p.kind == faultAmbiguousBefore) {
			return fmt.Errorf("script[%d].fault: an STS action takes hang, hold or error:<Code>[:<Message>]", i)
		}
	}
	return nil
}

// deniedOperation is the served operation (qualified as the router names
// it) of the IAM action a (Faults.Denied): secretsmanager:<Operation> of a
// Secrets Manager operation, ssm:<Operation> of a Parameter Store one,
// organizations:<Operation> of an Organizations one (a service's IAM
// prefix and one of its operations).
func deniedOperation(a string) (string, bool) {
	for _, s := range jsonServices {
		if op, ok := strings.CutPrefix(a, s.iamPrefix); ok && s.serves(s.opPrefix+op) {
			return s.opPrefix + op, true
		}
	}
	return "", false
}

// parseScriptFault turns a script fault string into a plan.
func parseScriptFault(s string) (callPlan, error) {
	switch s {
	case kindAfter:
		return callPlan{kind: faultAmbiguousAfter}, nil
	case kindBefore:
		return callPlan{kind: faultAmbiguousBefore}, nil
	case kindHang:
		return callPlan{kind: faultHang}, nil
	case kindHold:
		return callPlan{kind: faultHold}, nil
	}
	rest, ok := strings.CutPrefix(s, "error:")
	if !ok {
		return callPlan{}, fmt.Errorf("%q is not ambiguous-after-apply, ambiguous-before-apply, hang, hold or error:<Code>[:<Message>]", s)
	}
	code, msg, _ := strings.Cut(rest, ":")
	if code == "" || strings.ContainsAny(code, " \t#") {
		return callPlan{}, fmt.Errorf("%q has no valid error code", s)
	}
	if msg == "" {
		msg = defaultMessage(code)
	}
	return callPlan{kind: faultError, err: core.Errf(code, "%s", msg)}, nil
}

func defaultMessage(code string) string {
	switch code {
	case "ThrottlingException", "Throttling":
		return core.MsgRateExceeded
	case "TooManyRequestsException":
		return organizations.MsgTooManyRequests
	case "ServiceException":
		return core.MsgInternal
	case "ResourceNotFoundException":
		return secretsmanager.MsgNotFound
	case "InternalServiceError", "InternalServerError":
		return core.MsgInternal
	case "LimitExceededException":
		return "The request failed because it would exceed one of the Secrets Manager quotas."
	case "AccessDeniedException":
		return "User is not authorized to perform this operation."
	}
	return "injected fault " + code
}

// SetFaults replaces the fault configuration, re-seeds the generators and
// restarts the script counters and quota buckets.
func (e *Emulator) SetFaults(f Faults) error {
	if err := ValidateFaults(f); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.faults = f
	e.faults.Script = append([]ScriptedFault(nil), f.Script...)
	e.faults.KMSKeyFaults = append([]KMSKeyFault(nil), f.KMSKeyFaults...)
	e.faults.QuotaScales = maps.Clone(f.QuotaScales)
	e.faults.ReplicaFailures = slices.Clone(f.ReplicaFailures)
	e.faults.STSHang = slices.Clone(f.STSHang)
	e.faults.Denied = slices.Clone(f.Denied)
	e.faults.STSRefuseAccounts = slices.Clone(f.STSRefuseAccounts)
	e.faults.STSSilentAccounts = slices.Clone(f.STSSilentAccounts)
	e.resetFaultState()
	return nil
}

// Faults returns the current fault configuration.
func (e *Emulator) Faults() Faults {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := e.faults
	f.Script = append([]ScriptedFault(nil), f.Script...)
	f.KMSKeyFaults = append([]KMSKeyFault(nil), f.KMSKeyFaults...)
	f.QuotaScales = maps.Clone(f.QuotaScales)
	f.ReplicaFailures = slices.Clone(f.ReplicaFailures)
	f.Denied = slices.Clone(f.Denied)
	f.STSRefuseAccounts = slices.Clone(f.STSRefuseAccounts)
	f.STSSilentAccounts = slices.Clone(f.STSSilentAccounts)
	return f
}

func (e *Emulator) resetFaultState() {
	seed := uint64(e.faults.Seed)
	e.faultRNG = rand.New(rand.NewPCG(seed, 0x6661756c7473))
	// Each (re)seeding draws ids from a new stream, so setting the same seed
	// twice in one run never repeats an ARN suffix, while a run that makes the
	// same calls in the same order still gets the same ids.
	e.idGen++
	e.idRNG = rand.New(rand.NewPCG(seed, 0x6964656e74<<8+e.idGen))
	e.nth = map[string]int64{}
	e.release = make(chan struct{})
	for _, p := range e.partOrder {
		p.buckets = map[string]*bucket{}
	}
}

// admit counts the call and decides its faults: a scripted fault for this
// exact call wins; then the quota bucket; then the random error and
// ambiguous rolls. Latency applies to every call.
func (e *Emulator) admit(p *part, op string, attempt int) callPlan {
	e.mu.Lock()
	defer e.mu.Unlock()
	f := &e.faults
	e.stats.Calls[op]++
	p.calls[op]++
	if attempt > 1 {
		e.stats.Retries[op]++
	}
	e.nth[op]++
	var plan callPlan
	if f.LatencyMS > 0 || f.LatencyJitterMS > 0 {
		d := f.LatencyMS
		if f.LatencyJitterMS > 0 {
			d += e.faultRNG.Int64N(f.LatencyJitterMS + 1)
		}
		plan.delay = time.Duration(d) * time.Millisecond
		e.stats.Faults["latency"]++
	}
	for _, s := range f.Script {
		if s.Operation == op && s.Nth == e.nth[op] {
			p, _ := parseScriptFault(s.Fault) // validated when set
			plan.kind, plan.err = p.kind, p.err
			if p.kind == faultHold {
				plan.hold = e.release
			}
			e.countFault(plan)
			return plan
		}
	}
	for _, a := range f.Denied {
		if denied, _ := deniedOperation(a); denied == op {
			plan.kind, plan.err = faultError, core.Errf("AccessDeniedException",
				"User is not authorized to perform: %s because no identity-based policy allows the %s action", a, a)
			e.countFault(plan)
			return plan
		}
	}
	if f.Quotas {
		now := e.now()
		if b := e.bucketFor(p, op, now); b != nil && !b.take(now) {
			e.stats.Throttled[op]++
			code := serviceOf(op).throttleError
			plan.kind, plan.err, plan.throttled = faultError, core.Errf(code, "%s", defaultMessage(code)), true
			return plan
		}
	}
	if f.ErrorRate > 0 && e.faultRNG.Float64() < f.ErrorRate {
		plan.kind, plan.err = faultError, core.Errf(serviceOf(op).internalError, core.MsgInternal)
		e.countFault(plan)
		return plan
	}
	if f.AmbiguousRate > 0 && serviceOf(op).mutating(op) && e.faultRNG.Float64() < f.AmbiguousRate {
		switch f.AmbiguousKind {
		case "after-apply":
			plan.kind = faultAmbiguousAfter
		case "before-apply":
			plan.kind = faultAmbiguousBefore
		default:
			plan.kind = faultAmbiguousAfter
			if e.faultRNG.IntN(2) == 0 {
				plan.kind = faultAmbiguousBefore
			}
		}
		e.countFault(plan)
	}
	return plan
}

func (e *Emulator) countFault(p callPlan) {
	switch p.kind {
	case faultError:
		e.stats.Faults["error:"+p.err.Code]++
	case faultAmbiguousAfter:
		e.stats.Faults[kindAfter]++
	case faultAmbiguousBefore:
		e.stats.Faults[kindBefore]++
	case faultHold:
		e.stats.Faults[kindHold]++
	}
}

// Release serves every call a scripted hold keeps waiting (POST
// /_emulator/release): each goes on as if it had just arrived, and a hold
// reached later does not wait, until the faults are set again (so a test
// never races its release against the held call's arrival).
func (e *Emulator) Release() {
	e.mu.Lock()
	defer e.mu.Unlock()
	select {
	case <-e.release:
	default:
		close(e.release)
	}
}

// ids: ARN suffixes and generated version ids come from idRNG (seeded);
// request ids from a process-wide counter.

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

func (e *Emulator) arnSuffix() string {
	var b [6]byte
	for i := range b {
		b[i] = alnum[e.idRNG.IntN(len(alnum))]
	}
	return string(b[:])
}

// newVersionID returns a UUIDv4-shaped id from the seeded generator.
func (e *Emulator) newVersionID() string {
	hi, lo := e.idRNG.Uint64(), e.idRNG.Uint64()
	hi = hi&^0xf000 | 0x4000
	lo = lo&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}
