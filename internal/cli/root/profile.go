package root

import (
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
)

// Profiling hook for performance work (docs/benchmarks.md "Profiling the
// CLI"); off unless the environment names a file. Both variables are read
// once, by Main, and never appear in a report or a log line.
//
//	SOPSAWSSYNC_CPUPROFILE=FILE    CPU profile of the whole run (pprof format)
//	SOPSAWSSYNC_MEMPROFILE=FILE    heap profile at the end of the run (pprof
//	                                "allocs": alloc_space/alloc_objects of the
//	                                whole run, inuse_* at the end), and
//	                                FILE.peak: the heap profile as of the
//	                                collection that found the most live heap
//	                                (its inuse_* is what the run held at its
//	                                largest)
//
// A file that cannot be created leaves the run unprofiled: the hook never
// changes what the run does or its exit code. The names are outside the
// SOPS_AWS_SYNC_ prefix on purpose: that prefix is the settings' own, and
// an unknown variable under it is refused (config:unknown-env).
const (
	cpuProfileEnv = "SOPSAWSSYNC_CPUPROFILE"
	memProfileEnv = "SOPSAWSSYNC_MEMPROFILE"
)

// startProfiles starts the profiles getenv asks for and returns the
// function that writes and closes them (a no-op when none was asked for).
func startProfiles(getenv func(string) string) (stop func()) {
	var cpu *os.File
	if p := getenv(cpuProfileEnv); p != "" {
		if f, err := os.Create(p); err == nil {
			if pprof.StartCPUProfile(f) == nil {
				cpu = f
			} else {
				_ = f.Close()
			}
		}
	}
	mem := getenv(memProfileEnv)
	if mem != "" {
		watchPeak(mem + ".peak")
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			_ = cpu.Close()
		}
		if mem == "" {
			return
		}
		f, err := os.Create(mem)
		if err != nil {
			return
		}
		runtime.GC() // the inuse figures as of the end of the run
		_ = pprof.Lookup("allocs").WriteTo(f, 0)
		_ = f.Close()
	}
}

// peakWatch writes the heap profile each time a collection finds more live
// heap than any before (a finalizer that re-arms itself, as the collector's
// pacer does): a heap profile's inuse figures are those of the last
// completed collection, so the file left is the heap at its largest.
type peakWatch struct {
	_    [32]byte // above the tiny-allocation size, so it is finalized
	path string
}

var (
	peakMu   sync.Mutex
	peakLive uint64
)

func watchPeak(path string) { runtime.SetFinalizer(&peakWatch{path: path}, onPeakCollection) }

func onPeakCollection(w *peakWatch) {
	sample := []metrics.Sample{{Name: liveHeapStats}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		live := sample[0].Value.Uint64()
		peakMu.Lock()
		if live > peakLive {
			peakLive = live
			if f, err := os.Create(w.path); err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				_ = f.Close()
			}
		}
		peakMu.Unlock()
	}
	runtime.SetFinalizer(w, onPeakCollection)
}
