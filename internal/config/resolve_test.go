package config

import (
	"errors"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func base() Input {
	return Input{
		Command: "sync",
		Flags:   map[string]string{SecretPrefix: "team/app/", RepositoryID: "owner/repo"},
	}
}

func problems(t *testing.T, err error) diag.Diagnostics {
	t.Helper()
	var ds diag.Diagnostics
	require.True(t, errors.As(err, &ds), "want diag.Diagnostics, got %v", err)
	for _, d := range ds {
		_, ok := diag.Lookup(d.Class)
		require.True(t, ok, "class %s is registered", d.Class)
		require.Equal(t, diag.FamilyConfig, diag.FamilyOf(d.Class))
	}
	return ds
}

func TestResolveDefaults(t *testing.T) {
	o, err := Resolve(base())
	require.NoError(t, err)
	assert.Equal(t, ".", o.Desired.RepoPath)
	assert.Equal(t, "HEAD", o.Desired.Revision)
	assert.Equal(t, "secrets", o.Desired.SourceRoot)
	assert.Equal(t, "team/app", o.Desired.SecretPrefix, "one trailing / trimmed")
	assert.Equal(t, int64(8<<20), o.Desired.MaxEncryptedBytes)
	assert.Equal(t, 30, o.Engine.RecoveryWindowDays)
	assert.Equal(t, 10*time.Minute, o.Run.Timeout)
	assert.Equal(t, 30*time.Second, o.AWS.OperationTimeout)
	assert.Equal(t, 2*time.Minute, o.Engine.VerificationTimeout)
	assert.Equal(t, 0, o.AWS.MaxAttempts)
	assert.Equal(t, time.Duration(0), o.AWS.MaxBackoff)
	assert.Equal(t, "info", o.Output.LogLevel)
	assert.Equal(t, "json", o.Output.LogFormat)
	assert.Equal(t, DefaultConcurrency, o.Engine.Concurrency)
	assert.False(t, o.Engine.AllowEmpty)
	assert.False(t, o.Output.ShowResourceNames)
	assert.Equal(t, SourceDefault, o.Sources[RecoveryWindowDays])
}

func TestPrecedenceFlagOverEnvOverFileOverDefault(t *testing.T) {
	file := []byte("recovery-window-days: 10\nlog-level: warn\nconcurrency: 3\n")
	in := base()
	in.Flags[ConfigFile] = "cfg.yaml"
	in.ReadFile = func(string) ([]byte, error) { return file, nil }
	in.Environ = []string{"SOPS_AWS_SYNC_RECOVERY_WINDOW_DAYS=20", "SOPS_AWS_SYNC_LOG_LEVEL=error", "PATH=/bin"}
	in.Flags[RecoveryWindowDays] = "25"

	o, err := Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, 25, o.Engine.RecoveryWindowDays, "flag beats env and file")
	assert.Equal(t, SourceFlag, o.Sources[RecoveryWindowDays])
	assert.Equal(t, "error", o.Output.LogLevel, "env beats file")
	assert.Equal(t, SourceEnv, o.Sources[LogLevel])
	assert.Equal(t, 3, o.Engine.Concurrency, "file beats default")
	assert.Equal(t, SourceFile, o.Sources[Concurrency])
}

func TestConfigFileReadOnlyWhenGiven(t *testing.T) {
	in := base()
	in.ReadFile = func(string) ([]byte, error) { require.Fail(t, "config file read without --config"); return nil, nil }
	_, err := Resolve(in)
	require.NoError(t, err)
}

func TestRequiredSettings(t *testing.T) {
	_, err := Resolve(Input{Command: "plan", Flags: map[string]string{}})
	ps := problems(t, err)
	require.Len(t, ps, 2)
	for _, p := range ps {
		assert.Equal(t, ClassRequired, p.Class)
	}
	assert.Contains(t, err.Error(), "--repository-id")
	assert.Contains(t, err.Error(), "--secret-prefix")
}

// The canary must never appear in a diagnostic, whatever went wrong.
const canary = "CANARY-7f3a9-sekrit"

func TestRejectedValuesAreNeverEchoed(t *testing.T) {
	cases := []struct {
		name  string
		flags map[string]string
		env   []string
		file  string
		class string
	}{
		{"int flag", map[string]string{RecoveryWindowDays: canary}, nil, "", ClassWrongType},
		{"range", map[string]string{RecoveryWindowDays: "31"}, nil, "", ClassInvalidValue},
		{"bool env", nil, []string{"SOPS_AWS_SYNC_ALLOW_EMPTY=" + canary}, "", ClassWrongType},
		{"unknown env", nil, []string{"SOPS_AWS_SYNC_SECRET_PREFX=" + canary}, "", ClassUnknownEnv},
		{"flag-only env", nil, []string{"SOPS_AWS_SYNC_CONFIG=" + canary}, "", ClassFlagOnly},
		{"duration", map[string]string{RunTimeout: canary}, nil, "", ClassWrongType},
		{"zero duration", map[string]string{RunTimeout: "0s"}, nil, "", ClassInvalidValue},
		{"negative backoff", map[string]string{AWSMaxBackoff: "-1s"}, nil, "", ClassInvalidValue},
		{"size", map[string]string{MaxEncryptedBytes: canary}, nil, "", ClassWrongType},
		{"prefix", map[string]string{SecretPrefix: canary + " x"}, nil, "", ClassInvalidValue},
		{"region", map[string]string{AWSRegion: canary}, nil, "", ClassInvalidValue},
		{"log level", map[string]string{LogLevel: canary}, nil, "", ClassInvalidValue},
		{"log format", map[string]string{LogFormat: canary}, nil, "", ClassInvalidValue},
		{"source root abs", map[string]string{SourceRoot: "/" + canary}, nil, "", ClassInvalidValue},
		{"source root dotdot", map[string]string{SourceRoot: "a/../" + canary}, nil, "", ClassInvalidValue},
		{"source root unclean", map[string]string{SourceRoot: "a//" + canary}, nil, "", ClassInvalidValue},
		{"control chars", map[string]string{RepositoryID: canary + "\x00"}, nil, "", ClassInvalidValue},
		{"unknown key", nil, nil, canary + ": 1\n", ClassUnknownKey},
		{"unknown word key", nil, nil, "secret-prefx: " + canary + "\n", ClassUnknownKey},
		{"file wrong type", nil, nil, "recovery-window-days: " + canary + "\n", ClassWrongType},
		{"file string for int", nil, nil, "recovery-window-days: \"10\"\n", ClassWrongType},
		{"file int for string", nil, nil, "repository-id: 12345\n", ClassWrongType},
		{"file flag-only", nil, nil, "config: " + canary + "\n", ClassFlagOnly},
		{"file detailed", nil, nil, "detailed-exit-code: true\n", ClassFlagOnly},
		{"file duplicate", nil, nil, "log-level: info\nlog-level: " + canary + "\n", ClassInvalidValue},
		{"file not yaml", nil, nil, "{" + canary + ": [\n", ClassFile},
		{"file list", nil, nil, "- " + canary + "\n", ClassFile},
		{"file two docs", nil, nil, "log-level: info\n---\nx: " + canary + "\n", ClassFile},
		{"file alias", nil, nil, "repository-id: &a " + canary + "\nrevision: *a\n", ClassFile},
		{"file mapping value", nil, nil, "revision: {a: " + canary + "}\n", ClassWrongType},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := base()
			for k, v := range tc.flags {
				in.Flags[k] = v
			}
			in.Environ = tc.env
			if tc.file != "" {
				in.Flags[ConfigFile] = "c.yaml"
				in.ReadFile = func(string) ([]byte, error) { return []byte(tc.file), nil }
			}
			_, err := Resolve(in)
			ps := problems(t, err)
			var classes []string
			for _, p := range ps {
				classes = append(classes, p.Class)
			}
			assert.Contains(t, classes, tc.class)
			assert.NotContains(t, err.Error(), canary)
			assert.NotContains(t, strings.ToLower(err.Error()), "sekrit")
		})
	}
}

func TestDiagnosticNamesSettingAndSource(t *testing.T) {
	in := base()
	in.Environ = []string{"SOPS_AWS_SYNC_RECOVERY_WINDOW_DAYS=3"}
	_, err := Resolve(in)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "environment variable SOPS_AWS_SYNC_RECOVERY_WINDOW_DAYS")
	assert.Contains(t, err.Error(), "between 7 and 30")

	in = base()
	in.Flags[RecoveryWindowDays] = "3"
	_, err = Resolve(in)
	assert.Contains(t, err.Error(), "flag --recovery-window-days")
}

func TestAllProblemsReportedAndReportFileStillResolved(t *testing.T) {
	in := base()
	in.Flags[RecoveryWindowDays] = "1"
	in.Flags[LogFormat] = "xml"
	in.Flags[ReportFile] = "/tmp/r.json"
	o, err := Resolve(in)
	assert.Len(t, problems(t, err), 2)
	assert.Equal(t, "/tmp/r.json", o.Output.ReportFile)
}

func TestEmptyEnvIsUnset(t *testing.T) {
	in := base()
	in.Environ = []string{"SOPS_AWS_SYNC_AWS_REGION="}
	o, err := Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, "", o.AWS.Region)
}

func TestDetailedExitCodeOnlyOnPlan(t *testing.T) {
	in := base()
	in.Command = "plan"
	in.Flags[DetailedExitCode] = "true"
	o, err := Resolve(in)
	require.NoError(t, err)
	assert.True(t, o.Run.DetailedExitCode)

	// Without the flag, plan has the setting at its default and another
	// command has no such setting at all.
	in = base()
	in.Command = "plan"
	o, err = Resolve(in)
	require.NoError(t, err)
	assert.False(t, o.Run.DetailedExitCode)
	src, ok := o.Sources[DetailedExitCode]
	assert.True(t, ok && src == SourceDefault, "plan: the default")
	in = base()
	o, err = Resolve(in)
	require.NoError(t, err)
	assert.NotContains(t, o.Sources, DetailedExitCode, "%s: no such setting", in.Command)

	in = base()
	in.Environ = []string{"SOPS_AWS_SYNC_DETAILED_EXIT_CODE=true"}
	_, err = Resolve(in)
	assert.Equal(t, ClassFlagOnly, problems(t, err)[0].Class)
}

func TestConfigFileTypes(t *testing.T) {
	in := base()
	in.Flags[ConfigFile] = "c.yaml"
	in.ReadFile = func(string) ([]byte, error) {
		return []byte(`# comment
repository: ./repo
revision: main
source-root: secrets/prod/
max-encrypted-bytes: 512KiB
allow-empty: true
aws-region: eu-west-1
recovery-window-days: 7
run-timeout: 1m30s
aws-max-attempts: 5
aws-max-backoff: 2s
show-resource-names: false
report-file: out/report.json
concurrency: 1
`), nil
	}
	o, err := Resolve(in)
	require.NoError(t, err)
	assert.Equal(t, "secrets/prod", o.Desired.SourceRoot)
	assert.Equal(t, int64(512<<10), o.Desired.MaxEncryptedBytes)
	assert.True(t, o.Engine.AllowEmpty)
	assert.Equal(t, 7, o.Engine.RecoveryWindowDays)
	assert.Equal(t, 90*time.Second, o.Run.Timeout)
	assert.Equal(t, 5, o.AWS.MaxAttempts)
	assert.Equal(t, 2*time.Second, o.AWS.MaxBackoff)
	assert.Equal(t, 1, o.Engine.Concurrency)
	assert.Equal(t, "out/report.json", o.Output.ReportFile)
}

func TestConfigFileUnreadable(t *testing.T) {
	in := base()
	in.Flags[ConfigFile] = "missing.yaml"
	in.ReadFile = os.ReadFile
	_, err := Resolve(in)
	assert.Equal(t, ClassFile, problems(t, err)[0].Class)
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "10B": 10, "2KiB": 2048, "8MiB": 8 << 20, "1GiB": 1 << 30} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "1KB", "1 MiB", "-1", "1.5MiB", "99999999999999999999", "9999999999GiB", "1mib"} {
		_, err := ParseSize(in)
		assert.Error(t, err, in)
	}
}

func TestEnvNames(t *testing.T) {
	assert.Equal(t, "SOPS_AWS_SYNC_MAX_ENCRYPTED_BYTES", EnvName(MaxEncryptedBytes))
	for _, s := range Settings {
		assert.Equal(t, s.Name, settingForEnv(EnvName(s.Name)))
	}
}

// TestSecretPrefixTrimmedOnlyOnce: exactly one trailing "/" is trimmed, once;
// "t1//" is a configuration error naming the setting (not echoing the
// value), never the prefix "t1" (SPEC §2.1).
func TestSecretPrefixTrimmedOnlyOnce(t *testing.T) {
	for _, v := range []string{"t1", "t1/"} {
		in := base()
		in.Flags[SecretPrefix] = v
		o, err := Resolve(in)
		require.NoError(t, err, v)
		assert.Equal(t, "t1", o.Desired.SecretPrefix, v)
	}
	for _, v := range []string{"t1//", "t1///", "//", canary + "//"} {
		in := base()
		in.Flags[SecretPrefix] = v
		_, err := Resolve(in)
		ps := problems(t, err)
		require.Len(t, ps, 1, v)
		assert.Equal(t, ClassInvalidValue, ps[0].Class, v)
		assert.Contains(t, err.Error(), "--secret-prefix", v)
		assert.NotContains(t, err.Error(), canary, v)
	}
}

// TestConfigFileWithoutSettingsRejected is the regression test of issue 15
// finding 6: an empty config file was accepted while a comment-only one was
// called "not valid YAML". Every file that holds no settings now gets the
// same config:file diagnostic, and valid YAML is never called invalid.
func TestConfigFileWithoutSettingsRejected(t *testing.T) {
	for name, body := range map[string]string{
		"empty":          "",
		"blank":          "  \n\n\t\n",
		"comment-only":   "# settings come from the environment\n",
		"comments-blank": "\n# a\n\n   # b\n",
		"null-document":  "---\n",
		"tilde":          "~\n",
		"empty-mapping":  "{}\n",
	} {
		t.Run(name, func(t *testing.T) {
			out, probs := parseConfig([]byte(body))
			require.Nil(t, out.values)
			require.Len(t, probs, 1)
			assert.Equal(t, ClassFile, probs[0].Class)
			assert.Equal(t, ReasonNoSettings, probs[0].Reason)
		})
	}
	// A comment next to a real setting is fine.
	out, probs := parseConfig([]byte("# team app\nsecret-prefix: team/app # trailing\n"))
	require.Empty(t, probs, "commented file")
	assert.Equal(t, "team/app", out.values["secret-prefix"], "commented file")
}
