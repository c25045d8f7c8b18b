package root

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const sha = "89abcdef0123456789abcdef0123456789abcdef"

// fake is a Factory whose dependencies are in-memory stand-ins: these are
// unit tests of the CLI's wiring (the e2e tests run the real pieces).
type fake struct {
	f        *factory.Factory
	out, err bytes.Buffer
	env      []string
	files    map[string]string
	loads    int
	ports    int
	engines  int
	result   engine.Result
	loadErr  error
	portErr  error
	gotCfg   engine.Config
	gotReq   config.Desired
	block    bool // RunEngine waits for cancellation
}

func newFake() *fake {
	fk := &fake{files: map[string]string{}, result: engine.Result{Status: vocab.StatusConverged, Verification: vocab.VerificationConverged}}
	fk.f = &factory.Factory{
		IOStreams: factory.IOStreams{In: strings.NewReader(""), Out: &fk.out, ErrOut: &fk.err},
		Build:     factory.BuildInfo{Version: "v9.9.9", Commit: "abc", Date: "2026-01-01"},
		Environ:   func() []string { return fk.env },
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := fk.files[name]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		},
		Now: time.Now,
		LoadDesired: func(ctx context.Context, r config.Desired) (model.State, error) {
			fk.loads++
			fk.gotReq = r
			if fk.loadErr != nil {
				return model.State{}, fk.loadErr
			}
			return model.State{Commit: sha}, nil
		},
		NewPort: func(ctx context.Context, o config.AWS) (engine.Port, error) {
			fk.ports++
			return nil, fk.portErr
		},
		RunEngine: func(ctx context.Context, cfg engine.Config, want model.State, sm engine.Port, log *slog.Logger) engine.Result {
			fk.engines++
			fk.gotCfg = cfg
			if fk.block {
				<-ctx.Done()
				return engine.Result{Status: vocab.StatusApplyFailed, Verification: vocab.VerificationNotRun}
			}
			return fk.result
		},
	}
	return fk
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
		fk := newFake()
		fk.env = []string{"SOPS_AWS_SYNC_BOGUS=1"}
		assert.Equal(t, 0, fk.exec(context.Background(), args...), "%v", args)
		assert.Zero(t, fk.loads+fk.ports+fk.engines)
		assert.Empty(t, fk.err.String())
	}
	fk := newFake()
	fk.exec(context.Background(), "version")
	assert.Equal(t, "sops-aws-sync v9.9.9 (abc) built 2026-01-01\n", fk.out.String())
}

func TestSyncConvergedWritesReport(t *testing.T) {
	fk := newFake()
	p := filepath.Join(t.TempDir(), "r.json")
	fk.result.Counts = vocab.Counts{Create: 2}
	code := fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--concurrency", "3", "--allow-empty"}, req...)...)
	require.Equal(t, 0, code, fk.err.String())
	r := readReport(t, p)
	assert.Equal(t, vocab.StatusConverged, r.Status)
	assert.Equal(t, sha, r.GitRevision)
	assert.Equal(t, "v9.9.9", r.ToolVersion)
	assert.Equal(t, 2, r.Counts.Create)
	assert.Equal(t, engine.ModeSync, fk.gotCfg.Mode)
	assert.Equal(t, 3, fk.gotCfg.Concurrency)
	assert.True(t, fk.gotCfg.AllowEmpty)
	assert.Equal(t, 30, fk.gotCfg.RecoveryWindowDays)
	assert.Equal(t, "team/app", fk.gotReq.SecretPrefix)
	assert.Equal(t, "secrets", fk.gotReq.SourceRoot)
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
	fk := newFake()
	fk.result = engine.Result{Status: vocab.StatusDrift, Verification: vocab.VerificationConverged}
	assert.Equal(t, 2, fk.exec(context.Background(), append([]string{"plan", "--detailed-exit-code"}, req...)...))
	assert.Equal(t, engine.ModePlan, fk.gotCfg.Mode)
	assert.Equal(t, 0, fk.exec(context.Background(), append([]string{"plan"}, req...)...))

	// Plan reports verification not-run whatever the engine said.
	p := filepath.Join(t.TempDir(), "r.json")
	fk.exec(context.Background(), append([]string{"plan", "--report-file", p}, req...)...)
	assert.Equal(t, vocab.VerificationNotRun, readReport(t, p).Verification)
}

func TestStatusesMapToExitCodes(t *testing.T) {
	for status, code := range map[vocab.Status]int{
		vocab.StatusConflict: 4, vocab.StatusApplyFailed: 5, vocab.StatusObservationFailed: 5,
		vocab.StatusVerificationFailed: 6, vocab.StatusVerificationInconclusive: 6, vocab.StatusInvalid: 3,
	} {
		fk := newFake()
		fk.result = engine.Result{Status: status, Verification: vocab.VerificationNotRun}
		p := filepath.Join(t.TempDir(), "r.json")
		assert.Equal(t, code, fk.exec(context.Background(), append([]string{"sync", "--report-file", p}, req...)...), status)
		assert.Equal(t, status, readReport(t, p).Status)
		assert.Empty(t, fk.err.String(), "run outcomes are not stderr diagnostics")
	}
}

func TestInvalidConfigurationWritesReportAndTouchesNothing(t *testing.T) {
	fk := newFake()
	p := filepath.Join(t.TempDir(), "r.json")
	fk.files["c.yaml"] = "secret-prefx: CANARY\n"
	code := fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--config", "c.yaml"}, req...)...)
	assert.Equal(t, 3, code)
	assert.Zero(t, fk.loads+fk.ports+fk.engines)
	assert.Contains(t, fk.err.String(), "secret-prefx")
	assert.NotContains(t, fk.err.String(), "CANARY")
	assert.Empty(t, fk.out.String(), "nothing logged before the log settings are valid")
	r := readReport(t, p)
	assert.Equal(t, vocab.StatusInvalid, r.Status)
	assert.Equal(t, "", r.GitRevision)
}

func TestUsageErrorsStillWriteReport(t *testing.T) {
	for _, extra := range [][]string{{"--bogus=CANARY"}, {"CANARY"}, {"-x"}} {
		fk := newFake()
		p := filepath.Join(t.TempDir(), "r.json")
		args := append(append([]string{"plan", "--report-file", p}, req...), extra...)
		assert.Equal(t, 3, fk.exec(context.Background(), args...))
		assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)
		assert.NotContains(t, fk.err.String(), "CANARY")
		assert.Zero(t, fk.loads+fk.ports+fk.engines)
	}
	// From the environment too.
	fk := newFake()
	p := filepath.Join(t.TempDir(), "r.json")
	fk.env = []string{"SOPS_AWS_SYNC_REPORT_FILE=" + p}
	assert.Equal(t, 3, fk.exec(context.Background(), "sync", "--nope"))
	assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)
}

func TestReportWriteFailureForcesExit3(t *testing.T) {
	fk := newFake()
	p := filepath.Join(t.TempDir(), "missing", "r.json")
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p}, req...)...))
	assert.Contains(t, fk.out.String(), "report:write-failed")
	assert.Contains(t, fk.err.String(), "report:write-failed")
}

func TestDesiredErrorIsOneClassifiedRecord(t *testing.T) {
	fk := newFake()
	fk.loadErr = diag.Diagnostics{diag.New(diag.PlaintextBOM, diag.Document(3, "secrets/x.sops.env", false))}
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p}, req...)...))
	assert.Zero(t, fk.engines)
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

	fk = newFake()
	fk.loadErr = diag.Diagnostics{diag.New(diag.PlaintextBOM, diag.Document(3, "secrets/x.sops.env", true))}
	fk.exec(context.Background(), append([]string{"sync", "--show-resource-names"}, req...)...)
	assert.Contains(t, fk.out.String(), `"resource":"secrets/x.sops.env"`)
}

func TestAWSConfigErrorIsInvalid(t *testing.T) {
	fk := newFake()
	fk.portErr = diag.New(diag.AWSNoRegion, diag.Subject{})
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"plan"}, req...)...))
	assert.Contains(t, fk.out.String(), `"error_class":"aws:no-region"`)
	assert.Zero(t, fk.loads)
}

// A role STS refused stops the run before anything is read: exit 5,
// status observation-failed, the class in the log.
func TestAssumeRoleRefusedIsObservationFailed(t *testing.T) {
	fk := newFake()
	fk.portErr = diag.Diagnostics{diag.New(diag.CredentialsAssumeRole, diag.Subject{Setting: "role-arn"})}
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 5, fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--role-arn", "arn:aws:iam::111111111111:role/r"}, req...)...))
	assert.Equal(t, vocab.StatusObservationFailed, readReport(t, p).Status)
	assert.Contains(t, fk.out.String(), `"error_class":"credentials:assume-role"`)
	assert.NotContains(t, fk.out.String(), "111111111111")
	assert.Zero(t, fk.loads+fk.engines)
}

// The run reads its one scope's settings: a config file with scopes: and
// --scope NAME runs that scope's prefix, Region and recovery window.
func TestOneListedScopeRunsWithItsSettings(t *testing.T) {
	fk := newFake()
	fk.files["c.yaml"] = "repository-id: o/r\nrecovery-window-days: 9\nscopes:\n  - name: a\n    secret-prefix: a/app\n  - name: b\n    secret-prefix: b/app\n    aws-region: eu-west-1\n    recovery-window-days: 7\n"
	var gotAWS config.AWS
	fk.f.NewPort = func(_ context.Context, o config.AWS) (engine.Port, error) { gotAWS = o; return nil, nil }
	planPath := filepath.Join(t.TempDir(), "plan.json")
	require.Equal(t, 0, fk.exec(context.Background(), "plan", "--config", "c.yaml", "--scope", "b", "--plan-file", planPath), fk.err.String())
	v, err := planview.ReadFile(planPath)
	require.NoError(t, err)
	require.Len(t, v.Scopes, 1)
	assert.Equal(t, "b", v.Scopes[0].Name, "the plan file names the scope that ran")
	assert.Equal(t, "eu-west-1", v.Scopes[0].Region)
	assert.Equal(t, "b/app", fk.gotReq.SecretPrefix)
	assert.Equal(t, "eu-west-1", gotAWS.Region)
	assert.Equal(t, 7, fk.gotCfg.RecoveryWindowDays)

	fk = newFake()
	fk.files["c.yaml"] = "repository-id: o/r\nscopes:\n  - name: a\n    secret-prefix: a/app\n  - name: b\n    secret-prefix: b/app\n"
	assert.Equal(t, 3, fk.exec(context.Background(), "plan", "--config", "c.yaml", "--secret-prefix", "x"), "a per-scope flag with scopes: is ambiguous")
	assert.Contains(t, fk.err.String(), "config:scope-ambiguous")
	assert.Zero(t, fk.ports+fk.loads)
}

// TestRegression_SDKRegionThatIsNoRegionCode: the Region the SDK chain
// chose (AWS_REGION, any text an endpoint override accepts) is shown in the
// plan file only when it is a Region code; otherwise the plan file, which
// accepts no other text, would have been refused after the run.
func TestRegression_SDKRegionThatIsNoRegionCode(t *testing.T) {
	for region, want := range map[string]string{"local": "", "eu-west-1": "eu-west-1"} {
		fk := newFake()
		fk.f.NewPorts = func(_ context.Context, scopes, _ []config.Scope) ([]factory.ScopePort, error) {
			return []factory.ScopePort{{Name: scopes[0].Name, Region: region, Bucket: "b"}}, nil
		}
		planPath := filepath.Join(t.TempDir(), "plan.json")
		require.Equal(t, 0, fk.exec(context.Background(), append([]string{"plan", "--plan-file", planPath}, req...)...), fk.err.String())
		v, err := planview.ReadFile(planPath)
		require.NoError(t, err)
		assert.Equal(t, want, v.Scopes[0].Region, region)
	}
}

func TestCancellationIsInterrupted(t *testing.T) {
	// Signal: the parent context is cancelled while the engine runs.
	fk := newFake()
	fk.block = true
	ctx, cancel := context.WithCancel(context.Background())
	fk.f.RunEngine = func(c context.Context, cfg engine.Config, want model.State, sm engine.Port, log *slog.Logger) engine.Result {
		cancel()
		<-c.Done()
		return engine.Result{Status: vocab.StatusApplyFailed, Verification: vocab.VerificationNotRun}
	}
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 130, fk.exec(ctx, append([]string{"sync", "--report-file", p}, req...)...))
	assert.Equal(t, vocab.StatusInterrupted, readReport(t, p).Status)
	assert.Contains(t, fk.out.String(), "interrupted:signal")

	// Run timeout.
	fk = newFake()
	fk.block = true
	p = filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 130, fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--run-timeout", "20ms"}, req...)...))
	assert.Equal(t, vocab.StatusInterrupted, readReport(t, p).Status)
	assert.Contains(t, fk.out.String(), "interrupted:run-timeout")

	// Cancelled while loading the desired state.
	fk = newFake()
	fk.loadErr = context.Canceled
	assert.Equal(t, 130, fk.exec(context.Background(), append([]string{"sync"}, req...)...))
	assert.Zero(t, fk.engines)
}

func TestFlagErrorsNeverQuoteValues(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--bogus=CANARY"}, {"plan", "-CANARY"}, {"plan", "---CANARY"}, {"plan", "--secret-prefix"},
		{"CANARY"}, {"plan", "CANARY"}, {"version", "CANARY"},
	} {
		fk := newFake()
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
		fk := newFake()
		assert.Equal(t, 3, fk.exec(context.Background(), args...), "%v", args)
		assert.NotContains(t, fk.out.String(), "v9.9.9", "%v", args)
		assert.NotContains(t, fk.err.String(), "extra", "%v: the argument is not echoed", args)
		assert.Zero(t, fk.loads+fk.ports+fk.engines)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		fk := newFake()
		assert.Equal(t, 0, fk.exec(context.Background(), args...), "%v", args)
		assert.Equal(t, "sops-aws-sync v9.9.9 (abc) built 2026-01-01\n", fk.out.String(), "%v", args)
	}
}

// TestMistypedCommandIsUnknownCommand: a mistyped command with plan's flags
// is usage:unknown-command with cobra's suggestion, not "unknown flag", and
// writes the invalid report named by the environment (issue 15, finding 6).
func TestMistypedCommandIsUnknownCommand(t *testing.T) {
	fk := newFake()
	p := filepath.Join(t.TempDir(), "r.json")
	fk.env = []string{"SOPS_AWS_SYNC_REPORT_FILE=" + p}
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"plna"}, req...)...))
	assert.Contains(t, fk.err.String(), "(usage:unknown-command)")
	assert.Contains(t, fk.err.String(), "did you mean plan?")
	assert.NotContains(t, fk.err.String(), "unknown flag")
	assert.NotContains(t, fk.err.String(), "plna")
	assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)
	assert.Zero(t, fk.loads+fk.ports+fk.engines)

	// Flags before the command keep working; their values are not commands.
	fk = newFake()
	assert.Equal(t, 0, fk.exec(context.Background(), "--secret-prefix", "team/app", "plan", "--repository-id", "o/r"))
	fk = newFake()
	assert.Equal(t, 3, fk.exec(context.Background(), "--secret-prefix", "team/app", "snyc"))
	assert.Contains(t, fk.err.String(), "did you mean sync?")
}

// TestRepeatedFlagWritesReport: a repeated flag is a usage error that still
// writes the invalid report; a repeated --report-file is ambiguous and
// writes none.
func TestRepeatedFlagWritesReport(t *testing.T) {
	fk := newFake()
	p := filepath.Join(t.TempDir(), "r.json")
	assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p, "--concurrency", "2", "--concurrency", "3"}, req...)...))
	assert.Contains(t, fk.err.String(), "flag --concurrency: is given 2 times; give it once (usage:repeated-flag)")
	assert.Equal(t, vocab.StatusInvalid, readReport(t, p).Status)

	fk = newFake()
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
		fk := newFake()
		assert.Equal(t, 3, fk.exec(context.Background(), append([]string{"sync", "--report-file", p}, req...)...))
		assert.Zero(t, fk.ports+fk.loads+fk.engines, p)
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
