package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
)

// Invocation is one run of a binary.
type Invocation struct {
	Bin  string
	Args []string
	// Env is the complete environment (nothing is inherited).
	Env []string
	Dir string
}

// Measurement is what one run of the CLI cost and said.
type Measurement struct {
	// Wall is from process start to exit, as seen by the parent.
	Wall time.Duration
	// MaxRSSKiB is the peak resident set size of the child's own address
	// space (VmHWM, KiB, sampled every few ms; see watchPeakRSS); 0 off
	// Linux.
	MaxRSSKiB int64
	ExitCode  int
	// CPU is the child's user + system CPU time, every thread
	// (os.ProcessState.UserTime + SystemTime, from wait4's rusage; unlike
	// ru_maxrss these are the child's own, not inherited across execve).
	CPU    time.Duration
	Stdout []byte
	Stderr []byte
}

// Run runs inv to completion and measures it. A non-zero exit is not an
// error (the caller judges the exit code); failing to start is.
func Run(ctx context.Context, inv Invocation) (Measurement, error) {
	cmd := exec.CommandContext(ctx, inv.Bin, inv.Args...)
	cmd.Env = inv.Env
	cmd.Dir = inv.Dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Measurement{}, fmt.Errorf("failed to run %s: %w", filepath.Base(inv.Bin), err)
	}
	stop := make(chan struct{})
	peak := watchPeakRSS(cmd.Process.Pid, stop)
	err := cmd.Wait()
	wall := time.Since(start)
	close(stop)
	m := Measurement{Wall: wall, Stdout: out.Bytes(), Stderr: errb.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
	default:
		return m, fmt.Errorf("failed to run %s: %w", filepath.Base(inv.Bin), err)
	}
	m.ExitCode = cmd.ProcessState.ExitCode()
	m.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	m.MaxRSSKiB = <-peak
	return m, nil
}

// ReadReport reads and validates a report file (SPEC §7.2).
func ReadReport(path string) (report.Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return report.Report{}, err
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		return report.Report{}, fmt.Errorf("report %s: %w", path, err)
	}
	return r, r.Validate()
}

// LogDurations returns, from the CLI's JSON log lines, the duration_ms of
// every record that has one, keyed "phase/msg" (summed when repeated, e.g.
// "apply/phase applied"). Lines that are not JSON objects are skipped.
func LogDurations(stdout []byte) map[string]int64 {
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var rec struct {
			Msg        string `json:"msg"`
			Phase      string `json:"phase"`
			DurationMS *int64 `json:"duration_ms"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.DurationMS == nil {
			continue
		}
		out[rec.Phase+"/"+rec.Msg] += *rec.DurationMS
	}
	return out
}
