package pace

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Family is a Secrets Manager quota family: calls of one family share one
// adaptive limit.
type Family int

const (
	// Writes: CreateSecret, PutSecretValue, DeleteSecret, RestoreSecret
	// (50/s each at AWS; the engine runs one kind per phase).
	Writes Family = iota
	// Reads: DescribeSecret and GetSecretValue (10,000/s together).
	Reads
	// Batches: BatchGetSecretValue (100/s).
	Batches
	// Lists: ListSecrets (100/s).
	Lists
	families
)

var familyNames = [families]string{"writes", "reads", "batches", "lists"}

func (f Family) String() string { return familyNames[f] }

// documented are AWS's documented quotas per family (calls/s,
// shared/reference/aws-secrets-manager.md), used as the starting point of a
// cut when an unpaced family is throttled before any call succeeded.
var documented = [families]float64{50, 10_000, 100, 100}

// Clock is the controller's view of time.
type Clock interface {
	Now() time.Time
	// After is time.After: a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now implements Clock.
func (SystemClock) Now() time.Time { return time.Now() }

// After implements Clock.
func (SystemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Limits are the ceilings of the families in calls per second: a limit
// never rises above its ceiling. 0 or a negative value means no ceiling:
// the family is unpaced until AWS first throttles it.
type Limits struct {
	Writes, Reads, Batches, Lists float64
}

// Default ceilings: 48 writes/s and 80 value batches/s keep a margin under
// AWS's 50/s and 100/s for the account's other clients (docs/benchmarks.md);
// describes, single reads and list pages are unpaced until throttled.
const (
	DefaultWrites  = 48
	DefaultBatches = 80
)

// DefaultLimits returns the default ceilings.
func DefaultLimits() Limits { return Limits{Writes: DefaultWrites, Batches: DefaultBatches} }

// Parameter Store's ceilings (SPEC §16), for a parameter-store scope's own
// controller: PutParameter's default throughput is 3 calls/s, and
// GetParameter, GetParameters and GetParametersByPath share 40/s (AWS
// Systems Manager quotas page, "Parameter Store"; the higher-throughput
// setting is a paid account setting and is not assumed).
// DescribeParameters and the tag calls have no documented rate: 10/s is
// assumed [unverified] and the law cuts it on the first throttle.
// The families map as Writes = PutParameter, DeleteParameter and the tag
// writes (the engine's write turns), Reads = DescribeParameters of one
// name and ListTagsForResource, Batches = GetParameters, Lists =
// DescribeParameters pages.
const (
	ParameterStoreWrites  = 3
	ParameterStoreBatches = 40
	ParameterStoreReads   = 10
	ParameterStoreLists   = 10
)

// ParameterStoreLimits returns Parameter Store's ceilings.
func ParameterStoreLimits() Limits {
	return Limits{Writes: ParameterStoreWrites, Reads: ParameterStoreReads, Batches: ParameterStoreBatches, Lists: ParameterStoreLists}
}

// Organizations' ceilings, for `scopes generate`'s own controller: AWS
// publishes no request rate for the List calls (the Organizations quotas
// page: requests are throttled "to protect the service"), so 10 list
// pages and 10 tag reads a second are assumed [unverified] and the law
// cuts them on the first TooManyRequestsException.
const (
	OrganizationsLists = 10
	OrganizationsReads = 10
)

// OrganizationsLimits returns Organizations' ceilings.
func OrganizationsLimits() Limits {
	return Limits{Lists: OrganizationsLists, Reads: OrganizationsReads}
}

// STS's ceiling, for a run's own controller of its STS calls (AssumeRole
// of each role, GetCallerIdentity; both Reads): AWS STS's request quota
// is 600 requests per second per account per Region, shared by every
// caller in the account (IAM User Guide, "IAM and AWS STS quotas", AWS STS
// request quotas), and every AssumeRole of a run is made by the base
// identity's account, so the run keeps to 100 a second, a sixth of it,
// leaving the rest to the account's other callers (other CI jobs, their
// OIDC federation); the law cuts it on STS's first Throttling.
const STSReads = 100

// STSLimits returns STS's ceilings.
func STSLimits() Limits { return Limits{Reads: STSReads} }

// ceilings are each AWS service's ceilings, keyed by its service namespace
// (model.Target.Service: the target table's reference to its row here).
var ceilings = map[string]func() Limits{
	"secretsmanager": DefaultLimits,
	"ssm":            ParameterStoreLimits,
	"organizations":  OrganizationsLimits,
	"sts":            STSLimits,
}

// LimitsOf returns the ceilings of the AWS service namespace service
// ("secretsmanager", "ssm"), the default ceilings for one it does not know.
func LimitsOf(service string) Limits {
	if f, ok := ceilings[service]; ok {
		return f()
	}
	return DefaultLimits()
}

// Control-law constants (see the package doc).
const (
	// Backoff multiplies the limit at a cut.
	Backoff = 0.75
	// Recovery is the additive increase, in calls/s, per successful call
	// that had waited for its turn.
	Recovery = 0.1
	// MinLimit is the floor of a cut limit (one call per 5 s): however
	// long the account's quota stays exhausted, a probe still goes out.
	MinLimit = 0.2
	// window is the span over which the accepted rate is measured.
	window = time.Second
)

// Turn is one permission to send a call, from Wait. Report its outcome
// with Throttled or Succeeded (or neither, for any other failure).
type Turn struct {
	f      Family
	epoch  uint64
	waited bool
}

// Stats are totals since the controller was made.
type Stats struct {
	// Throttled counts calls AWS answered with a throttling error.
	Throttled int64
	// Waited is the time callers spent waiting for their turn, summed over
	// callers (so it may exceed the wall time).
	Waited time.Duration
}

// Sub returns s − o (the delta over a phase).
func (s Stats) Sub(o Stats) Stats {
	return Stats{Throttled: s.Throttled - o.Throttled, Waited: s.Waited - o.Waited}
}

// Controller holds one adaptive limit per family. The zero value is not
// usable; call New.
type Controller struct {
	clock Clock
	fam   [families]*family
}

type family struct {
	mu      sync.Mutex
	f       Family
	ceiling float64 // +Inf: none
	limit   float64 // current; +Inf until the first cut of an unpaced family
	lim     *rate.Limiter
	epoch   uint64
	// cut is closed (and replaced) at each cut, waking the waiters.
	cut chan struct{}
	// Accepted-rate estimate: successes in the current window, and the
	// rate of the last full window (0 = none yet).
	winStart time.Time
	winN     int
	accepted float64

	throttled int64
	waited    time.Duration
	waiters   int // callers inside Wait's select (for tests)
}

// New returns a controller over clock with the given ceilings; each family
// starts at its ceiling.
func New(clock Clock, l Limits) *Controller {
	if clock == nil {
		clock = SystemClock{}
	}
	c := &Controller{clock: clock}
	for i, ceil := range [families]float64{l.Writes, l.Reads, l.Batches, l.Lists} {
		f := &family{f: Family(i), lim: rate.NewLimiter(rate.Inf, 1), cut: make(chan struct{})}
		f.setCeiling(clock.Now(), ceil)
		c.fam[i] = f
	}
	return c
}

// SetCeiling replaces f's ceiling (≤ 0: none) and resets its limit to it.
func (c *Controller) SetCeiling(f Family, perSecond float64) {
	fm := c.fam[f]
	fm.mu.Lock()
	defer fm.mu.Unlock()
	fm.setCeiling(c.clock.Now(), perSecond)
}

func (fm *family) setCeiling(now time.Time, perSecond float64) {
	if perSecond <= 0 {
		perSecond = math.Inf(1)
	}
	fm.ceiling = perSecond
	fm.setLimit(now, perSecond)
}

// setLimit applies a new limit; the burst is one call for writes (a write
// quota is never exceeded by a burst) and an eighth of a second's worth
// for the other families.
func (fm *family) setLimit(now time.Time, l float64) {
	fm.limit = l
	if math.IsInf(l, 1) {
		fm.lim.SetLimitAt(now, rate.Inf)
		return
	}
	burst := 1
	if fm.f != Writes {
		burst = max(1, int(l/8))
	}
	fm.lim.SetLimitAt(now, rate.Limit(l))
	fm.lim.SetBurstAt(now, burst)
}

// Limit returns f's current limit in calls/s (+Inf when unpaced).
func (c *Controller) Limit(f Family) float64 {
	fm := c.fam[f]
	fm.mu.Lock()
	defer fm.mu.Unlock()
	return fm.limit
}

// Wait blocks until f admits one more call and returns its turn, or ctx's
// error if ctx ends first (the turn is then given back). A cut of the limit
// wakes every waiter, which queues again at the new limit, so no call goes
// out at the rate AWS just refused. A deadline that the wait would outlast
// is not an error by itself (unlike rate.Limiter.Wait): the caller's run
// timeout decides.
func (c *Controller) Wait(ctx context.Context, f Family) (Turn, error) {
	if err := ctx.Err(); err != nil {
		return Turn{}, err
	}
	fm := c.fam[f]
	waited := false
	for {
		now := c.clock.Now()
		fm.mu.Lock()
		res := fm.lim.ReserveN(now, 1)
		epoch, cut := fm.epoch, fm.cut
		fm.mu.Unlock()
		d := res.DelayFrom(now)
		if d <= 0 {
			return Turn{f: f, epoch: epoch, waited: waited}, nil
		}
		waited = true
		fm.mu.Lock()
		fm.waiters++
		fm.mu.Unlock()
		select {
		case <-c.clock.After(d):
			fm.mu.Lock()
			fm.waiters--
			fm.waited += d
			fm.mu.Unlock()
			return Turn{f: f, epoch: epoch, waited: true}, nil
		case <-cut:
			// The limiter was replaced: queue again on the new one.
			fm.mu.Lock()
			fm.waiters--
			fm.waited += c.clock.Now().Sub(now)
			fm.mu.Unlock()
		case <-ctx.Done():
			fm.mu.Lock()
			fm.waiters--
			res.CancelAt(c.clock.Now())
			fm.waited += c.clock.Now().Sub(now)
			fm.mu.Unlock()
			return Turn{}, ctx.Err()
		}
	}
}

// Throttled reports that t's call was throttled: the family's limit is cut
// unless it already was since t was granted.
func (c *Controller) Throttled(t Turn) {
	fm := c.fam[t.f]
	now := c.clock.Now()
	fm.mu.Lock()
	defer fm.mu.Unlock()
	fm.throttled++
	if t.epoch != fm.epoch {
		return
	}
	base := fm.limit
	if est := fm.estimate(now); est > 0 {
		base = min(base, est)
	}
	if math.IsInf(base, 1) {
		base = documented[t.f]
	}
	fm.epoch++
	// A new limiter drops the turns queued at the refused rate; their
	// waiters queue again. It starts empty: the next turn is one interval
	// of the new limit away.
	fm.lim = rate.NewLimiter(0, 1)
	fm.setLimit(now, max(MinLimit, Backoff*base))
	fm.lim.ReserveN(now, fm.lim.Burst())
	close(fm.cut)
	fm.cut = make(chan struct{})
}

// Succeeded reports that t's call was answered (any answer but a throttle
// counts: the request was admitted by the quota).
func (c *Controller) Succeeded(t Turn) {
	fm := c.fam[t.f]
	now := c.clock.Now()
	fm.mu.Lock()
	defer fm.mu.Unlock()
	if fm.winStart.IsZero() {
		fm.winStart = now // the window opens at the first answer
	} else {
		fm.winN++
	}
	if el := now.Sub(fm.winStart); el >= window {
		fm.accepted = float64(fm.winN) / el.Seconds()
		fm.winStart, fm.winN = now, 0
	}
	if t.waited && fm.limit < fm.ceiling {
		fm.setLimit(now, min(fm.ceiling, fm.limit+Recovery))
	}
}

// estimate is the accepted rate: the current window's, counted over at
// least a quarter of a window (so the burst a quota admits at first does not
// read as a high rate), else the last full window's (0 = unknown).
func (fm *family) estimate(now time.Time) float64 {
	if fm.winN > 0 {
		return float64(fm.winN) / max(now.Sub(fm.winStart), window/4).Seconds()
	}
	return fm.accepted
}

// Stats returns the totals over every family.
func (c *Controller) Stats() Stats {
	var s Stats
	for _, fm := range c.fam {
		fm.mu.Lock()
		s.Throttled += fm.throttled
		s.Waited += fm.waited
		fm.mu.Unlock()
	}
	return s
}

// waiting returns how many callers are waiting for a turn of f.
func (c *Controller) waiting(f Family) int {
	fm := c.fam[f]
	fm.mu.Lock()
	defer fm.mu.Unlock()
	return fm.waiters
}
