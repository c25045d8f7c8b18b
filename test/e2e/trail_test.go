package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTrail_UserAgentAndSessionNamesReachAWS: every AWS call of a run in
// CI carries the SDK application id naming the tool and the run, and the
// tool's version, in its User-Agent (the emulator records each
// operation's); each assumed role's session is named after its first scope and
// the run; neither holds a secret's name or value. GitHub Actions (run id
// and attempt) and GitLab CI (pipeline and job id) alike, and outside CI
// the tool's name alone.
func TestTrail_UserAgentAndSessionNamesReachAWS(t *testing.T) {
	for _, c := range []struct {
		name string
		env  []string
		run  string
	}{
		{"github", []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=9876543210", "GITHUB_RUN_ATTEMPT=3"}, "gh-9876543210-3"},
		{"gitlab", []string{"GITLAB_CI=true", "CI_PIPELINE_ID=123456789", "CI_JOB_ID=55555555555"}, "gl-123456789-55555555555"},
		{"outside CI", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			es := newEstate(t)
			r := es.f.run(es.e, es.opts(es.config(nil), c.env...), "sync")
			require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)

			app := "app/sops-aws-sync"
			if c.run != "" {
				app += "-" + c.run
			}
			uas := es.e.ctl.UserAgents()
			require.Zero(t, uas.Dropped)
			ops := map[string]bool{}
			for _, ua := range uas.UserAgents {
				ops[ua.Operation] = true
				fields := strings.Fields(ua.UserAgent)
				assert.Contains(t, fields, app, "%s: the app id is not in %q", ua.Operation, ua.UserAgent)
				assert.Contains(t, fields, "sops-aws-sync/"+testVersion, "%s: the tool's version is not in %q", ua.Operation, ua.UserAgent)
				assertNoSecret(t, es, "user agent of "+ua.Operation, ua.UserAgent)
			}
			for _, op := range []string{"AssumeRole", "CreateSecret", "ListSecrets", "DescribeSecret"} {
				assert.True(t, ops[op], "no %s recorded: %v", op, ops)
			}

			var names []string
			for _, s := range es.e.ctl.Sessions().Sessions {
				names = append(names, s.SessionName)
				assertNoSecret(t, es, "session name", s.SessionName)
			}
			// One session per role for the run (SPEC §17): prod-us shares
			// prod-eu's role, so its session.
			want := []string{"sops-aws-sync-prod-eu", "sops-aws-sync-staging"}
			if c.run != "" {
				for i := range want {
					want[i] += "@" + c.run
				}
			}
			assert.ElementsMatch(t, want, names)
		})
	}
}

// assertNoSecret fails if text holds a secret's name, ARN, value, document
// path or the run's prefix.
func assertNoSecret(t *testing.T, es *estate, where, text string) {
	t.Helper()
	canaries := append([]string{"CANARY", es.f.Prefix}, es.f.Values...)
	canaries = append(canaries, es.f.Names...)
	for _, s := range es.e.state().Secrets {
		canaries = append(canaries, s.Name, s.ARN)
		for _, v := range s.Versions {
			if v.SecretString != nil {
				canaries = append(canaries, *v.SecretString)
			}
		}
	}
	for _, c := range canaries {
		if c != "" {
			require.NotContains(t, text, c, "a secret's name or value in the %s", where)
		}
	}
}
