package harness

import (
	"fmt"
	"math"
	"time"
)

// AWS request quotas that bind a run of the tool (requests per second;
// reference §5 and issue 2). The emulator's token buckets hold one second's
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
// scope starts empty and N secrets are created.
type Scenario struct {
	Kind        Kind
	N           int
	M           int
	Concurrency int
}

// Model is what the bound depends on besides the scenario.
type Model struct {
	Latency time.Duration // per API call, added by the emulator
}

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
// 100/s quota, and the last one ends at least L after it is admitted:
//
//	max(P·L, ⌈(describes + B + P)/C⌉·L, (B − 100)/100 s + L)
//
// This is the least the calls themselves allow, whatever the order; a
// phase-by-phase algorithm (list, then describes, then reads) cannot do
// better than PhasedObserve.
func (m Model) Observe(describes, listed, values, c int) time.Duration {
	L := m.Latency
	pages := max(1, ceilDiv(listed, ListPageSize))
	b := ceilDiv(values, ValueBatch)
	quota := time.Duration(0)
	if b > 0 {
		quota = quotaWait(b, QuotaBatchGet) + L
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
		max(time.Duration(ceilDiv(b, c))*L, quotaWait(b, QuotaBatchGet))
}

// Writes is the lower bound of k mutations of one quota family, each
// preceded by its precondition re-observation (SPEC §6), so callsEach
// sequential calls per operation, C in flight, and no faster than rate/s:
// max(⌈k/C⌉ × callsEach × L, (k − rate)/rate s).
func (m Model) Writes(k, callsEach, c int, rate float64) time.Duration {
	return max(time.Duration(ceilDiv(k, c)*callsEach)*m.Latency, quotaWait(k, rate))
}

// LowerBound is the least wall time the latency and the quotas allow for s
// (process start-up and decryption excluded), and its formula in words.
func (m Model) LowerBound(s Scenario) (time.Duration, string) {
	n, c := s.N, s.Concurrency
	switch s.Kind {
	case NoopPlan, NoopSync:
		return m.Observe(n, n, n, c), "obs(N)"
	case Changed:
		o := m.Observe(n, n, n, c)
		return 2*o + m.Writes(s.M, 3, c, QuotaPut), "2·obs(N) + upd(M)"
	case Create:
		first := m.Observe(n, 0, 0, c)
		return first + m.Writes(n, 2, c, QuotaCreate) + m.Observe(n, n, n, c), "obs₀(N) + cre(N) + obs(N)"
	}
	panic(fmt.Sprintf("harness: unknown scenario kind %q", s.Kind))
}

// NoopCallLimit is issue 7's ceiling for a no-op sync:
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
