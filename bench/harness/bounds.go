package harness

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// AWS request quotas that bind a run of the tool (requests per second;
// reference §5). The emulator's token buckets hold one second's
// worth of tokens, so the first Rate requests of a family pass at once.
const (
	QuotaBatchGet = 100 // BatchGetSecretValue
	QuotaList     = 100 // ListSecrets
	QuotaDescribe = 10000
	QuotaCreate   = 50 // CreateSecret
	QuotaPut      = 50 // PutSecretValue + UpdateSecret
	ListPageSize  = 100
	ValueBatch    = 20
)

// Kind is a benchmark scenario.
type Kind string

const (
	NoopPlan Kind = "no-op plan"
	NoopSync Kind = "no-op sync"
	Changed  Kind = "sync, 10% changed"
	Create   Kind = "first sync (create)"
)

// Scenario is one measured run: Kind at N desired documents with
// Concurrency parallel calls. For Changed, M secrets differ; for Create the
// scope starts empty and N secrets are created. Quotas, when on, are the
// reduced quotas of the run (a quota shared with other clients),
// set on the emulator as they are and used by the bound; off means AWS's
// own quotas, the other rows' condition.
type Scenario struct {
	Kind        Kind
	N           int
	M           int
	Concurrency int
	Quotas      emulator.Quotas
	// Regions is how many scopes of one run (SPEC §10) do the scenario at
	// once, each in its own Region (its own quota bucket), each over the
	// same N documents; 0 or 1 is the usual single-scope run.
	Regions int
	// Accounts is the shape of a many-accounts run (Kind.ManyAccounts,
	// OrgGenerate; accounts.go); N is then every scope's documents summed.
	Accounts AccountsScenario
}

// PerRun is how many scopes the run holds (Regions, at least 1).
func (s Scenario) PerRun() int { return max(1, s.Regions) }

// Reduced reports whether the run is under reduced quotas.
func (s Scenario) Reduced() bool { return s.Quotas.Quotas }

// Label names the scenario in tables: the kind, and the reduced quotas
// ("first sync (create), at 20 % of the quotas", "no-op sync,
// DescribeSecret quota at 10 %").
func (s Scenario) Label() string {
	if s.PerRun() > 1 {
		return fmt.Sprintf("%s, %d Regions in one run", s.Kind, s.PerRun())
	}
	if !s.Reduced() {
		return string(s.Kind)
	}
	q := s.Quotas
	var parts []string
	if q.QuotaScale != 0 && q.QuotaScale != 1 {
		parts = append(parts, fmt.Sprintf("at %s of the quotas", percent(q.QuotaScale)))
	}
	ops := make([]string, 0, len(q.QuotaScales))
	for op := range q.QuotaScales {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	for _, op := range ops {
		parts = append(parts, fmt.Sprintf("%s quota at %s", op, percent(q.QuotaScales[op])))
	}
	if len(parts) == 0 {
		return string(s.Kind)
	}
	return string(s.Kind) + ", " + strings.Join(parts, ", ")
}

func percent(f float64) string { return fmt.Sprintf("%g %%", math.Round(f*1000)/10) }

// Model is what the bound depends on besides the scenario.
type Model struct {
	Latency time.Duration // per API call, added by the emulator
	// STSLatency is the latency of one STS call (the many-accounts rows
	// put it in front of the emulator's STS, which adds none).
	STSLatency time.Duration
	// Quotas scales the quotas the bound assumes, as the emulator scales
	// its buckets (zero value: AWS's quotas). LowerBound takes it from the
	// scenario.
	Quotas emulator.Quotas
}

// rate is base (an AWS quota, requests per second) under m.Quotas: the
// scale of the family named by any of ops (the operations sharing the
// quota), else QuotaScale (0 means 1).
func (m Model) rate(base float64, ops ...string) float64 {
	for _, op := range ops {
		if s, ok := m.Quotas.QuotaScales[op]; ok {
			return base * s
		}
	}
	if s := m.Quotas.QuotaScale; s > 0 {
		return base * s
	}
	return base
}

// The quota families the bounds use (operations sharing one quota).
var (
	familyDescribe = []string{"DescribeSecret", "GetSecretValue"}
	familyPut      = []string{"PutSecretValue", "UpdateSecret", "UpdateSecretVersionStage"}
)

// CreateRate is the CreateSecret quota under m.Quotas (requests per second).
func (m Model) CreateRate() float64 { return m.rate(QuotaCreate, "CreateSecret") }

// CreateQuotaWait is the least time N creates take under the CreateSecret
// quota alone, (N − r)/r s with r = CreateRate(): the bound the
// reduced-quota target is stated in (199 s for 2,000 at 20 %).
func (m Model) CreateQuotaWait(n int) time.Duration { return quotaWait(n, m.CreateRate()) }

func ceilDiv(a, b int) int {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// quotaWait is the least time k requests of one family take under rate/s
// with a bucket that starts holding rate tokens: (k − rate)/rate, ≥ 0.
func quotaWait(k int, rate float64) time.Duration {
	s := math.Max(0, float64(k)-rate) / rate
	return time.Duration(s * float64(time.Second))
}

// Observe is the lower bound of one observation of the scope (SPEC §4)
// with C calls in flight: `describes` DescribeSecret calls,
// B = ⌈values/20⌉ BatchGetSecretValue calls and the P = max(1,
// ⌈listed/100⌉) ListSecrets pages share the C slots (--concurrency bounds
// every call, SPEC §2.1); the pages run one after another (the engine
// overlaps discovery with the describes of known names and starts a batch
// as soon as 20 described names need a value); the batches cannot beat the
// 100/s quota, nor the describes the 10,000/s one, and the last of either
// ends at least L after it is admitted:
//
//	max(P·L, ⌈(describes + B + P)/C⌉·L, (B − 100)/100 s + L, (describes − 10,000)/10,000 s + L)
//
// (each quota scaled by m.Quotas).
// This is the least the calls themselves allow, whatever the order; a
// phase-by-phase algorithm (list, then describes, then reads) cannot do
// better than PhasedObserve.
func (m Model) Observe(describes, listed, values, c int) time.Duration {
	L := m.Latency
	pages := max(1, ceilDiv(listed, ListPageSize))
	b := ceilDiv(values, ValueBatch)
	quota := time.Duration(0)
	if b > 0 {
		quota = quotaWait(b, m.rate(QuotaBatchGet, "BatchGetSecretValue")) + L
	}
	if describes > 0 {
		quota = max(quota, quotaWait(describes, m.rate(QuotaDescribe, familyDescribe...))+L)
	}
	return max(time.Duration(pages)*L, time.Duration(ceilDiv(describes+b+pages, c))*L, quota)
}

// PhasedObserve is the bound of an observation done phase by phase: list
// pages, then ⌈describes/C⌉ rounds of describes, then the batches:
// P·L + ⌈describes/C⌉·L + max(⌈B/C⌉·L, (B − 100)/100 s).
func (m Model) PhasedObserve(describes, listed, values, c int) time.Duration {
	L := m.Latency
	pages := max(1, ceilDiv(listed, ListPageSize))
	b := ceilDiv(values, ValueBatch)
	return time.Duration(pages)*L +
		time.Duration(ceilDiv(describes, c))*L +
		max(time.Duration(ceilDiv(b, c))*L, quotaWait(b, m.rate(QuotaBatchGet, "BatchGetSecretValue")))
}

// Writes is the lower bound of k mutations of one quota family, each
// preceded by its precondition re-observation (SPEC §6), so callsEach
// sequential calls per operation, C in flight, and no faster than rate/s:
// max(⌈k/C⌉ × callsEach × L, (k − rate)/rate s).
func (m Model) Writes(k, callsEach, c int, rate float64) time.Duration {
	return max(time.Duration(ceilDiv(k, c)*callsEach)*m.Latency, quotaWait(k, rate))
}

// LowerBound is the least wall time the latency and the quotas allow for s
// (process start-up and decryption excluded), and its formula in words. A
// run of several Regions has the bound of one: each Region is its own
// quota bucket, and the buckets apply in parallel (SPEC §10).
func (m Model) LowerBound(s Scenario) (time.Duration, string) {
	if s.PerRun() > 1 {
		one := s
		one.Regions = 0
		b, f := m.LowerBound(one)
		return b, f + " (one Region's; the Regions in parallel)"
	}
	m.Quotas = s.Quotas
	if s.Kind.ParameterStore() {
		return m.psBound(s)
	}
	if s.Kind.ManyAccounts() {
		return m.accountsBound(s)
	}
	if s.Kind == OrgGenerate {
		return m.orgBound(s)
	}
	n, c := s.N, s.Concurrency
	switch s.Kind {
	case NoopPlan, NoopSync:
		return m.Observe(n, n, n, c), "obs(N)"
	case Changed:
		o := m.Observe(n, n, n, c)
		return 2*o + m.Writes(s.M, 3, c, m.rate(QuotaPut, familyPut...)), "2·obs(N) + upd(M)"
	case Create:
		first := m.Observe(n, 0, 0, c)
		return first + m.Writes(n, 2, c, m.CreateRate()) + m.Observe(n, n, n, c), "obs₀(N) + cre(N) + obs(N)"
	}
	panic(fmt.Sprintf("harness: unknown scenario kind %q", s.Kind))
}

// NoopCallLimit is the call ceiling of the no-op sync target:
// N/100 + N/20 + N + 5 calls (list pages + batched reads + one describe per
// secret + slack), no verification pass.
func NoopCallLimit(n int) int64 { return int64(n/100 + n/20 + n + 5) }

// ExpectedCalls are the exact calls, by operation, that the tool's
// documented algorithm makes for s when nothing is throttled or fails:
// observation = max(1, ⌈N/100⌉) ListSecrets + one DescribeSecret per name +
// ⌈N/20⌉ BatchGetSecretValue for owned active names (SPEC §4); each
// mutation is preceded by a DescribeSecret (and, for an update, a
// GetSecretValue of the current version) (SPEC §6); a sync that wrote
// re-observes the whole scope once when it converges at once (SPEC §6).
func ExpectedCalls(s Scenario) Calls {
	if k := s.PerRun(); k > 1 {
		one := s
		one.Regions = 0
		out := Calls{}
		for op, n := range ExpectedCalls(one) {
			out[op] = n * int64(k)
		}
		// The account of the base credentials, for the quota buckets.
		out["GetCallerIdentity"] = 1
		return out
	}
	if s.Kind.ParameterStore() {
		return psExpected(s)
	}
	if s.Kind.ManyAccounts() {
		return accountsExpected(s)
	}
	if s.Kind == OrgGenerate {
		return OrgGenerateMinimum(OrgShape{Accounts: s.N, OUs: s.Accounts.OUs})
	}
	obs := func(names, listed, values int) Calls {
		c := Calls{"ListSecrets": int64(max(1, ceilDiv(listed, ListPageSize))), "DescribeSecret": int64(names)}
		if b := ceilDiv(values, ValueBatch); b > 0 {
			c["BatchGetSecretValue"] = int64(b)
		}
		return c
	}
	add := func(cs ...Calls) Calls {
		out := Calls{}
		for _, c := range cs {
			for k, v := range c {
				out[k] += v
			}
		}
		return out
	}
	n := s.N
	switch s.Kind {
	case NoopPlan, NoopSync:
		return obs(n, n, n)
	case Changed:
		m := int64(s.M)
		return add(obs(n, n, n), Calls{"DescribeSecret": m, "GetSecretValue": m, "PutSecretValue": m}, obs(n, n, n))
	case Create:
		return add(obs(n, 0, 0), Calls{"DescribeSecret": int64(n), "CreateSecret": int64(n)}, obs(n, n, n))
	}
	panic(fmt.Sprintf("harness: unknown scenario kind %q", s.Kind))
}
