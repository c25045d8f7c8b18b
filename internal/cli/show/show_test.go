package show

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const rev = "0123456789abcdef0123456789abcdef01234567"

// savedPlan writes a plan file with a create and an update (names shown
// as given) and returns its path.
func savedPlan(t *testing.T, show bool) string {
	t.Helper()
	create, err := keydiff.Create([]byte(`{"db":{"password":"CANARY"}}`))
	require.NoError(t, err)
	upd, err := keydiff.Diff([]byte(`{"a":"CANARY-1"}`), []byte(`{"a":"CANARY-2","OOB_key":"x"}`))
	require.NoError(t, err)
	v := planview.Build(planview.Input{GitRevision: rev, Scopes: []planview.ScopeInput{{Name: model.DefaultScopeName, Region: "eu-west-1",
		Status: vocab.StatusDrift, Verification: vocab.VerificationNotRun, Operations: []planview.Operation{
			{Ordinal: 1, Name: "team/app/api", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: &create},
			{Ordinal: 2, Name: "team/app/db", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers, Keys: &upd},
			{Ordinal: 3, Name: "team/app/same", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
		}}}}, model.Redaction{ShowNames: show})
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, planview.WriteFile(p, v))
	return p
}

// run executes show with args and no runF, returning stdout and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	f := &factory.Factory{IOStreams: factory.IOStreams{Out: &out, ErrOut: &bytes.Buffer{}}}
	cmd := NewCmdShow(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), err
}

func classOf(t *testing.T, err error) string {
	t.Helper()
	var ds diag.Diagnostics
	require.True(t, errors.As(err, &ds), "want diagnostics, got %v", err)
	require.Len(t, ds, 1)
	return ds[0].Class
}

// TestNewCmdShowRendersText: the default format is the terminal text,
// exactly planview.Text of the file, with no configuration, Git or AWS
// (the factory has none).
func TestNewCmdShowRendersText(t *testing.T) {
	p := savedPlan(t, false)
	out, err := run(t, p)
	require.NoError(t, err)
	v, err := planview.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, planview.Text(v), out)
	assert.Contains(t, out, "+ resource-0001 create: ~0 +1 -0 (not in AWS)")
	assert.Contains(t, out, "Plan: 1 to create, 1 to update, 0 to restore, 0 to schedule for deletion, 1 unchanged.")
	for _, c := range []string{"CANARY", "OOB_", "team/app"} {
		assert.NotContains(t, out, c)
	}
}

// TestNewCmdShowRendersMarkdown: --format markdown is planview.Markdown;
// --max-bytes caps it (MarkdownCapped) below the limit.
func TestNewCmdShowRendersMarkdown(t *testing.T) {
	p := savedPlan(t, true)
	v, err := planview.ReadFile(p)
	require.NoError(t, err)
	out, err := run(t, p, "--format", "markdown")
	require.NoError(t, err)
	assert.Equal(t, planview.Markdown(v), out)
	assert.Contains(t, out, "team/app/db", "names shown in the file are shown")
	assert.NotContains(t, out, "OOB_", "a key only in AWS is never named")

	out, err = run(t, p, "--format", "markdown", "--max-bytes", "2048")
	require.NoError(t, err)
	assert.Equal(t, planview.MarkdownCapped(v, 2048), out)
	assert.Less(t, len(out), 2048)
}

// TestNewCmdShowRefusesBadFiles: a missing file, a file of another schema
// and a malformed one end with their planfile:* class, exit 3, and never
// quote the file or its path.
func TestNewCmdShowRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	for name, c := range map[string]struct{ path, class string }{
		"missing":        {filepath.Join(dir, "CANARY-missing.json"), diag.PlanfileUnreadable},
		"another schema": {write("v9.json", `{"schema_version":"sops-aws-sync/plan/v9","CANARY":1}`), diag.PlanfileUnknownSchema},
		"malformed":      {write("bad.json", `{"schema_version":"sops-aws-sync/plan/v3","CANARY":1}`), diag.PlanfileMalformed},
		"malformed v1":   {write("bad1.json", `{"schema_version":"sops-aws-sync/plan/v1","CANARY":1}`), diag.PlanfileMalformed},
		"report file":    {write("report.json", `{"schema_version":1,"status":"converged"}`), diag.PlanfileUnknownSchema},
	} {
		out, err := run(t, c.path)
		assert.Empty(t, out, name)
		assert.Equal(t, c.class, classOf(t, err), name)
		assert.Equal(t, 3, exitcode.For(err), name)
		assert.NotContains(t, strings.Join(exitcode.Lines(err), "\n"), "CANARY", name)
	}
}

// TestNewCmdShowUsage: exactly one argument; --format text or markdown;
// --max-bytes only with markdown and not negative; runF gets the options.
func TestNewCmdShowUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"no argument":         {},
		"two arguments":       {"a.json", "b.json"},
		"unknown format":      {"a.json", "--format", "html"},
		"max-bytes with text": {"a.json", "--max-bytes", "4096"},
		"negative max-bytes":  {"a.json", "--format", "markdown", "--max-bytes", "-1"},
	} {
		_, err := run(t, args...)
		require.Error(t, err, name)
		assert.Equal(t, diag.FamilyUsage, diag.FamilyOf(classOf(t, err)), name)
		assert.Equal(t, 3, exitcode.For(err), name)
	}
	var got *Options
	cmd := NewCmdShow(&factory.Factory{}, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"p.json", "--format", "markdown", "--max-bytes", "60000"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, &Options{Path: "p.json", Format: FormatMarkdown, MaxBytes: 60000}, got)
}

// TestRegression_ShowRefusesAmbiguousPlanFiles: show refuses a plan file
// with a key given twice (before, the last schema_version won), a key in
// another letter case, or invalid UTF-8: exit 3, planfile:malformed,
// nothing rendered.
func TestRegression_ShowRefusesAmbiguousPlanFiles(t *testing.T) {
	raw, err := os.ReadFile(savedPlan(t, false))
	require.NoError(t, err)
	good := string(raw)
	for name, data := range map[string]string{
		"duplicate schema_version": strings.Replace(good, `"schema_version"`, `"schema_version": "sops-aws-sync/plan/v9", "schema_version"`, 1),
		"duplicate names_shown":    strings.Replace(good, `"names_shown": false`, `"names_shown": true, "names_shown": false`, 1),
		"case-variant key":         strings.Replace(good, `"git_revision"`, `"Git_Revision"`, 1),
		"invalid UTF-8":            strings.Replace(good, `"resource-0001"`, "\"resource-0001\xff\"", 1),
	} {
		t.Run(name, func(t *testing.T) { refusedAsMalformed(t, good, data) })
	}
}

// TestRegression_ShowOfAFIFOReturnsAtOnce: a FIFO (no writer) or a device
// is refused as planfile:not-regular-file, exit 3, without blocking (before,
// show hung in open and swallowed the first SIGINT/SIGTERM).
func TestRegression_ShowOfAFIFOReturnsAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, p := range []string{fifo, "/dev/null", t.TempDir()} {
		out, err := run(t, p)
		assert.Empty(t, out)
		assert.Equal(t, diag.PlanfileNotRegularFile, classOf(t, err), p)
		assert.Equal(t, 3, exitcode.For(err))
	}
}

// TestNewCmdShowReadsV1Files: a plan file written before scopes (schema
// v1) is shown as one scope named default, with its operations and counts,
// in both formats.
func TestNewCmdShowReadsV1Files(t *testing.T) {
	v1 := `{"schema_version":"sops-aws-sync/plan/v1","git_revision":"` + rev + `","names_shown":false,` +
		`"operations":[{"resource":"resource-0001","action":"create","reason":"absent","keys":{"added":2,"removed":0,"changed":0}},` +
		`{"resource":"resource-0002","action":"unchanged","reason":"value-equal"}],` +
		`"summary":{"create":1,"update":0,"restore":0,"schedule_delete":0,"unchanged":1,"conflicts":0},"diagnostics":[]}`
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, os.WriteFile(p, []byte(v1), 0o600))
	out, err := run(t, p)
	require.NoError(t, err)
	assert.Contains(t, out, "Run: status not recorded (a sops-aws-sync/plan/v1 file, shown as one scope)\n")
	assert.Contains(t, out, "\nScope default\n")
	assert.Contains(t, out, "  + resource-0001 create: ~0 +2 -0 (not in AWS)\n")
	assert.Contains(t, out, "Plan: 1 to create, 0 to update, 0 to restore, 0 to schedule for deletion, 1 unchanged.\n")
	md, err := run(t, p, "--format", "markdown")
	require.NoError(t, err)
	assert.Contains(t, md, "#### Scope `default`\n")
	assert.Contains(t, md, "+   resource-0001 create: ~0 +2 -0 (not in AWS)\n")
}

// TestRegression_ShowRefusesContradictoryPlanFiles: show rendered a plan
// file that listed one operation twice (same action and resource, counts
// raised to match) or a scope converged with verification not-run that
// listed an operation. It refuses both with the reader's class,
// planfile:malformed, exit 3, nothing rendered.
func TestRegression_ShowRefusesContradictoryPlanFiles(t *testing.T) {
	raw, err := os.ReadFile(savedPlan(t, false))
	require.NoError(t, err)
	good := string(raw)
	create := "{\n          \"resource\": \"resource-0001\",\n          \"action\": \"create\","
	require.Contains(t, good, create)
	for name, data := range map[string]string{
		"an operation twice": strings.Replace(strings.Replace(good, `"create": 1,`, `"create": 2,`, 1),
			`"operations": [`, `"operations": [{"resource": "resource-0001", "action": "create", "reason": "absent", "keys": {"added": 1, "removed": 0, "changed": 0}},`, 1),
		"converged with operations": strings.Replace(good, `"status": "drift"`, `"status": "converged"`, 1),
	} {
		t.Run(name, func(t *testing.T) { refusedAsMalformed(t, good, data) })
	}
}

// refusedAsMalformed writes data, a variant of the valid plan file good,
// and asserts that show refuses it: no output, planfile:malformed, exit 3.
func refusedAsMalformed(t *testing.T, good, data string) {
	t.Helper()
	require.NotEqual(t, good, data)
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, os.WriteFile(p, []byte(data), 0o600))
	out, err := run(t, p)
	assert.Empty(t, out)
	assert.Equal(t, diag.PlanfileMalformed, classOf(t, err))
	assert.Equal(t, 3, exitcode.For(err))
}
