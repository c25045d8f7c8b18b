package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Machine describes the machine a benchmark ran on: CPU model and count,
// memory, OS, kernel and Go version (from /proc where it exists).
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/1024/1024)
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = " " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s, %d CPUs%s; %s%s; %s", model, runtime.NumCPU(), mem, runtime.GOOS, kernel, runtime.Version())
}

// TreeState names the measured source: HEAD and whether the work tree
// had uncommitted changes.
func TreeState(root string) string {
	head, err := exec.Command("git", "-C", root, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	st, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=normal", "--", "cmd", "internal", "go.mod", "go.sum").Output()
	s := "commit " + strings.TrimSpace(string(head))
	if len(bytes.TrimSpace(st)) > 0 {
		s += " plus uncommitted changes under cmd/ or internal/ (work in progress of other helpers was measured)"
	}
	return s
}

// LoadAvg is the 1-minute load average (/proc/loadavg), "?" when unknown.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
