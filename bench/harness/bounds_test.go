package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
