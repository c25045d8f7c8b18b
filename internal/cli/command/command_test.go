package command

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awssm"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run/runtest"
)

// testFactory is the production factory (factory.New) with an
// environment and config files in memory and Sources that fail the test
// when called: the command tests below run without Git, SOPS or AWS.
func testFactory(t *testing.T, env []string, files map[string]string) *factory.Factory {
	f := factory.New(factory.BuildInfo{})
	f.IOStreams = factory.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	f.Host = memHost{env, files}
	f.Sources = unreachable{t}
	return f
}

// memHost is a factory.Host in memory: an environment and config files
// by name.
type memHost struct {
	env   []string
	files map[string]string
}

func (h memHost) Environ() []string { return h.env }

func (h memHost) ReadFile(name string) ([]byte, error) {
	if s, ok := h.files[name]; ok {
		return []byte(s), nil
	}
	return nil, os.ErrNotExist
}

// unreachable is a run.Sources that fails the test when the run reaches
// AWS, Git or SOPS.
type unreachable struct{ t *testing.T }

func (u unreachable) Ports(context.Context, []config.Scope, []config.Scope, int) ([]run.ScopePort, error) {
	assert.Fail(u.t, "the command test reached AWS")
	return nil, errors.New("unreachable")
}

func (u unreachable) Revision(config.Desired) (string, error) {
	assert.Fail(u.t, "the command test reached Git")
	return "", errors.New("unreachable")
}

func (u unreachable) Open(context.Context, config.Desired) (run.Load, error) {
	assert.Fail(u.t, "the command test reached Git")
	return nil, errors.New("unreachable")
}

// emulatorSources are the Sources of a run over a new emulator (the real
// SDK client and the awssm adapter) with docs as every scope's documents.
func emulatorSources(t *testing.T, docs map[string]string) *runtest.Sources {
	srv := emulatortest.Start(t)
	return &runtest.Sources{Port: awssm.New(srv.Client(t), awssm.Options{}), Docs: docs}
}

// execute runs cmd on args; it returns the Options runF saw (nil when runF
// was not called) and the command's error.
func execute(t *testing.T, newCmd func(*factory.Factory, func(context.Context, *Options) error) *cobra.Command,
	f *factory.Factory, args ...string) (*Options, error) {
	t.Helper()
	var got *Options
	cmd := newCmd(f, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return got, cmd.ExecuteContext(context.Background())
}

func classes(t *testing.T, err error) []string {
	t.Helper()
	var ds diag.Diagnostics
	require.True(t, errors.As(err, &ds), "want diagnostics, got %v", err)
	var out []string
	for _, d := range ds {
		out = append(out, d.Class)
	}
	return out
}

var required = []string{"--secret-prefix", "team/app", "--repository-id", "o/r"}

// TestNewCmdPlan: the typed options plan hands to its run, resolved flag >
// environment > config file > default, and validation, without Git or AWS.
func TestNewCmdPlan(t *testing.T) {
	file := map[string]string{"c.yaml": "recovery-window-days: 10\nlog-level: warn\nsource-root: from-file\nsecret-prefix: file/prefix\n"}
	env := []string{"SOPS_AWS_SYNC_RECOVERY_WINDOW_DAYS=20", "SOPS_AWS_SYNC_LOG_LEVEL=error", "SOPS_AWS_SYNC_REPOSITORY_ID=env/repo"}

	t.Run("defaults", func(t *testing.T) {
		o, err := execute(t, NewCmdPlan, testFactory(t, nil, nil), required...)
		require.NoError(t, err)
		require.NotNil(t, o)
		assert.Equal(t, "plan", o.Command)
		assert.Equal(t, engine.ModePlan, o.Mode)
		assert.Equal(t, "team/app", o.Config.Desired.SecretPrefix)
		assert.Equal(t, "o/r", o.Config.Desired.RepositoryID)
		assert.Equal(t, "secrets", o.Config.Desired.SourceRoot)
		assert.Equal(t, "HEAD", o.Config.Desired.Revision)
		assert.Equal(t, 30, o.Config.Engine.RecoveryWindowDays)
		assert.False(t, o.Config.Run.DetailedExitCode)
	})
	t.Run("flag beats environment beats config file beats default", func(t *testing.T) {
		o, err := execute(t, NewCmdPlan, testFactory(t, env, file),
			"--config", "c.yaml", "--recovery-window-days", "25", "--detailed-exit-code")
		require.NoError(t, err)
		require.NotNil(t, o)
		assert.Equal(t, 25, o.Config.Engine.RecoveryWindowDays, "flag over env and file")
		assert.Equal(t, "error", o.Config.Output.LogLevel, "env over file")
		assert.Equal(t, "from-file", o.Config.Desired.SourceRoot, "file over default")
		assert.Equal(t, "file/prefix", o.Config.Desired.SecretPrefix, "required setting from the file")
		assert.Equal(t, "env/repo", o.Config.Desired.RepositoryID, "required setting from the environment")
		assert.True(t, o.Config.Run.DetailedExitCode, "plan-only flag")
		assert.Equal(t, config.SourceFlag, o.Config.Sources[config.RecoveryWindowDays])
		assert.Equal(t, config.SourceEnv, o.Config.Sources[config.LogLevel])
		assert.Equal(t, config.SourceFile, o.Config.Sources[config.SourceRoot])
	})
	t.Run("validation", func(t *testing.T) {
		for name, c := range map[string]struct {
			args  []string
			env   []string
			class string
		}{
			"required missing":    {args: []string{"--secret-prefix", "a"}, class: diag.ConfigRequired},
			"out of range":        {args: append([]string{"--recovery-window-days", "6"}, required...), class: diag.ConfigInvalidValue},
			"wrong type":          {args: append([]string{"--concurrency", "many"}, required...), class: diag.ConfigWrongType},
			"unknown environment": {args: required, env: []string{"SOPS_AWS_SYNC_SECRET_PREFX=x"}, class: diag.ConfigUnknownEnv},
		} {
			o, err := execute(t, NewCmdPlan, testFactory(t, c.env, nil), c.args...)
			assert.Nil(t, o, "%s: runF is not called with invalid options", name)
			var re *exitcode.RunError
			require.True(t, errors.As(err, &re), name)
			assert.Equal(t, 3, exitcode.For(err), name)
			assert.Contains(t, classes(t, err), c.class, name)
		}
	})
}

// TestNewCmdSync: sync hands the same typed options, in sync mode, and has
// no plan-only flag.
func TestNewCmdSync(t *testing.T) {
	o, err := execute(t, NewCmdSync, testFactory(t, []string{"SOPS_AWS_SYNC_ALLOW_EMPTY=true"}, nil),
		append([]string{"--concurrency", "3", "--operation-timeout", "5s"}, required...)...)
	require.NoError(t, err)
	require.NotNil(t, o)
	assert.Equal(t, "sync", o.Command)
	assert.Equal(t, engine.ModeSync, o.Mode)
	assert.Equal(t, 3, o.Config.Engine.Concurrency)
	assert.Equal(t, 5*time.Second, o.Config.AWS.OperationTimeout)
	assert.True(t, o.Config.Engine.AllowEmpty, "from the environment")

	o, err = execute(t, NewCmdSync, testFactory(t, nil, nil), append([]string{"--detailed-exit-code"}, required...)...)
	assert.Nil(t, o)
	assert.Error(t, err, "--detailed-exit-code is plan-only")
}

// TestRepeatedFlagIsUsageError: a flag given twice is usage:repeated-flag
// (exit 3), naming the flag and never its values, instead of the last
// value silently winning (issue 15, finding 6).
func TestRepeatedFlagIsUsageError(t *testing.T) {
	for _, args := range [][]string{
		{"--secret-prefix", "CANARY-a", "--secret-prefix", "CANARY-b", "--repository-id", "o/r"},
		append([]string{"--allow-empty", "--allow-empty=false"}, required...),
	} {
		for _, newCmd := range []func(*factory.Factory, func(context.Context, *Options) error) *cobra.Command{NewCmdPlan, NewCmdSync} {
			o, err := execute(t, newCmd, testFactory(t, nil, nil), args...)
			assert.Nil(t, o, "%v", args)
			assert.Equal(t, []string{diag.UsageRepeatedFlag}, classes(t, err), "%v", args)
			assert.Equal(t, 3, exitcode.For(err))
			lines := strings.Join(exitcode.Lines(err), "\n")
			assert.NotContains(t, lines, "CANARY")
			assert.Contains(t, lines, "flag --")
		}
	}
}

// TestStrayArgumentIsUsageError: positional arguments are refused before
// anything is resolved, without quoting them.
func TestStrayArgumentIsUsageError(t *testing.T) {
	o, err := execute(t, NewCmdPlan, testFactory(t, nil, nil), append([]string{"CANARY"}, required...)...)
	assert.Nil(t, o)
	assert.Equal(t, []string{diag.UsageStrayArgument}, classes(t, err))
	assert.NotContains(t, err.Error(), "CANARY")
}

// TestRegression_TagFlagValueWithLineBreak: one --tag value holding a line
// break is config:invalid-value (exit 3) naming the flag, never two tags
// (the repeated flag's pairs are joined by newlines), and never echoes it.
func TestRegression_TagFlagValueWithLineBreak(t *testing.T) {
	for _, v := range []string{"team=CANARY-a\nenv=CANARY-b", "team=CANARY-a\r", "team=CANARY-a\r\nenv=x"} {
		for _, newCmd := range []func(*factory.Factory, func(context.Context, *Options) error) *cobra.Command{NewCmdPlan, NewCmdSync} {
			o, err := execute(t, newCmd, testFactory(t, nil, nil), append([]string{"--tag", "ok=1", "--tag", v}, required...)...)
			assert.Nil(t, o, "%q", v)
			assert.Equal(t, []string{diag.ConfigInvalidValue}, classes(t, err), "%q", v)
			assert.Equal(t, 3, exitcode.For(err))
			lines := strings.Join(exitcode.Lines(err), "\n")
			assert.NotContains(t, lines, "CANARY")
			assert.Contains(t, lines, "flag --tag")
		}
	}
	o, err := execute(t, NewCmdSync, testFactory(t, nil, nil), append([]string{"--tag", "team=a", "--tag", "env=b"}, required...)...)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"team": "a", "env": "b"}, o.Config.Engine.Metadata.Tags, "one pair per flag still works")
}

// TestCommandTestsRunTheProductionPath: the factory of the command tests
// is factory.New's but for the process's streams, its Host (environment
// and files) and the run's Sources (what a run reads from outside; the
// factory holds no function, TestNoHooksOnTheWayIn), so every command
// test composes its run as production does (run.Execute over the engine);
// and a run on the emulator shows the engine's own records, the values
// arriving while the scope is observed.
func TestCommandTestsRunTheProductionPath(t *testing.T) {
	replaced := map[string]bool{"IOStreams": true, "Host": true, "Sources": true}
	prod, test := reflect.ValueOf(*factory.New(factory.BuildInfo{})), reflect.ValueOf(*testFactory(t, nil, nil))
	for i := range prod.NumField() {
		name := prod.Type().Field(i).Name
		if replaced[name] {
			continue
		}
		p, q := prod.Field(i), test.Field(i)
		same := reflect.DeepEqual(p.Interface(), q.Interface())
		assert.True(t, same, "the command tests' factory replaces %s: the tests would not run the production path", name)
	}

	f := testFactory(t, nil, nil)
	f.Sources = emulatorSources(t, map[string]string{"a": `{"k":"1"}`})
	out, err := runReal(t, f, required...)
	require.NoError(t, err)
	for _, msg := range []string{`"msg":"desired state loaded"`, `"msg":"plan built"`, `"msg":"run finished"`} {
		assert.Contains(t, out, msg)
	}
}

// TestEveryFlagThatIsNoSettingIsDocumented: issue 44 §4. sync's
// --changes-file, a flag of the command and no setting, was in neither the
// settings table of docs/configuration.md (checked against the
// declarations by config's TestConfigurationDocMatchesSettings) nor
// anywhere else on that page. Every flag of plan, sync and validate that
// is no setting (config.Lookup) is named there as `--NAME`.
func TestEveryFlagThatIsNoSettingIsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../../docs/configuration.md")
	require.NoError(t, err)
	f := testFactory(t, nil, nil)
	seen := 0
	for _, cmd := range []*cobra.Command{NewCmdPlan(f, nil), NewCmdSync(f, nil), NewCmdValidate(f, nil)} {
		cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			if _, ok := config.Lookup(fl.Name); ok || fl.Name == "help" {
				return
			}
			seen++
			assert.Contains(t, string(data), "`--"+fl.Name, "%s --%s is no setting and docs/configuration.md does not name it", cmd.Name(), fl.Name)
		})
	}
	assert.GreaterOrEqual(t, seen, 4, "reviewed-plan, changes-file, no-decrypt, source-roots-file at least")
}
