package factory

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// stsSessionName is STS's RoleSessionName rule (AssumeRole API reference).
var stsSessionName = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)

// uaToken is the characters the SDK keeps in a User-Agent value (others
// become "-"): the app id must need no rewriting to be found again.
var uaToken = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,50}$")

func TestTrailOf_TheCIRun(t *testing.T) {
	for _, c := range []struct {
		name    string
		env     []string
		run     string
		app     string
		session string
	}{
		{"no CI", []string{"GITHUB_RUN_ID=1"}, "", "sops-aws-sync", "sops-aws-sync-prod"},
		{"GitHub Actions", []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=12345678901", "GITHUB_RUN_ATTEMPT=2"},
			"gh-12345678901-2", "sops-aws-sync-gh-12345678901-2", "sops-aws-sync-prod@gh-12345678901-2"},
		{"GitLab CI", []string{"GITLAB_CI=true", "CI_PIPELINE_ID=1234567890", "CI_JOB_ID=98765432101"},
			"gl-1234567890-98765432101", "sops-aws-sync-gl-1234567890-98765432101", "sops-aws-sync-prod@gl-1234567890-98765432101"},
		{"GitHub without attempt", []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=1"}, "", "sops-aws-sync", "sops-aws-sync-prod"},
		{"a run id that is not digits", []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=1;rm", "GITHUB_RUN_ATTEMPT=1"}, "", "sops-aws-sync", "sops-aws-sync-prod"},
		{"a number too long", []string{"GITLAB_CI=true", "CI_PIPELINE_ID=" + strings.Repeat("9", 20), "CI_JOB_ID=1"}, "", "sops-aws-sync", "sops-aws-sync-prod"},
		{"GITHUB_ACTIONS not true", []string{"GITHUB_ACTIONS=1", "GITHUB_RUN_ID=1", "GITHUB_RUN_ATTEMPT=1"}, "", "sops-aws-sync", "sops-aws-sync-prod"},
	} {
		tr := TrailOf(c.env, "v1.0.0")
		assert.Equal(t, c.run, tr.Run, c.name)
		assert.Equal(t, c.app, tr.AppID(), c.name)
		assert.Equal(t, c.session, tr.SessionName("prod"), c.name)
	}
}

// TestTrail_LongNamesStayWithinSTSAndSDKLimits: the long form, the short
// form and the fallback of a session name; an app id over 50 characters
// leaves the run out.
func TestTrail_LongNamesStayWithinSTSAndSDKLimits(t *testing.T) {
	scope := strings.Repeat("s", 32)
	gl := TrailOf([]string{"GITLAB_CI=true", "CI_PIPELINE_ID=1234567890", "CI_JOB_ID=98765432101"}, "")
	assert.Equal(t, "sops-aws-sync-"+scope+"@gl-98765432101", gl.SessionName(scope), "too long with the pipeline: the job id alone")
	assert.Equal(t, "sops-aws-sync-short@gl-1234567890-98765432101", gl.SessionName("short"))
	huge := TrailOf([]string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=" + strings.Repeat("9", 19), "GITHUB_RUN_ATTEMPT=" + strings.Repeat("8", 19)}, "")
	assert.Equal(t, "sops-aws-sync-"+scope, huge.SessionName(scope), "no form with the run fits")
	assert.Equal(t, "sops-aws-sync", huge.AppID())
}

// TestTrail_EveryNameIsValid: for every scope name of the rule and every
// CI run, the session name keeps STS's rule and the app id the SDK's, and
// both hold the run whenever they can.
func TestTrail_EveryNameIsValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		scope := rapid.StringMatching(`[a-z0-9-]{1,32}`).Draw(t, "scope")
		a := rapid.StringMatching(`[0-9]{1,19}`).Draw(t, "a")
		b := rapid.StringMatching(`[0-9]{1,19}`).Draw(t, "b")
		env := []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=" + a, "GITHUB_RUN_ATTEMPT=" + b}
		if rapid.Bool().Draw(t, "gitlab") {
			env = []string{"GITLAB_CI=true", "CI_PIPELINE_ID=" + a, "CI_JOB_ID=" + b}
		}
		tr := TrailOf(env, "v1")
		s := tr.SessionName(scope)
		require.Truef(t, stsSessionName.MatchString(s) && strings.HasPrefix(s, "sops-aws-sync-"+scope),
			"session name %q breaks STS's rule or lost the tool or the scope", s)
		require.Falsef(t, len(tr.Run) <= 64-len("sops-aws-sync-@")-len(scope) && !strings.HasSuffix(s, "@"+tr.Run),
			"session name %q lost the run %q that fits", s, tr.Run)
		id := tr.AppID()
		require.Truef(t, uaToken.MatchString(id) && strings.HasPrefix(id, Tool), "app id %q breaks the SDK's rule", id)
	})
}

// FuzzTrailOf: whatever the environment holds, the names a run hands AWS
// keep STS's and the SDK's rules and carry only digits from it.
func FuzzTrailOf(f *testing.F) {
	f.Add("true", "123", "1", "prod")
	f.Add("true", "12a", "", "x")
	f.Fuzz(func(t *testing.T, flag, a, b, scope string) {
		if !regexp.MustCompile(`^[a-z0-9-]{1,32}$`).MatchString(scope) {
			return
		}
		for _, env := range [][]string{
			{"GITHUB_ACTIONS=" + flag, "GITHUB_RUN_ID=" + a, "GITHUB_RUN_ATTEMPT=" + b},
			{"GITLAB_CI=" + flag, "CI_PIPELINE_ID=" + a, "CI_JOB_ID=" + b},
		} {
			tr := TrailOf(env, "v1")
			s := tr.SessionName(scope)
			require.Truef(t, stsSessionName.MatchString(s) && strings.HasPrefix(s, Tool+"-"), "session name %q", s)
			require.Regexp(t, uaToken, tr.AppID())
			require.Falsef(t, tr.Run != "" && strings.Trim(tr.Run[3:], "0123456789-") != "", "run %q carries more than digits", tr.Run)
		}
	})
}
