package emulator

import (
	"testing"
	"time"
)

// Unit tests of the pure pieces: jitter, token bucket (Secrets Manager's
// are in its package).

func TestLatencyJitterStaysInRangeAndFollowsSeed(t *testing.T) {
	delays := func(seed int64) []time.Duration {
		e := New(WithFaults(Faults{Seed: seed, LatencyMS: 10, LatencyJitterMS: 20}))
		var out []time.Duration
		for range 50 {
			out = append(out, e.admit(e.partOrder[0], "DescribeSecret", 1).delay)
		}
		return out
	}
	a, b := delays(3), delays(3)
	distinct := map[time.Duration]bool{}
	for i, d := range a {
		if d < 10*time.Millisecond || d > 30*time.Millisecond {
			t.Fatalf("delay %v outside [10ms,30ms]", d)
		}
		if d != b[i] {
			t.Fatalf("same seed, delay %d differs: %v vs %v", i, d, b[i])
		}
		distinct[d] = true
	}
	if len(distinct) < 5 {
		t.Fatalf("jitter produced only %d distinct delays", len(distinct))
	}
}

func TestBucketRefillsAtRateUpToBurst(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := &bucket{rate: 2, burst: 2, tokens: 2, last: t0}
	if !b.take(t0) || !b.take(t0) || b.take(t0) {
		t.Fatal("burst of 2 not enforced")
	}
	if !b.take(t0.Add(500*time.Millisecond)) || b.take(t0.Add(500*time.Millisecond)) {
		t.Fatal("0.5 s at 2/s should give exactly one token")
	}
	later := t0.Add(time.Hour)
	if !b.take(later) || !b.take(later) || b.take(later) {
		t.Fatal("tokens must not exceed the burst after a long pause")
	}
}
