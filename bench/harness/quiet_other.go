//go:build !linux

package harness

import "time"

// WaitQuiet is not implemented off Linux: it returns at once.
func WaitQuiet(max time.Duration, pids ...int) time.Duration { return 0 }

// flushFileSystems is a no-op off Linux.
func flushFileSystems() {}
