//go:build linux

package harness

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestWaitQuiet_WaitsWhileBusyReturnsWhenIdle(t *testing.T) {
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { // one core busy
		defer close(done)
		for !stop.Load() {
		}
	}()
	const max = 800 * time.Millisecond
	if got := WaitQuiet(max, 0); got < max {
		t.Errorf("returned after %v while this process was busy, want >= %v", got, max)
	}
	stop.Store(true)
	<-done
	if got := WaitQuiet(5*time.Second, 0); got >= 5*time.Second {
		t.Errorf("an idle process never counted as quiet (%v)", got)
	}
	if _, ok := cpuTicks([]int{0}); !ok {
		t.Fatal("cannot read /proc/self/stat")
	}
}
