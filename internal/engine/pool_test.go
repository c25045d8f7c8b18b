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

// workers never makes a function wait for another: functions handed in
// while others block all start, also when handed in from inside one.
func TestWorkers_RunsEveryFunctionWithoutWaiting(t *testing.T) {
	w := newWorkers()
	const n = 16
	started := make(chan int, 2*n)
	release := make(chan struct{})
	for i := range n {
		w.run(func() {
			started <- i
			if i == 0 {
				w.run(func() { started <- n }) // nested, as a describe starts a value batch
			}
			<-release
		})
	}
	seen := map[int]bool{}
	for range n + 1 {
		seen[<-started] = true
	}
	if len(seen) != n+1 {
		t.Fatalf("started %d distinct functions, want %d", len(seen), n+1)
	}
	close(release)
	// Functions handed in after the first ones returned run too (on a kept
	// goroutine or a new one).
	done := make(chan struct{})
	w.run(func() { close(done) })
	<-done
	w.stop()
}
