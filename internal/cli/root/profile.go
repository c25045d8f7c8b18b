package root

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiling hook for performance work (docs/benchmarks.md "Profiling the
// CLI"); off unless the environment names a file. Both variables are read
// once, by Main, and never appear in a report or a log line.
//
//	SOPSAWSSYNC_CPUPROFILE=FILE    CPU profile of the whole run (pprof format)
//	SOPSAWSSYNC_MEMPROFILE=FILE    heap profile at the end of the run (pprof
//	                                "allocs": alloc_space/alloc_objects of the
//	                                whole run, inuse_* at the end)
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
