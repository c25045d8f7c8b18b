package root

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// The collector's pacing for one run. With Go's default (GOGC=100) the
// heap may grow to twice what the last collection found live. While the
// desired state is decrypted beside the first observation, the live figure
// is inflated by short-lived decryption buffers (age allocates two 64 KiB
// buffers per document), so at 50,000 secrets the heap peaked at 371 MB
// for about 190 MB marked live, and the process's peak RSS varied from 431
// to 506 MiB with the machine's load (docs/benchmarks.md; the target is
// 400 MiB).
//
// pacedHeap is the heap the pacer aims at: after every collection the
// percentage is set so that the next collection starts by
// pacedHeap, but never below minGCPercent (at most about twice the
// collections of the default, whatever the estate's size: a fixed memory
// limit would instead make the collector run without pause once the live
// heap reached it) and never above the default 100. A run whose live heap
// stays under half of pacedHeap keeps the default throughout (a no-op of
// 10,000 secrets of 1 KiB peaks at about 110 MiB of RSS in all).
const (
	pacedHeap     = 256 << 20
	minGCPercent  = 50
	maxGCPercent  = 100
	liveHeapStats = "/gc/heap/live:bytes"
)

// gcPercentFor is the GOGC percentage for a live heap of live bytes:
// (pacedHeap − live) / live, as a percentage, clamped to
// [minGCPercent, maxGCPercent]; maxGCPercent when live is unknown (0).
func gcPercentFor(live uint64) int {
	if live == 0 {
		return maxGCPercent
	}
	if live >= pacedHeap {
		return minGCPercent
	}
	p := int((pacedHeap - live) * 100 / live)
	return min(max(p, minGCPercent), maxGCPercent)
}

// userPacesGC reports whether the user set the collector's pacing
// (GOGC or GOMEMLIMIT in the environment, read by the Go runtime): then
// the process keeps theirs and the pacer is not started.
func userPacesGC(getenv func(string) string) bool {
	return getenv("GOGC") != "" || getenv("GOMEMLIMIT") != ""
}

// paceGC starts the pacer unless the user paces the collector. It runs
// after each collection (a finalizer on an object that re-arms itself) and
// costs one runtime/metrics read per collection.
func paceGC() {
	if userPacesGC(os.Getenv) {
		return
	}
	startPacer()
}

func startPacer() { runtime.SetFinalizer(&gcSentinel{}, onCollection) }

// gcSentinel is a heap object whose finalizer runs once per collection. It
// is larger than the runtime's tiny-allocation size (16 bytes), whose
// objects share blocks and may never be finalized.
type gcSentinel struct{ _ [32]byte }

// current is the percentage last set (only touched by the finalizer
// goroutine); paced counts the pacer's runs.
var (
	current = maxGCPercent
	paced   atomic.Int64
)

func onCollection(s *gcSentinel) {
	sample := []metrics.Sample{{Name: liveHeapStats}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		if p := gcPercentFor(sample[0].Value.Uint64()); p != current {
			debug.SetGCPercent(p)
			current = p
		}
	}
	paced.Add(1)
	runtime.SetFinalizer(s, onCollection)
}
