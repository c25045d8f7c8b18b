//go:build linux

package harness

import (
	"os"
	"syscall"
)

// maxRSSKiB is ru_maxrss of the exited child; Linux reports KiB.
func maxRSSKiB(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
