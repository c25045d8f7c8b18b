package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// The outputs of a run (plan file, report, final record, exit code) with
// the real binary and the emulator: they agree, also when one fails, and a
// path that cannot be written as asked is refused before any AWS call.

// TestPlanFileAndReportOnOnePathRefusedBeforeAnyAWSCall: --plan-file and
// --report-file naming one file (the same text, or "x" and "d/../x") exit
// 3 with planfile:same-file before any AWS call, and the file holds the
// report (status invalid). Before, sync ran, the plan file replaced the
// report, and the process exited 0.
func TestPlanFileAndReportOnOnePathRefusedBeforeAnyAWSCall(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o700))
	x := filepath.Join(dir, "x.json")
	for _, other := range []string{x, filepath.Join(dir, "d") + "/../x.json"} {
		for _, command := range []string{"sync", "plan"} {
			_ = os.Remove(x)
			r := f.run(e, runOpts{NoReport: true}, f.args(command, "--plan-file", x, "--report-file", other)...)
			require.Equal(t, 3, r.Code, "%s %s\nstdout:\n%s\nstderr:\n%s", command, other, r.Stdout, r.Stderr)
			assert.Empty(t, e.stats().Calls, "no AWS call")
			assert.Contains(t, r.Stderr, "planfile:same-file")
			rep, err := report.Parse(mustReadFile(t, x))
			require.NoError(t, err, "the one file is the report")
			assert.Equal(t, vocab.StatusInvalid, rep.Status)
			assert.Equal(t, "invalid", r.final(t)["status"])
		}
	}
}

// TestPlanFileUnwritableAfterTheRunAgreesWithTheReport: a plan file that
// passes the probe (an existing regular file in a writable directory) but
// cannot be replaced after the run (made immutable, as a root-owned file
// in a sticky directory is for another user) ends the sync with exit 3,
// and the report says so: status invalid, verification not-run, the
// creates that took effect counted; the "run finished" record agrees.
// Before, the report said converged while the process exited 3 (the Action
// reads that as version skew).
func TestPlanFileUnwritableAfterTheRunAgreesWithTheReport(t *testing.T) {
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("chattr is not installed: cannot make a file immutable here")
	}
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o600))
	if out, err := exec.Command("chattr", "+i", p).CombinedOutput(); err != nil {
		t.Skipf("chattr +i is not permitted here (%v: %s)", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("chattr", "-i", p).Run() })

	r := f.run(e, runOpts{}, f.args("sync", "--plan-file", p)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{Create: len(docs)})
	fin := r.final(t)
	assert.Equal(t, "invalid", fin["status"])
	assert.Equal(t, "not-run", fin["verification"])
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "planfile:write-failed" })
	require.NotNil(t, rec)
	assert.Equal(t, "rename", rec["operation"])
	assert.Contains(t, r.Stderr, "planfile:write-failed")
	assert.Equal(t, "{}\n", string(mustReadFile(t, p)), "the immutable file is unchanged")
}

// TestOutputTargetThatIsADeviceNodeRefused: --plan-file or --report-file
// naming an existing device node (or a FIFO) is refused before any AWS
// call (exit 3, planfile:not-regular-file / report:not-regular-file) and
// the node stays. Before, the atomic rename replaced it.
func TestOutputTargetThatIsADeviceNodeRefused(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	dir := t.TempDir()
	dev, fifo := filepath.Join(dir, "null"), filepath.Join(dir, "fifo")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o600, 1<<8|3); err != nil {
		t.Skipf("mknod is not permitted here: %v", err)
	}
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, c := range []struct{ flag, path, class string }{
		{"--plan-file", dev, "planfile:not-regular-file"},
		{"--report-file", dev, "report:not-regular-file"},
		{"--plan-file", fifo, "planfile:not-regular-file"},
	} {
		r := f.run(e, runOpts{NoReport: c.flag == "--report-file"}, f.args("sync", c.flag, c.path)...)
		require.Equal(t, 3, r.Code, "%s %s\nstdout:\n%s\nstderr:\n%s", c.flag, c.path, r.Stdout, r.Stderr)
		assert.Contains(t, r.Stderr, c.class)
		assert.Contains(t, r.Stderr, "next:")
		assert.Empty(t, e.stats().Calls, "no AWS call")
		st, err := os.Lstat(c.path)
		require.NoError(t, err)
		assert.False(t, st.Mode().IsRegular(), "%s is still what it was", c.path)
	}
}

// TestShowOfAFIFOReturnsAtOnce: show of a FIFO with no writer exits 3
// with planfile:not-regular-file at once. Before, it blocked in open, and
// SIGINT/SIGTERM (caught for the run's cancellation) did not end it. The
// deadline only turns a regression into a failure instead of a hung suite.
func TestShowOfAFIFOReturnsAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "plan.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cliBin, "show", fifo)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "show blocked on the FIFO")
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 3, ee.ExitCode())
	assert.Empty(t, stdout.String())
	assert.Contains(t, stderr.String(), "planfile:not-regular-file")
	assert.NotContains(t, stderr.String(), dir, "the path is never quoted")
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}
