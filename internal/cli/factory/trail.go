package factory

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
)

// Tool is the name every AWS call of a run carries: the SDK application id
// (User-Agent "app/<AppID>") starts with it, the User-Agent also holds
// "sops-aws-sync/<version>", and an assumed role's session name starts with
// it when it fits.
const Tool = "sops-aws-sync"

// Limits of the names a run hands AWS: the SDK documents an application id
// of up to 50 characters (AWS SDKs and Tools reference, sdk_ua_app_id);
// STS's RoleSessionName is 2-64 characters of [\w+=,.@-] (AssumeRole API
// reference).
const (
	maxAppID       = 50
	maxSessionName = 64
	// maxRunNumber bounds one CI number: an int64's decimal digits. A
	// value longer than that, empty or not all digits is not a run id.
	maxRunNumber = 19
)

// Trail is what a run writes into CloudTrail to be found again: the CI run
// it belongs to (docs/security.md, "Finding one run's calls in
// CloudTrail"). Its parts are the tool's name, the CI's run and job
// numbers (digits only) and a scope's name: never a secret's name, value,
// path or a credential.
type Trail struct {
	// Run identifies the CI run: "gh-<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>"
	// in GitHub Actions, "gl-<CI_PIPELINE_ID>-<CI_JOB_ID>" in GitLab CI;
	// "" elsewhere or when a number is missing or malformed.
	Run string
	// Job is the shortest id of the same run where one exists: "gl-<CI_JOB_ID>"
	// in GitLab CI (a job id is unique in its GitLab instance); else Run.
	Job string
	// Version is the tool's version for the User-Agent ("" leaves it out).
	Version string
}

// TrailOf reads the CI run from environ ("KEY=value" entries): GitHub
// Actions when GITHUB_ACTIONS is "true", else GitLab CI when GITLAB_CI is
// "true"; each number must be 1-19 ASCII digits or the run is left out.
func TrailOf(environ []string, version string) Trail {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	t := Trail{Version: version}
	switch {
	case env["GITHUB_ACTIONS"] == "true":
		t.Run = runOf("gh", env["GITHUB_RUN_ID"], env["GITHUB_RUN_ATTEMPT"])
		t.Job = t.Run
	case env["GITLAB_CI"] == "true":
		t.Run = runOf("gl", env["CI_PIPELINE_ID"], env["CI_JOB_ID"])
		if t.Run != "" {
			t.Job = "gl-" + env["CI_JOB_ID"]
		}
	}
	return t
}

// runOf is "<ci>-<a>-<b>", or "" unless both numbers are 1-19 digits.
func runOf(ci, a, b string) string {
	if !isNumber(a) || !isNumber(b) {
		return ""
	}
	return ci + "-" + a + "-" + b
}

func isNumber(s string) bool {
	return s != "" && len(s) <= maxRunNumber && strings.Trim(s, "0123456789") == ""
}

// AppID is the SDK application id of every call: "sops-aws-sync-<run>" in
// CI, "sops-aws-sync" elsewhere or when that would pass the SDK's 50
// characters (two numbers of 19 digits). It replaces an id the operator
// set (AWS_SDK_UA_APP_ID, sdk_ua_app_id): the run's calls are found by
// this one.
func (t Trail) AppID() string {
	if id := Tool + "-" + t.Run; t.Run != "" && len(id) <= maxAppID {
		return id
	}
	return Tool
}

// SessionName is the STS role session name of a scope's assumed role
// (SPEC §10), within STS's 64 characters of [\w+=,.@-] and always
// starting "sops-aws-sync-" (a trust policy may require it): outside CI
// "sops-aws-sync-<scope>" (at most 46 characters for a scope name of
// [a-z0-9-]{1,32}); in CI "sops-aws-sync-<scope>@<run>", or
// "sops-aws-sync-<scope>@<job>" when that is too long (GitLab: the job id
// alone), or "sops-aws-sync-<scope>" when even that is. It shows in the
// role's CloudTrail events (userIdentity.arn), so an operator can tell
// which scope of which run made a call.
func (t Trail) SessionName(scope string) string {
	base := Tool + "-" + scope
	for _, run := range []string{t.Run, t.Job} {
		if s := base + "@" + run; run != "" && len(s) <= maxSessionName {
			return s
		}
	}
	return base
}

// apply makes every client built from c carry the trail: the application
// id, and "sops-aws-sync/<version>" in the User-Agent.
func (t Trail) apply(c *aws.Config) {
	c.AppID = t.AppID()
	if t.Version != "" {
		c.APIOptions = append(c.APIOptions, awsmiddleware.AddUserAgentKeyValue(Tool, t.Version))
	}
}
