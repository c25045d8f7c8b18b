package command

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// testFactory has an environment and config files in memory, and
// dependencies that fail the test when called: the command tests below run
// without Git, SOPS or AWS.
func testFactory(t *testing.T, env []string, files map[string]string) *factory.Factory {
	return &factory.Factory{
		IOStreams: factory.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Environ:   func() []string { return env },
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := files[name]; ok {
				return []byte(s), nil
			}
			return nil, os.ErrNotExist
		},
		Now: time.Now,
		LoadDesired: func(context.Context, config.Desired) (model.State, error) {
			assert.Fail(t, "the command test reached Git")
			return model.State{}, nil
		},
		NewPort: func(context.Context, config.AWS) (engine.Port, error) {
			assert.Fail(t, "the command test reached AWS")
			return nil, nil
		},
		RunEngine: func(context.Context, engine.Config, model.State, engine.Port, *slog.Logger) engine.Result {
			assert.Fail(t, "the command test ran the engine")
			return engine.Result{}
		},
	}
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
