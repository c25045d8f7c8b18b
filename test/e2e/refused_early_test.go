package e2e

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// What the CLI refuses before it reads anything from AWS: an output file it
// could not write, a flag given twice, a mistyped command. Each exits 3 with
// its class, and the emulator sees no call.

// TestReportFileUnwritableFoundBeforeAnyAWSCall: an unwritable
// --report-file (its directory missing, the path a directory, a path under
// /proc) is found before the first AWS call: exit 3, report:write-failed,
// and the emulator saw no call at all: docs/recovery.md says exit 3
// changed nothing, so a sync must not create secrets and only then find
// that it cannot record them.
func TestReportFileUnwritableFoundBeforeAnyAWSCall(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	for name, path := range map[string]string{
		"missing directory": filepath.Join(f.Home, "missing-dir", "report.json"),
		"a directory":       t.TempDir(),
		"under /proc":       "/proc/sops-aws-sync-report.json",
	} {
		t.Run(name, func(t *testing.T) {
			for _, command := range []string{"sync", "plan"} {
				r := f.run(e, runOpts{NoReport: true}, f.args(command, "--report-file", path)...)
				require.Equal(t, 3, r.Code, "%s\nstdout:\n%s\nstderr:\n%s", command, r.Stdout, r.Stderr)
				assert.Empty(t, e.stats().Calls, "%s: no AWS call before the report file is known to be writable", command)
				rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "report:write-failed" })
				require.NotNil(t, rec, command)
				assert.Equal(t, "report", rec["phase"])
				fin := findRecord(r.records(t), func(m map[string]any) bool { return m["msg"] == "run finished" })
				require.NotNil(t, fin)
				assert.Equal(t, "invalid", fin["status"], "the run did nothing")
				assert.Contains(t, r.Stderr, "report:write-failed")
				assert.Contains(t, r.Stderr, "next:")
			}
		})
	}
	assert.NoDirExists(t, filepath.Join(f.Home, "missing-dir"), "the probe must not create the missing directory")
}

// TestRepeatedFlagIsUsageError: a flag given twice is an error (exit 3,
// usage:repeated-flag, the values never echoed), not the last value
// silently winning; the report is still written, and AWS is not called.
func TestRepeatedFlagIsUsageError(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	r := f.run(e, runOpts{}, "sync", "--secret-prefix", "CANARY-one", "--secret-prefix", f.Prefix, "--repository-id", f.RepoID)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Contains(t, r.Stderr, "flag --secret-prefix")
	assert.Contains(t, r.Stderr, "usage:repeated-flag")
	assert.NotContains(t, r.Stderr, "CANARY")
	assert.NotContains(t, r.Stderr, f.Prefix)
	assert.Empty(t, e.stats().Calls)
}

// TestMistypedCommandIsUnknownCommand: "plna" with plan's flags says
// unknown command with a suggestion (not "unknown flag --secret-prefix"),
// exits 3, touches nothing, and writes the "invalid" report when
// SOPS_AWS_SYNC_REPORT_FILE names one.
func TestMistypedCommandIsUnknownCommand(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	cmd, reportPath := f.cmd(e, runOpts{NoReport: true}, f.args("plna")...)
	cmd.Env = append(cmd.Env, "SOPS_AWS_SYNC_REPORT_FILE="+reportPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	r := f.finish(e, runOpts{}, cmd, cmd.Run(), stdout.String(), stderr.String(), reportPath)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Contains(t, r.Stderr, "usage:unknown-command")
	assert.Contains(t, r.Stderr, "did you mean plan?")
	assert.NotContains(t, r.Stderr, "unknown flag")
	assert.NotContains(t, r.Stderr, "plna", "the typed word is not echoed")
	assert.Empty(t, r.Stdout, "nothing is logged for a usage error")
	assert.Empty(t, e.stats().Calls)
}
