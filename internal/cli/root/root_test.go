package root

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run/runtest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const sha = runtest.Commit

// fake is the production Factory whose Sources are stand-ins: one
// emulator (the real SDK client and the awssm adapter) for every scope's
// port and documents in memory (runtest.Sources); the run and the engine
// are the production ones (the e2e tests run the real binary).
type fake struct {
	f        *factory.Factory
	out, err bytes.Buffer
	env      []string
	files    map[string]string
	srv      *emulatortest.Server
	src      *runtest.Sources
	t        *testing.T
}

func newFake(t *testing.T) *fake {
	fk := &fake{files: map[string]string{}, t: t, srv: emulatortest.Start(t)}
	fk.src = &runtest.Sources{Port: awssm.New(fk.srv.Client(t), awssm.Options{})}
	fk.f = factory.New(factory.BuildInfo{Version: "v9.9.9", Commit: "abc", Date: "2026-01-01"})
	fk.f.IOStreams = factory.IOStreams{In: strings.NewReader(""), Out: &fk.out, ErrOut: &fk.err}
	fk.f.Host = fk
	fk.f.Sources = fk.src
	return fk
}

// Environ and ReadFile make the fake the factory's Host: its environment
// and config files, as the test sets them.
func (fk *fake) Environ() []string { return fk.env }

func (fk *fake) ReadFile(name string) ([]byte, error) {
	if s, ok := fk.files[name]; ok {
		return []byte(s), nil
	}
	return nil, os.ErrNotExist
}

// loads, ports and engines count the desired states opened, the port
// set-ups and the engine's first observations (its ListSecrets calls).
func (fk *fake) loads() int { return fk.src.Opens }
func (fk *fake) ports() int { return fk.src.PortsCalls }
func (fk *fake) engines() int {
	return int(fk.srv.Stats(fk.t).Calls["ListSecrets"])
}

// scope is the settings of the one scope the last run built its port for.
func (fk *fake) scope() config.Scope {
	require.Len(fk.t, fk.src.Scopes, 1)
	return fk.src.Scopes[0]
}

// gotReq is the desired-state options of the last scope opened.
func (fk *fake) gotReq() config.Desired {
	require.NotEmpty(fk.t, fk.src.Desired)
	return fk.src.Desired[len(fk.src.Desired)-1]
}

func (fk *fake) exec(ctx context.Context, args ...string) int { return Execute(ctx, fk.f, args) }

func readReport(t *testing.T, p string) report.Report {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	r, err := report.Parse(b)
	require.NoError(t, err)
	return r
}

var req = []string{"--secret-prefix", "team/app", "--repository-id", "o/r"}

func TestVersionAndHelpBuildNothing(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"--help"}, {"plan", "--help"}, {"help", "sync"}, {}} {
		fk := newFake(t)
		fk.env = []string{"SOPS_AWS_SYNC_BOGUS=1"}
		assert.Equal(t, 0, fk.exec(context.Background(), args...), "%v", args)
		assert.Zero(t, fk.loads()+fk.ports()+fk.engines())
		assert.Empty(t, fk.err.String())
	}
	fk := newFake(t)
	fk.exec(context.Background(), "version")
	assert.Equal(t, "sops-aws-sync v9.9.9 (abc) built 2026-01-01\n", fk.out.String())
}

func TestSyncConvergedWritesReport(t *testing.T) {
	fk := newFake(t)
	p := filepath.Join(t.TempDir(), "r.json")
	fk.src.Docs = map[string]string{"a": `{"k":"1"}`, "b": `{"k":"2"}`}
	code := fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--concurrency", "3", "--allow-empty"}, req...)...)
	require.Equal(t, 0, code, fk.err.String())
	r := readReport(t, p)
	assert.Equal(t, vocab.StatusConverged, r.Status)
	assert.Equal(t, sha, r.GitRevision)
	assert.Equal(t, "v9.9.9", r.ToolVersion)
	assert.Equal(t, 2, r.Counts.Create)
	assert.Equal(t, int64(2), fk.srv.Stats(t).Calls["CreateSecret"], "sync writes")
	assert.Equal(t, 3, fk.scope().Engine.Concurrency)
	assert.True(t, fk.scope().Engine.AllowEmpty)
	assert.Equal(t, 30, fk.scope().Engine.RecoveryWindowDays)
	assert.Equal(t, "team/app", fk.gotReq().SecretPrefix)
	assert.Equal(t, "secrets", fk.gotReq().SourceRoot)
	assert.Empty(t, fk.err.String())

	// Last record is the summary.
	lines := strings.Split(strings.TrimSpace(fk.out.String()), "\n")
	var last map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last))
	assert.Equal(t, "run finished", last["msg"])
	assert.Equal(t, "complete", last["phase"])
	assert.Equal(t, "converged", last["status"])
	assert.Equal(t, float64(2), last["count"])
}

func TestPlanDriftExitCodes(t *testing.T) {
	fk := newFake(t)
	fk.src.Docs = map[string]string{"a": `{"k":"1"}`}
	assert.Equal(t, 2, fk.exec(context.Background(), append([]string{"plan", "--detailed-exit-code"}, req...)...))
	assert.Zero(t, fk.srv.Stats(t).Calls["CreateSecret"], "plan writes nothing")
	assert.Equal(t, 0, fk.exec(context.Background(), append([]string{"plan"}, req...)...))

	// Plan reports verification not-run.
	p := filepath.Join(t.TempDir(), "r.json")
	fk.exec(context.Background(), append([]string{"plan", "--report-file", p}, req...)...)
	assert.Equal(t, vocab.VerificationNotRun, readReport(t, p).Verification)
}

func TestInvalidConfigurationWritesReportAndTouchesNothing(t *testing.T) {
	fk := newFake(t)
	p := filepath.Join(t.TempDir(), "r.json")
	fk.files["c.yaml"] = "secret-prefx: CANARY\n"
	code := fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--config", "c.yaml"}, req...)...)
	assert.Equal(t, 3, code)
	assert.Zero(t, fk.loads()+fk.ports()+fk.engines())
	assert.Contains(t, fk.err.String(), "secret-prefx")
	assert.NotContains(t, fk.err.String(), "CANARY")
	assert.Empty(t, fk.out.String(), "nothing logged before the log settings are valid")
	r := readReport(t, p)
	assert.Equal(t, vocab.StatusInvalid, r.Status)
	assert.Equal(t, "", r.GitRevision)
}

func TestUsageErrorsStillWriteReport(t *testing.T) {
	for _, extra := range [][]string{{"--bogus=CANARY"}, {"CANARY"}, {"-x"}} {
		fk := newFake(t)
		p := filepath.Join(t.TempDir(), "r.json")
		args := append(append([]string{"plan", "--report-file", p}, req...), extra...)
		assert.Equal(t, 3, fk.exec(context.Background(), args...))
		assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)
		assert.NotContains(t, fk.err.String(), "CANARY")
		assert.Zero(t, fk.loads()+fk.ports()+fk.engines())
	}
	// From the environment too.
	fk := newFake(t)
	p := filepath.Join(t.TempDir(), "r.json")
	fk.env = []string{"SOPS_AWS_SYNC_REPORT_FILE=" + p}
	assert.Equal(t, 3, fk.exec(context.Background(), "sync", "--nope"))
	assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)
}

func TestReportWriteFailureForcesExit3(t *testing.T) {
	fk := newFake(t)
	p := filepath.Join(t.TempDir(), "missing", "r.json")
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p}, req...)...))
	assert.Contains(t, fk.out.String(), "report:write-failed")
	assert.Contains(t, fk.err.String(), "report:write-failed")
}

func TestDesiredErrorIsOneClassifiedRecord(t *testing.T) {
	fk := newFake(t)
	fk.src.OpenErr = diag.Diagnostics{diag.New(diag.PlaintextBOM, diag.Document(3, "secrets/x.sops.env", false))}
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p}, req...)...))
	assert.Zero(t, fk.engines())
	assert.Contains(t, fk.out.String(), `"error_class":"plaintext:bom"`)
	assert.Contains(t, fk.out.String(), `"resource":"resource-0003"`)
	// The record renders the diagnostic itself: its text with the
	// registry's next action.
	d := diag.New(diag.PlaintextBOM, diag.Document(3, "", false))
	msg, err := json.Marshal("desired state rejected: " + d.Error())
	require.NoError(t, err)
	assert.Contains(t, fk.out.String(), `"msg":`+string(msg))
	assert.NotContains(t, fk.out.String(), "x.sops.env")
	assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)

	fk = newFake(t)
	fk.src.OpenErr = diag.Diagnostics{diag.New(diag.PlaintextBOM, diag.Document(3, "secrets/x.sops.env", true))}
	fk.exec(context.Background(), append([]string{"sync", "--show-resource-names"}, req...)...)
	assert.Contains(t, fk.out.String(), `"resource":"secrets/x.sops.env"`)
}

func TestAWSConfigErrorIsInvalid(t *testing.T) {
	fk := newFake(t)
	fk.src.PortErr = diag.New(diag.AWSNoRegion, diag.Subject{})
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"plan"}, req...)...))
	assert.Contains(t, fk.out.String(), `"error_class":"aws:no-region"`)
	assert.Zero(t, fk.loads())
}

// A role STS refused stops the run before anything is read: exit 5,
// status observation-failed, the class in the log.
func TestAssumeRoleRefusedIsObservationFailed(t *testing.T) {
	fk := newFake(t)
	fk.src.PortErr = diag.Diagnostics{diag.New(diag.CredentialsAssumeRole, diag.Subject{Setting: "role-arn"})}
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 5, fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--role-arn", "arn:aws:iam::111111111111:role/r"}, req...)...))
	assert.Equal(t, vocab.StatusObservationFailed, readReport(t, p).Status)
	assert.Contains(t, fk.out.String(), `"error_class":"credentials:assume-role"`)
	assert.NotContains(t, fk.out.String(), "111111111111")
	assert.Zero(t, fk.loads()+fk.engines())
}

// The run reads its one scope's settings: a config file with scopes: and
// --scope NAME runs that scope's prefix, Region and recovery window.
func TestOneListedScopeRunsWithItsSettings(t *testing.T) {
	fk := newFake(t)
	fk.files["c.yaml"] = "repository-id: o/r\nrecovery-window-days: 9\nscopes:\n  - name: a\n    secret-prefix: a/app\n  - name: b\n    secret-prefix: b/app\n    aws-region: eu-west-1\n    recovery-window-days: 7\n"
	planPath := filepath.Join(t.TempDir(), "plan.json")
	require.Equal(t, 0, fk.exec(context.Background(), "plan", "--config", "c.yaml", "--scope", "b", "--plan-file", planPath), fk.err.String())
	v, err := planview.ReadFile(planPath)
	require.NoError(t, err)
	require.Len(t, v.Scopes, 1)
	assert.Equal(t, "b", v.Scopes[0].Name, "the plan file names the scope that ran")
	assert.Equal(t, "eu-west-1", v.Scopes[0].Region)
	assert.Equal(t, "b/app", fk.gotReq().SecretPrefix)
	assert.Equal(t, "eu-west-1", fk.scope().AWS.Region)
	assert.Equal(t, 7, fk.scope().Engine.RecoveryWindowDays)

	fk = newFake(t)
	fk.files["c.yaml"] = "repository-id: o/r\nscopes:\n  - name: a\n    secret-prefix: a/app\n  - name: b\n    secret-prefix: b/app\n"
	assert.Equal(t, 3, fk.exec(context.Background(), "plan", "--config", "c.yaml", "--secret-prefix", "x"), "a per-scope flag with scopes: is ambiguous")
	assert.Contains(t, fk.err.String(), "config:scope-ambiguous")
	assert.Zero(t, fk.ports()+fk.loads())
}

// TestRegression_SDKRegionThatIsNoRegionCode: the Region the SDK chain
// chose (AWS_REGION, any text an endpoint override accepts) is shown in the
// plan file only when it is a Region code; otherwise the plan file, which
// accepts no other text, would have been refused after the run.
func TestRegression_SDKRegionThatIsNoRegionCode(t *testing.T) {
	for region, want := range map[string]string{"local": "", "eu-west-1": "eu-west-1"} {
		fk := newFake(t)
		fk.src.Region = region
		planPath := filepath.Join(t.TempDir(), "plan.json")
		require.Equal(t, 0, fk.exec(context.Background(), append([]string{"plan", "--plan-file", planPath}, req...)...), fk.err.String())
		v, err := planview.ReadFile(planPath)
		require.NoError(t, err)
		assert.Equal(t, want, v.Scopes[0].Region, region)
	}
}

func TestCancellationIsInterrupted(t *testing.T) {
	// Signal: the parent context is cancelled while the engine runs.
	fk := newFake(t)
	ctx, cancel := context.WithCancel(context.Background())
	fk.src.Port = blockingPort{Port: fk.src.Port, first: cancel}
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 130, fk.exec(ctx, append([]string{"sync", "--report-file", p}, req...)...))
	assert.Equal(t, vocab.StatusInterrupted, readReport(t, p).Status)
	assert.Contains(t, fk.out.String(), "interrupted:signal")

	// Run timeout.
	fk = newFake(t)
	fk.src.Port = blockingPort{Port: fk.src.Port, first: func() {}}
	p = filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 130, fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--run-timeout", "20ms"}, req...)...))
	assert.Equal(t, vocab.StatusInterrupted, readReport(t, p).Status)
	assert.Contains(t, fk.out.String(), "interrupted:run-timeout")

	// Cancelled while loading the desired state.
	fk = newFake(t)
	fk.src.OpenErr = context.Canceled
	assert.Equal(t, 130, fk.exec(context.Background(), append([]string{"sync"}, req...)...))
	assert.Zero(t, fk.engines())
}

// blockingPort is a port whose ListCandidates (the engine's first call)
// calls first, then waits for the run's context to end.
type blockingPort struct {
	engine.Port
	first func()
}

func (b blockingPort) ListCandidates(ctx context.Context, _ string) ([]engine.Candidate, error) {
	b.first()
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestFlagErrorsNeverQuoteValues(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--bogus=CANARY"}, {"plan", "-CANARY"}, {"plan", "---CANARY"}, {"plan", "--secret-prefix"},
		{"CANARY"}, {"plan", "CANARY"}, {"version", "CANARY"},
	} {
		fk := newFake(t)
		assert.Equal(t, 3, fk.exec(context.Background(), args...), "%v", args)
		assert.NotContains(t, fk.err.String(), "CANARY", "%v", args)
		assert.NotEmpty(t, fk.err.String())
	}
}

// TestStrayArgumentsWithVersionFlagRejected: a positional argument next to
// the root --version flag is a usage error (exit 3) like on every command,
// never the version line and exit 0 (SPEC §2).
func TestStrayArgumentsWithVersionFlagRejected(t *testing.T) {
	for _, args := range [][]string{{"--version", "extra"}, {"extra", "--version"}, {"-v", "extra"}, {"extra"}, {"version", "extra"}} {
		fk := newFake(t)
		assert.Equal(t, 3, fk.exec(context.Background(), args...), "%v", args)
		assert.NotContains(t, fk.out.String(), "v9.9.9", "%v", args)
		assert.NotContains(t, fk.err.String(), "extra", "%v: the argument is not echoed", args)
		assert.Zero(t, fk.loads()+fk.ports()+fk.engines())
	}
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		fk := newFake(t)
		assert.Equal(t, 0, fk.exec(context.Background(), args...), "%v", args)
		assert.Equal(t, "sops-aws-sync v9.9.9 (abc) built 2026-01-01\n", fk.out.String(), "%v", args)
	}
}

// TestMistypedCommandIsUnknownCommand: a mistyped command with plan's flags
// is usage:unknown-command with cobra's suggestion, not "unknown flag", and
// writes the invalid report named by the environment (issue 15, finding 6).
func TestMistypedCommandIsUnknownCommand(t *testing.T) {
	fk := newFake(t)
	p := filepath.Join(t.TempDir(), "r.json")
	fk.env = []string{"SOPS_AWS_SYNC_REPORT_FILE=" + p}
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"plna"}, req...)...))
	assert.Contains(t, fk.err.String(), "(usage:unknown-command)")
	assert.Contains(t, fk.err.String(), "did you mean plan?")
	assert.NotContains(t, fk.err.String(), "unknown flag")
	assert.NotContains(t, fk.err.String(), "plna")
	assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)
	assert.Zero(t, fk.loads()+fk.ports()+fk.engines())

	// Flags before the command keep working; their values are not commands.
	fk = newFake(t)
	assert.Equal(t, 0, fk.exec(context.Background(), "--secret-prefix", "team/app", "plan", "--repository-id", "o/r"))
	fk = newFake(t)
	assert.Equal(t, 3, fk.exec(context.Background(), "--secret-prefix", "team/app", "snyc"))
	assert.Contains(t, fk.err.String(), "did you mean sync?")
}

// TestRepeatedFlagWritesReport: a repeated flag is a usage error that still
// writes the invalid report; a repeated --report-file is ambiguous and
// writes none.
func TestRepeatedFlagWritesReport(t *testing.T) {
	fk := newFake(t)
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--concurrency", "2", "--concurrency", "3"}, req...)...))
	assert.Contains(t, fk.err.String(), "flag --concurrency: is given 2 times; give it once (usage:repeated-flag)")
	assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)

	fk = newFake(t)
	q := filepath.Join(t.TempDir(), "q.json")
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p + "x", "--report-file", q}, req...)...))
	assert.NoFileExists(t, q)
	assert.NoFileExists(t, p+"x")
}

// TestUnwritableReportFileFoundBeforeAWS: the report file is probed before
// the AWS port is built: a missing directory or a directory as the target
// ends the run invalid with report:write-failed, and nothing is loaded,
// built or run (issue 15, finding 2).
func TestUnwritableReportFileFoundBeforeAWS(t *testing.T) {
	for _, p := range []string{filepath.Join(t.TempDir(), "missing", "r.json"), t.TempDir()} {
		fk := newFake(t)
		assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p}, req...)...))
		assert.Zero(t, fk.ports()+fk.loads()+fk.engines(), p)
		assert.Contains(t, fk.out.String(), `"status":"invalid"`)
		assert.Contains(t, fk.out.String(), `"error_class":"report:write-failed"`)
		assert.Contains(t, fk.err.String(), "(report:write-failed)")
	}
	entries, err := os.ReadDir(os.TempDir())
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), ".sops-aws-sync-report-", "the probe removes its temporary file")
	}
}

// TestRegression_UnknownFlagSuggestsTheNearest (issue 30 §6): a mistyped
// flag names the nearest flag of the command, as an unknown config key
// does; a flag of another command (--detailed-exit-code on sync) and a
// word near none get no suggestion.
func TestRegression_UnknownFlagSuggestsTheNearest(t *testing.T) {
	for args, want := range map[string]string{
		"plan --replicas-regions us-west-2": "unknown flag --replicas-regions; did you mean --replica-regions? (usage:unknown-flag)",
		"sync --max-deletion 3":             "unknown flag --max-deletion; did you mean --max-deletions? (usage:unknown-flag)",
		"sync --detailed-exit-code":         "unknown flag --detailed-exit-code (usage:unknown-flag)",
		"plan --zzzzzzzz":                   "unknown flag --zzzzzzzz (usage:unknown-flag)",
	} {
		fk := newFake(t)
		assert.Equal(t, 3, fk.exec(context.Background(), strings.Fields(args)...), args)
		assert.Contains(t, fk.err.String(), want, args)
		assert.Zero(t, fk.loads()+fk.ports()+fk.engines(), args)
	}
}
