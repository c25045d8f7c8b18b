package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// records returns the JSON log records of out.
func records(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		recs = append(recs, m)
	}
	return recs
}

// TestRegression_PlanFileAndReportOnOnePath: --plan-file and --report-file
// naming one file (the same text, "./x", "d/../x", an absolute path, a
// directory reached through a symbolic link, two hard links) end the run
// before the AWS port is built (testFactory fails the test if it is):
// exit 3, planfile:same-file on stderr and in the log, and the file holds
// the report (status invalid), not the plan. Before, the run went on, the
// plan file replaced the report, and the exit code was 0.
func TestRegression_PlanFileAndReportOnOnePath(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o700))
	require.NoError(t, os.Symlink("d", filepath.Join(dir, "dl")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h1"), nil, 0o600))
	require.NoError(t, os.Link(filepath.Join(dir, "h1"), filepath.Join(dir, "h2")))
	t.Chdir(dir)
	for _, pair := range [][2]string{
		{"x.json", "x.json"},
		{"x.json", "./x.json"},
		{"x.json", "d/../x.json"},
		{filepath.Join(dir, "x.json"), "x.json"},
		{"dl/y.json", "d/y.json"},
		{"h1", "h2"},
	} {
		t.Run(pair[0]+" "+pair[1], func(t *testing.T) {
			for _, name := range []string{"x.json", "d/y.json"} {
				_ = os.Remove(name)
			}
			out, err := runReal(t, testFactory(t, nil, nil), append([]string{"--plan-file", pair[0], "--report-file", pair[1]}, required...)...)
			assert.Equal(t, 3, exitcode.For(err))
			assert.Equal(t, []string{diag.PlanfileSameFile}, classes(t, err))
			data, rerr := os.ReadFile(pair[1])
			require.NoError(t, rerr)
			rep, perr := report.Parse(data)
			require.NoError(t, perr, "the file holds the report:\n%s", data)
			assert.Equal(t, vocab.StatusInvalid, rep.Status)
			recs := records(t, out)
			assert.Equal(t, "run finished", recs[len(recs)-1]["msg"])
			assert.Equal(t, "invalid", recs[len(recs)-1]["status"])
			assert.Contains(t, out, `"error_class":"planfile:same-file"`)
		})
	}
}

// TestRegression_OutputsOnOnePathBeforeTheRun: the usage-error and the
// rejected-configuration paths check the same rule (one set of outputs).
func TestRegression_OutputsOnOnePathBeforeTheRun(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o700))
	p := filepath.Join(dir, "x.json")
	usage := diag.Diagnostics{diag.New(diag.UsageUnknownFlag, diag.Subject{})}
	err := EarlyFiles(testFactory(t, nil, nil), []string{"plan", "--bogus", "--plan-file", p, "--report-file", dir + "/d/../x.json"}, usage)
	assert.Equal(t, []string{diag.UsageUnknownFlag, diag.PlanfileSameFile}, classes(t, err))
	_, perr := report.Parse(mustRead(t, p))
	assert.NoError(t, perr)

	require.NoError(t, os.Remove(p))
	_, err = execute(t, NewCmdPlan, testFactory(t, nil, nil), "--plan-file", p, "--report-file", p, "--recovery-window-days", "6", "--secret-prefix", "a")
	assert.Equal(t, 3, exitcode.For(err))
	assert.Contains(t, classes(t, err), diag.PlanfileSameFile)
	_, perr = report.Parse(mustRead(t, p))
	assert.NoError(t, perr)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// TestRegression_PlanFileUnwritableAfterTheRunIsInTheReport: a plan file
// that passes the probe but cannot be written after the run (here a
// directory appears at its path while the engine runs) makes the ending
// invalid before the report is written: exit 3, and the report, the "run
// finished" record and the exit code agree (status invalid, verification
// not-run), with the counts of what the run did. Before, the report said
// converged while the process exited 3, which the Action reads as version
// skew.
func TestRegression_PlanFileUnwritableAfterTheRunIsInTheReport(t *testing.T) {
	dir := t.TempDir()
	planPath, reportPath := filepath.Join(dir, "plan.json"), filepath.Join(dir, "report.json")
	f := testFactory(t, nil, nil)
	src := emulatorSources(t, map[string]string{"same": `{"k":"s"}`})
	f.Sources = src
	_, err := runCmd(t, f, NewCmdSync(f, nil), required...)
	require.NoError(t, err, "the first sync creates the unchanged secret")
	src.Docs = map[string]string{"a": `{"k":"a"}`, "b": `{"k":"b"}`, "same": `{"k":"s"}`}
	src.BeforeOpen = func() { require.NoError(t, os.Mkdir(planPath, 0o700), "the probe left nothing at the path") }
	out, err := runCmd(t, f, NewCmdSync(f, nil), append([]string{"--plan-file", planPath, "--report-file", reportPath}, required...)...)
	assert.Equal(t, 3, exitcode.For(err))
	assert.Equal(t, []string{diag.PlanfileWriteFailed}, classes(t, err))
	rep, perr := report.Parse(mustRead(t, reportPath))
	require.NoError(t, perr)
	assert.Equal(t, vocab.StatusInvalid, rep.Status)
	assert.Equal(t, vocab.VerificationNotRun, rep.Verification)
	assert.Equal(t, vocab.Counts{Create: 2, Unchanged: 1}, rep.Counts, "what the run did is kept")
	assert.Equal(t, vocab.ExitCode(rep.Status, false), exitcode.For(err), "exit code and report agree")
	recs := records(t, out)
	fin := recs[len(recs)-1]
	assert.Equal(t, "run finished", fin["msg"])
	assert.Equal(t, "invalid", fin["status"])
	assert.Equal(t, float64(2), fin["count"])
	var failure map[string]any
	for _, r := range recs {
		if r["error_class"] == diag.PlanfileWriteFailed {
			failure = r
		}
	}
	require.NotNil(t, failure)
	assert.Equal(t, "target", failure["operation"])
}
