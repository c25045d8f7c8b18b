//go:build linux

package harness

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.GreaterOrEqual(t, WaitQuiet(max, 0), max, "returned early while this process was busy")
	stop.Store(true)
	<-done
	assert.Less(t, WaitQuiet(5*time.Second, 0), 5*time.Second, "an idle process never counted as quiet")
	_, ok := cpuTicks([]int{0})
	require.True(t, ok, "cannot read /proc/self/stat")
}
