package engine

import (
	"sync/atomic"
	"testing"
)

func TestEach_BoundsInFlightAndStopsAfterFailure(t *testing.T) {
	for _, limit := range []int{1, 3, 8} {
		var inFlight, peak, calls atomic.Int64
		release := make(chan struct{})
		go func() {
			for range 20 {
				release <- struct{}{}
			}
			close(release)
		}()
		each(20, limit, func(i int) bool {
			calls.Add(1)
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-release
			inFlight.Add(-1)
			return true
		})
		if peak.Load() > int64(limit) || calls.Load() != 20 {
			t.Fatalf("limit %d: peak %d calls %d", limit, peak.Load(), calls.Load())
		}
	}
	var calls atomic.Int64
	each(50, 1, func(i int) bool { calls.Add(1); return i != 4 })
	if calls.Load() != 5 {
		t.Fatalf("sequential: %d calls, want 5 (none after the failure)", calls.Load())
	}
}
