//go:build linux

package harness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepClock is a quietClock whose Sleep moves its time at once.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time        { return c.now }
func (c *stepClock) Sleep(d time.Duration) { c.now = c.now.Add(d) }

// busyTicks is a tick source that grows by perWindow ticks per read for the
// first busyReads reads after the first, then stays still.
func busyTicks(perWindow int64, busyReads int) func() (int64, bool) {
	var ticks int64
	reads := 0
	return func() (int64, bool) {
		if reads > 0 && reads <= busyReads {
			ticks += perWindow
		}
		reads++
		return ticks, true
	}
}

// TestWaitQuiet_WaitsWhileBusyReturnsWhenIdle drives the waiting with a
// stepped clock and a scripted tick source, so the scheduler plays no part:
// a process busier than quietTicks per window holds it until max, one that
// goes idle releases it one window after, and one idle from the start after
// one window; an unreadable source returns at once.
func TestWaitQuiet_WaitsWhileBusyReturnsWhenIdle(t *testing.T) {
	const max = 800 * time.Millisecond
	clk := &stepClock{now: time.Unix(1_700_000_000, 0)}
	assert.Equal(t, 4*quietWindow, waitQuiet(max, busyTicks(quietTicks+1, 1000), clk),
		"returned before max while the process was busy")

	clk = &stepClock{now: time.Unix(1_700_000_000, 0)}
	assert.Equal(t, 3*quietWindow, waitQuiet(5*time.Second, busyTicks(25, 2), clk),
		"busy for two windows, quiet in the third")

	clk = &stepClock{now: time.Unix(1_700_000_000, 0)}
	assert.Equal(t, quietWindow, waitQuiet(5*time.Second, busyTicks(quietTicks, 1000), clk),
		"quietTicks per window counts as quiet")

	clk = &stepClock{now: time.Unix(1_700_000_000, 0)}
	assert.Equal(t, time.Duration(0), waitQuiet(5*time.Second, func() (int64, bool) { return 0, false }, clk),
		"an unreadable tick source waited")
}

// TestWaitQuiet_RealTicksCountThisProcess is the smoke check on the real
// /proc and clock, with nothing a loaded machine can break: this process's
// ticks grow while it spins (it spins until they do), and the real
// WaitQuiet waits at least one window (or max) and returns.
func TestWaitQuiet_RealTicksCountThisProcess(t *testing.T) {
	before, ok := cpuTicks([]int{0})
	require.True(t, ok, "cannot read /proc/self/stat")
	for {
		now, ok := cpuTicks([]int{0})
		require.True(t, ok)
		if now >= before+2 {
			break
		}
	}
	const max = 300 * time.Millisecond
	assert.GreaterOrEqual(t, WaitQuiet(max, 0), min(max, quietWindow))
}
