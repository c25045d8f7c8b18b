//go:build !linux

package harness

import "os"

// maxRSSKiB is not measured off Linux (units differ per platform).
func maxRSSKiB(*os.ProcessState) int64 { return 0 }
