package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"filippo.io/age"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func newRecipient() (string, error) {
	id, err := age.GenerateX25519Identity()
	if err != nil {
		return "", err
	}
	return id.Recipient().String(), nil
}

// isJSONLog reports whether every stdout line is a JSON record.
func isJSONLog(stdout string) bool {
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		if !json.Valid([]byte(l)) {
			return false
		}
	}
	return strings.TrimSpace(stdout) != ""
}

// TestPrecedence_FlagOverEnvOverConfigFile shows SPEC §2.1's order with
// --log-format, whose effect is visible on stdout.
func TestPrecedence_FlagOverEnvOverConfigFile(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	cfg := runOpts{Config: "log-format: text\nrecovery-window-days: 7\n"}

	r := f.run(e, cfg, f.args("plan")...)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.False(t, isJSONLog(r.Stdout), "config file sets text")
	assert.Contains(t, r.Stdout, "msg=\"run finished\"")

	cfg.Env = []string{"SOPS_AWS_SYNC_LOG_FORMAT=json"}
	r = f.run(e, cfg, f.args("plan")...)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.True(t, isJSONLog(r.Stdout), "environment beats config file")

	r = f.run(e, cfg, f.args("plan", "--log-format", "text")...)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.False(t, isJSONLog(r.Stdout), "flag beats environment")

	// Default when nothing is given: json.
	r = f.run(e, runOpts{}, f.args("plan")...)
	assert.True(t, isJSONLog(r.Stdout))
}

var versionLine = regexp.MustCompile(`^sops-aws-sync \S+ \(\S+\) built \S+\n$`)

// TestHelpAndVersionTouchNothing: help and version read no configuration,
// environment or AWS — a poisoned environment and config changes nothing.
func TestHelpAndVersionTouchNothing(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	poison := runOpts{NoReport: true, Env: []string{"SOPS_AWS_SYNC_BOGUS=1", "SOPS_AWS_SYNC_RECOVERY_WINDOW_DAYS=CANARY-x"}}
	want := "sops-aws-sync " + testVersion + " (" + testCommit + ") built " + testDate + "\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		r := f.run(e, poison, args...)
		assert.Equal(t, 0, r.Code)
		assert.Equal(t, want, r.Stdout)
		assert.Regexp(t, versionLine, r.Stdout)
		assert.Empty(t, r.Stderr)
	}
	for _, args := range [][]string{{"--help"}, {"plan", "--help"}, {"sync", "-h"}, {}} {
		r := f.run(e, poison, args...)
		assert.Equal(t, 0, r.Code, "%v: %s", args, r.Stderr)
		assert.Contains(t, r.Stdout, "Usage:")
		assert.Empty(t, r.Stderr)
	}
	r := f.run(e, poison, "plan", "--help")
	for _, flag := range []string{"--repository", "--revision", "--repository-id", "--source-root", "--secret-prefix",
		"--max-encrypted-bytes", "--allow-empty", "--aws-region", "--aws-profile", "--recovery-window-days",
		"--run-timeout", "--operation-timeout", "--verification-timeout", "--aws-max-attempts", "--aws-max-backoff",
		"--log-level", "--log-format", "--show-resource-names", "--report-file", "--config", "--detailed-exit-code", "--concurrency"} {
		assert.Contains(t, r.Stdout, flag)
	}
	r = f.run(e, poison, "sync", "--help")
	assert.NotContains(t, r.Stdout, "--detailed-exit-code", "plan only")
	assert.Empty(t, e.stats().Calls)

	// An unknown command is exit 3 without echoing it.
	r = f.run(e, runOpts{NoReport: true}, "CANARY-command")
	assert.Equal(t, vocab.ExitInvalid, r.Code)
}
