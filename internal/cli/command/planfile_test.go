package command

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run/runtest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const testRev = runtest.Commit

// stoppedClock is a clock that stays at the Unix epoch: a run on it takes
// 0 ms and logs no loading progress.
type stoppedClock struct{}

func (stoppedClock) Now() time.Time                       { return time.Unix(0, 0) }
func (stoppedClock) After(time.Duration) <-chan time.Time { return nil }

// runReal runs the real plan command (no runF) on f and returns stdout and
// the error.
func runReal(t *testing.T, f *factory.Factory, args ...string) (string, error) {
	t.Helper()
	return runCmd(t, f, NewCmdPlan(f, nil), args...)
}

// runCmd runs cmd (built on f) and returns stdout and the error.
func runCmd(t *testing.T, f *factory.Factory, cmd *cobra.Command, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	f.IOStreams.Out = &out
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// engineFactory is testFactory over an emulator whose scope holds
// team/app/same, made by a first sync, and whose desired state adds
// team/app/api: the plan creates one secret and leaves one unchanged.
func engineFactory(t *testing.T) *factory.Factory {
	f := testFactory(t, nil, nil)
	src := emulatorSources(t, map[string]string{"same": `{"k":"s"}`})
	f.Sources = src
	_, err := runCmd(t, f, NewCmdSync(f, nil), required...)
	require.NoError(t, err, "the first sync creates the unchanged secret")
	src.Docs = map[string]string{"api": `{"db":{"password":"CANARY"}}`, "same": `{"k":"s"}`}
	return f
}

// TestPlanFileWrittenFromTheEnginePlan: --plan-file holds the engine's plan,
// redacted by planview.Build, with the commit; mode 0600; the JSON log has
// no rendering, --log-format text adds planview.Text after the records.
func TestPlanFileWrittenFromTheEnginePlan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plan.json")
	out, err := runReal(t, engineFactory(t), append([]string{"--plan-file", p}, required...)...)
	assert.NoError(t, err, "drift without --detailed-exit-code is exit 0")
	v, rerr := planview.ReadFile(p)
	require.NoError(t, rerr)
	assert.Equal(t, testRev, v.GitRevision)
	require.Len(t, v.Scopes, 1)
	assert.Equal(t, model.DefaultScopeName, v.Scopes[0].Name, "a run without scopes: is one scope named default")
	assert.Equal(t, vocab.Counts{Create: 1, Unchanged: 1}, v.Scopes[0].Counts)
	assert.Equal(t, "resource-0001", v.Scopes[0].Operations[0].Resource)
	assert.Equal(t, &planview.KeyCounts{Added: 1}, v.Scopes[0].Operations[0].Keys)
	fi, serr := os.Stat(p)
	require.NoError(t, serr)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.NotContains(t, out, "Plan: ", "the JSON log stream has no rendering")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		assert.True(t, strings.HasPrefix(line, "{"), "JSON record: %s", line)
	}

	out, err = runReal(t, engineFactory(t), append([]string{"--log-format", "text", "--show-resource-names"}, required...)...)
	assert.NoError(t, err)
	assert.Contains(t, out, "\nsops-aws-sync plan at commit "+testRev+"\n")
	assert.Contains(t, out, "  + team/app/api create: ~0 +1 -0 (not in AWS)\n      + /db/password\n")
	assert.True(t, strings.HasSuffix(out, "Plan: 1 to create, 0 to update, 0 to restore, 0 to schedule for deletion, 1 unchanged.\n"))
	assert.NotContains(t, out, "CANARY")
}

// TestPlanFileUnwritableFoundBeforeAnyAWSCall: an unwritable --plan-file
// ends the run with planfile:write-failed and exit 3 before the AWS port
// is built (testFactory fails the test if it is), as for the report.
func TestPlanFileUnwritableFoundBeforeAnyAWSCall(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	for _, p := range []string{filepath.Join(dir, "missing", "plan.json"), dir} {
		_, err := runReal(t, testFactory(t, nil, nil), append([]string{"--plan-file", p, "--report-file", report}, required...)...)
		assert.Equal(t, 3, exitcode.For(err))
		assert.Contains(t, classes(t, err), diag.PlanfileWriteFailed)
		assert.NotContains(t, strings.Join(exitcode.Lines(err), "\n"), dir, "the path is never quoted")
		data, rerr := os.ReadFile(report)
		require.NoError(t, rerr, "the report is still written")
		assert.Contains(t, string(data), `"status": "invalid"`)
	}
}

// TestPlanFileWrittenWhenConfigurationIsRejected: a rejected configuration
// whose --plan-file resolved still writes the plan file, with the
// diagnostics and no operation.
func TestPlanFileWrittenWhenConfigurationIsRejected(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plan.json")
	_, err := execute(t, NewCmdPlan, testFactory(t, nil, nil), "--plan-file", p, "--recovery-window-days", "6", "--secret-prefix", "a")
	assert.Equal(t, 3, exitcode.For(err))
	v, rerr := planview.ReadFile(p)
	require.NoError(t, rerr)
	assert.Empty(t, v.Scopes, "the configuration was rejected before the scopes were known")
	var got []string
	for _, d := range v.Diagnostics {
		got = append(got, d.Class)
		assert.NotEmpty(t, d.Subject, "a setting's diagnostic names the setting")
	}
	assert.ElementsMatch(t, classes(t, err), got)
}

// TestPlanFileHoldsRejectedDesiredState: every diagnostic of a rejected
// desired state reaches the plan file, with its document label, and the
// run never reaches the engine.
func TestPlanFileHoldsRejectedDesiredState(t *testing.T) {
	f := testFactory(t, nil, nil)
	f.Sources = &runtest.Sources{OpenErr: diag.Diagnostics{
		diag.New(diag.DecryptNotEncrypted, diag.Document(1, "secrets/a.sops.json", false)),
		diag.New(diag.PlaintextNotObject, diag.Document(3, "secrets/c.sops.json", false)),
	}}
	f.Clock = stoppedClock{}
	p := filepath.Join(t.TempDir(), "plan.json")
	out, err := runReal(t, f, append([]string{"--plan-file", p, "--log-format", "text"}, required...)...)
	assert.Equal(t, 3, exitcode.For(err))
	v, rerr := planview.ReadFile(p)
	require.NoError(t, rerr)
	require.Len(t, v.Scopes, 1)
	assert.Empty(t, v.Diagnostics, "the documents' diagnostics are the scope's")
	ds := v.Scopes[0].Diagnostics
	require.Len(t, ds, 2)
	assert.Equal(t, "resource-0001", ds[0].Subject)
	assert.Equal(t, diag.PlaintextNotObject, ds[1].Class)
	assert.Equal(t, vocab.StatusInvalid, v.Scopes[0].Status)
	assert.Contains(t, out, "Errors (2):")
	assert.NotContains(t, out, "secrets/")
}

// TestEarlyFilesWritesPlanFileForUsageErrors: a command line that cannot
// be used still writes the plan file (from --plan-file in the arguments or
// its environment variable) holding the usage diagnostics, names hidden;
// an unwritable one is reported as planfile:write-failed.
func TestEarlyFilesWritesPlanFileForUsageErrors(t *testing.T) {
	dir := t.TempDir()
	usage := diag.Diagnostics{diag.New(diag.UsageUnknownFlag, diag.Subject{})}
	fromFlag, fromEnv := filepath.Join(dir, "flag.json"), filepath.Join(dir, "env.json")
	f := testFactory(t, []string{"SOPS_AWS_SYNC_PLAN_FILE=" + fromEnv}, nil)
	assert.Equal(t, []string{diag.UsageUnknownFlag}, classes(t, EarlyFiles(f, []string{"plan", "--bogus", "--plan-file", fromFlag}, usage)))
	assert.Equal(t, []string{diag.UsageUnknownFlag}, classes(t, EarlyFiles(f, []string{"plan", "--bogus"}, usage)))
	for _, p := range []string{fromFlag, fromEnv} {
		v, err := planview.ReadFile(p)
		require.NoError(t, err)
		require.Len(t, v.Diagnostics, 1)
		assert.Equal(t, diag.UsageUnknownFlag, v.Diagnostics[0].Class)
		assert.Empty(t, v.Scopes, "a usage error ends the run before its scopes are known")
		assert.False(t, v.NamesShown)
	}
	err := EarlyFiles(f, []string{"plan", "--plan-file", filepath.Join(dir, "missing", "p.json")}, usage)
	assert.Equal(t, []string{diag.UsageUnknownFlag, diag.PlanfileWriteFailed}, classes(t, err))
	assert.Equal(t, 3, exitcode.For(err))
}
