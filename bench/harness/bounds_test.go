package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func TestLowerBound_KnownFigures(t *testing.T) {
	m := Model{Latency: 20 * time.Millisecond}
	cases := []struct {
		s    Scenario
		want float64 // seconds
	}{
		// 100 list pages, 10,000 describes and 500 batches through one slot.
		{Scenario{Kind: NoopSync, N: 10000, Concurrency: 1}, 212},
		// ⌈10600/8⌉ = 1325 rounds of 20 ms.
		{Scenario{Kind: NoopSync, N: 10000, Concurrency: 8}, 26.5},
		// The batch quota binds: (500 − 100)/100 s + L.
		{Scenario{Kind: NoopSync, N: 10000, Concurrency: 64}, 4.02},
		{Scenario{Kind: NoopPlan, N: 1000, Concurrency: 8}, 133 * 0.02},
		// obs₀ = ⌈2001/8⌉·L, cre = max(⌈2000/8⌉·2L, 1950/50 s), obs = ⌈2120/8⌉·L.
		{Scenario{Kind: Create, N: 2000, Concurrency: 8}, 251*0.02 + 39 + 265*0.02},
		// 2·obs + max(⌈1000/8⌉·3L, 950/50 s).
		{Scenario{Kind: Changed, N: 10000, M: 1000, Concurrency: 8}, 2*26.5 + 19},
		{Scenario{Kind: Changed, N: 1000, M: 100, Concurrency: 1}, 2*(1060*0.02) + 100*0.06},
	}
	for _, c := range cases {
		got, formula := m.LowerBound(c.s)
		assert.InDelta(t, c.want, got.Seconds(), 0.001, "%+v", c.s)
		assert.NotEmpty(t, formula)
	}
}

// Reduced quotas (issue 15) scale the bound's rates as the emulator scales
// its buckets.
func TestLowerBound_ReducedQuotas(t *testing.T) {
	m := Model{Latency: 20 * time.Millisecond}
	fifth := emulator.Quotas{Quotas: true, QuotaScale: 0.2}
	// obs₀ = ⌈2001/8⌉·L; cre = (2000 − 10)/10 s at 10 creates/s; obs(2000)
	// = ⌈2120/8⌉·L (the batches' (100 − 20)/20 s + L = 4.02 s is below it).
	got, _ := m.LowerBound(Scenario{Kind: Create, N: 2000, Concurrency: 8, Quotas: fifth})
	assert.InDelta(t, 251*0.02+199+265*0.02, got.Seconds(), 0.001)
	assert.InDelta(t, 199, Model{Quotas: fifth}.CreateQuotaWait(2000).Seconds(), 0.001)
	assert.InDelta(t, 39, Model{}.CreateQuotaWait(2000).Seconds(), 0.001)

	// DescribeSecret at 10 %: 1,000 describes/s, so 10,000 take ≥ 9 s + L,
	// which binds at C = 32 (the full-quota bound is 6.64 s) but not at C = 8.
	tenth := emulator.Quotas{Quotas: true, QuotaScales: map[string]float64{"DescribeSecret": 0.1}}
	got, _ = m.LowerBound(Scenario{Kind: NoopSync, N: 10000, Concurrency: 32, Quotas: tenth})
	assert.InDelta(t, 9.02, got.Seconds(), 0.001)
	got, _ = m.LowerBound(Scenario{Kind: NoopSync, N: 10000, Concurrency: 8, Quotas: tenth})
	assert.InDelta(t, 26.5, got.Seconds(), 0.001)
	// The family is found by either of its operations.
	got, _ = m.LowerBound(Scenario{Kind: NoopSync, N: 10000, Concurrency: 32, Quotas: emulator.Quotas{Quotas: true, QuotaScales: map[string]float64{"GetSecretValue": 0.1}}})
	assert.InDelta(t, 9.02, got.Seconds(), 0.001)

	assert.Equal(t, "first sync (create), at 20 % of the quotas", Scenario{Kind: Create, Quotas: fifth}.Label())
	assert.Equal(t, "no-op sync, DescribeSecret quota at 10 %", Scenario{Kind: NoopSync, Quotas: tenth}.Label())
	assert.Equal(t, "no-op sync", Scenario{Kind: NoopSync}.Label())
}

func TestPhasedObserve_IsNeverBelowObserve(t *testing.T) {
	m := Model{Latency: 20 * time.Millisecond}
	// The figures of the phase-by-phase order (docs/benchmarks.md).
	assert.InDelta(t, 212, m.PhasedObserve(10000, 10000, 10000, 1).Seconds(), 0.001)
	assert.InDelta(t, 31, m.PhasedObserve(10000, 10000, 10000, 8).Seconds(), 0.001)
	for _, n := range []int{1, 20, 200, 1000, 10000} {
		for _, c := range []int{1, 2, 8, 32, 64} {
			assert.LessOrEqual(t, m.Observe(n, n, n, c), m.PhasedObserve(n, n, n, c), "N=%d C=%d", n, c)
		}
	}
}

func TestQuotaWait_BucketStartsFull(t *testing.T) {
	assert.Equal(t, time.Duration(0), quotaWait(100, 100))
	assert.Equal(t, secs(1), quotaWait(200, 100))
	assert.Equal(t, secs(39), quotaWait(2000, 50))
}

func TestExpectedCalls_NoopIsWithinIssueCeiling(t *testing.T) {
	for _, n := range []int{1, 200, 1000, 10000} {
		c := ExpectedCalls(Scenario{Kind: NoopSync, N: n})
		assert.LessOrEqual(t, c.Total(), NoopCallLimit(n), "N = %d", n)
		assert.Zero(t, c.Mutations())
	}
	assert.Equal(t, Calls{"ListSecrets": 2, "DescribeSecret": 200, "BatchGetSecretValue": 10}, ExpectedCalls(Scenario{Kind: NoopSync, N: 200}))
	assert.Equal(t, Calls{"ListSecrets": 4, "DescribeSecret": 420, "BatchGetSecretValue": 20, "GetSecretValue": 20, "PutSecretValue": 20},
		ExpectedCalls(Scenario{Kind: Changed, N: 200, M: 20}))
	assert.Equal(t, Calls{"ListSecrets": 3, "DescribeSecret": 600, "BatchGetSecretValue": 10, "CreateSecret": 200},
		ExpectedCalls(Scenario{Kind: Create, N: 200}))
	assert.Equal(t, int64(10605), NoopCallLimit(10000))
}
