//go:build linux

package harness

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// quietWindow and quietTicks define "quiet": the watched processes used at
// most quietTicks clock ticks of CPU (user+system, all threads; 10 ms each
// at the usual 100 Hz) in one quietWindow.
const (
	quietWindow = 250 * time.Millisecond
	quietTicks  = 1
)

// WaitQuiet waits until the processes pids (0 = this process) have been
// quiet for one window, or until max has passed, and returns how long it
// waited. A measured run should not share the CPUs with the emulator's or
// the harness's own garbage collection after seeding thousands of secrets
// (observed: the first run after seeding 10,000 secrets spent 4.1–4.8 s
// decrypting instead of 2.4–2.6 s).
func WaitQuiet(max time.Duration, pids ...int) time.Duration {
	return waitQuiet(max, func() (int64, bool) { return cpuTicks(pids) }, realClock{})
}

// quietClock is the time WaitQuiet waits on: the real clock in use, a
// stepped one in tests.
type quietClock interface {
	Now() time.Time
	Sleep(time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// waitQuiet is WaitQuiet over a tick source (the summed CPU ticks of the
// watched processes; ok false when they cannot be read) and a clock.
func waitQuiet(max time.Duration, ticks func() (int64, bool), clk quietClock) time.Duration {
	start := clk.Now()
	prev, ok := ticks()
	for ok && clk.Now().Sub(start) < max {
		clk.Sleep(quietWindow)
		cur, ok2 := ticks()
		if !ok2 {
			break
		}
		if cur-prev <= quietTicks {
			break
		}
		prev = cur
	}
	return clk.Now().Sub(start)
}

// cpuTicks sums utime+stime (fields 14 and 15 of /proc/<pid>/stat) of pids.
func cpuTicks(pids []int) (int64, bool) {
	var total int64
	for _, pid := range pids {
		path := "/proc/self/stat"
		if pid != 0 {
			path = fmt.Sprintf("/proc/%d/stat", pid)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, false
		}
		// The command name (field 2) is in parentheses and may hold spaces.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			return 0, false
		}
		f := bytes.Fields(b[i+1:])
		// f[0] is field 3 (state); utime and stime are fields 14 and 15.
		if len(f) < 13 {
			return 0, false
		}
		u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
		s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
		if err1 != nil || err2 != nil {
			return 0, false
		}
		total += u + s
	}
	return total, true
}

// flushFileSystems writes dirty pages back (sync(2)).
func flushFileSystems() { syscall.Sync() }
