package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
)

// The GitLab component at parity with the GitHub Action (issue 44 §2):
// a sync's changes for downstream jobs, the report checked against the
// exit code, max-deletions with a config file of several scopes.

// dotenv reads a dotenv report as GitLab does: KEY=VALUE per line.
func dotenv(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "no dotenv report")
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		require.True(t, ok, "a dotenv line that is not KEY=VALUE: %q", line)
		out[k] = v
	}
	return out
}

// TestGitLab_SyncPublishesItsChangesForDownstreamJobs: the default
// branch's sync writes the CLI's changes file into its artifacts and a
// dotenv report (the template's artifacts:reports:dotenv) saying the
// status, whether and how many secrets changed and where the changes file
// is, and no name or ARN; a second sync of the same commit changes nothing.
func TestGitLab_SyncPublishesItsChangesForDownstreamJobs(t *testing.T) {
	h := newGitLabHarness(t)
	docs := h.f.standardDocs()
	sha := h.f.git("rev-parse", "HEAD")

	_, body := glParse(t, glFile(t, "template.yml"))
	reports := glMap(t, glMap(t, glMap(t, body["$[[ inputs.name ]]-sync"], "sync")["artifacts"], "artifacts")["reports"], "reports")
	assert.Equal(t, ".sops-aws-sync/$[[ inputs.name ]]/changes.env", reports["dotenv"])
	assert.Nil(t, glMap(t, body["$[[ inputs.name ]]-plan"], "plan")["artifacts"], "a plan changes nothing: no dotenv report")

	r := h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "801", JobID: "9301"})
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	env := dotenv(t, filepath.Join(r.Out, "changes.env"))
	assert.Equal(t, map[string]string{
		"GL_SOPS_AWS_SYNC_RESULT_STATUS":       "converged",
		"GL_SOPS_AWS_SYNC_RESULT_CHANGED":      "true",
		"GL_SOPS_AWS_SYNC_RESULT_CHANGE_COUNT": "3",
		"GL_SOPS_AWS_SYNC_RESULT_CHANGES_FILE": ".sops-aws-sync/sops-aws-sync/changes.json",
	}, env)
	raw, err := os.ReadFile(filepath.Join(h.f.Repo, env["GL_SOPS_AWS_SYNC_RESULT_CHANGES_FILE"]))
	require.NoError(t, err)
	c, err := changes.Parse(raw)
	require.NoError(t, err, "the changes artifact is the CLI's own file")
	var names []string
	for _, ch := range c.Changes {
		names = append(names, ch.Name)
	}
	for _, d := range docs {
		assert.Contains(t, names, d.Name)
	}
	envText, err := os.ReadFile(filepath.Join(r.Out, "changes.env"))
	require.NoError(t, err)
	for _, s := range h.e.state().Secrets {
		assert.NotContains(t, string(envText), s.ARN, "the dotenv report names no secret")
		assert.NotContains(t, string(envText), s.Name)
	}

	r = h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "bash", PipelineID: "802", JobID: "9302"})
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	env = dotenv(t, filepath.Join(r.Out, "changes.env"))
	assert.Equal(t, "false", env["GL_SOPS_AWS_SYNC_RESULT_CHANGED"])
	assert.Equal(t, "0", env["GL_SOPS_AWS_SYNC_RESULT_CHANGE_COUNT"])
}

// TestGitLab_ReportDisagreeingWithTheExitCodeFailsTheJob: the image's
// CLI (a wrapper standing in for another release) exits 0 after a plan
// whose report says drift: the job fails (exit 1) and says the exit
// status and the report disagree, as the Action does; the real CLI's
// drift still exits 2.
func TestGitLab_ReportDisagreeingWithTheExitCodeFailsTheJob(t *testing.T) {
	h := newGitLabHarness(t)
	h.f.standardDocs()
	sha := h.f.git("rev-parse", "HEAD")
	skewed := filepath.Join(h.ciDir, "skewed-cli")
	require.NoError(t, os.WriteFile(skewed, []byte("#!/bin/sh\n"+cliBin+" \"$@\"\nrc=$?\n[ \"$1\" = show ] && exit $rc\nexit 0\n"), 0o700))

	r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "sh", PipelineID: "811", JobID: "9311",
		Inputs: map[string]string{"cli": skewed}})
	assert.Equal(t, 1, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: the CLI's exit status and its redacted report disagree (exit 0 does not allow status drift)")
	assert.Contains(t, r.Stdout, "docs/recovery.md#the-action-says-the-exit-status-and-report-disagree")

	r = h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "bash", PipelineID: "812", JobID: "9312"})
	assert.Equal(t, 2, r.Code, "stdout:\n%s", r.Stdout)
	assert.NotContains(t, r.Stdout, "disagree")
}

// TestGitLab_MaxDeletionsWithSeveralScopesNeedsOneScope: max-deletions is
// one number for one scope; with a config file and no scopes input (every
// scope) or several, the job refuses before the CLI runs and says to name
// one scope or set max-deletions per scope; with one scope named it runs.
func TestGitLab_MaxDeletionsWithSeveralScopesNeedsOneScope(t *testing.T) {
	h := newGitLabHarness(t)
	h.f.standardDocs()
	config := filepath.Join(h.f.Repo, "ci", "sync.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(config), 0o700))
	require.NoError(t, os.WriteFile(config, []byte("repository-id: "+h.f.RepoID+"\nscopes:\n"+
		"  - name: one\n    secret-prefix: "+h.f.Prefix+"\n    aws-region: "+glRegion+"\n"+
		"  - name: two\n    secret-prefix: "+h.f.Prefix+"-two\n    source-root: other\n    aws-region: "+glRegion+"\n    allow-empty: true\n"), 0o600))
	sha := h.f.commit("a config file of two scopes")

	for i, scopes := range []string{"", "one,two"} {
		before := len(h.cliEnvs())
		r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "sh",
			PipelineID: "82" + string(rune('0'+i)), JobID: "932" + string(rune('0'+i)),
			Inputs: map[string]string{"config-file": "ci/sync.yaml", "scopes": scopes, "max-deletions": "1", "secret-prefix": "", "repository-id": ""}})
		assert.Equal(t, 1, r.Code, "scopes %q: stdout:\n%s", scopes, r.Stdout)
		assert.Contains(t, r.Stdout, "max-deletions with config-file needs scopes to name one scope", "scopes %q", scopes)
		assert.Equal(t, before, len(h.cliEnvs()), "scopes %q: the CLI never ran", scopes)
	}
	r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "bash", PipelineID: "829", JobID: "9329",
		Inputs: map[string]string{"config-file": "ci/sync.yaml", "scopes": "one", "max-deletions": "1", "secret-prefix": "", "repository-id": ""}})
	assert.Equal(t, 2, r.Code, "one scope named: the plan runs (drift)\nstdout:\n%s", r.Stdout)
	assert.NotContains(t, r.Stdout, "needs scopes to name one scope")
}

// TestGitLab_ScheduledDriftJobKeepsOneIssue: a scheduled pipeline of the
// default branch runs the drift job (a plan through the plan role): while
// AWS differs (exit 2) it keeps one issue, labelled sops-aws-sync-drift,
// whose description is its marker and the CLI's Markdown, created once and
// never duplicated by a re-run; the sync job does not run in a schedule;
// once a sync converged, the next scheduled run exits 0 and closes the
// issue. Nothing is written to AWS by the drift job.
func TestGitLab_ScheduledDriftJobKeepsOneIssue(t *testing.T) {
	h := newGitLabHarness(t)
	h.f.standardDocs()
	sha := h.f.git("rev-parse", "HEAD")

	r := h.run(glPipeline{Job: "drift", Event: "schedule", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "841", JobID: "9341"})
	require.Equal(t, 2, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "AWS differs from the default branch; the plan is in the drift issue")
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: drift issue created")
	assert.Zero(t, h.e.mutatingCalls(), "a drift check writes nothing")
	sessions := h.e.ctl.Sessions().Sessions
	require.Len(t, sessions, 1)
	assert.Equal(t, glPlanRole, sessions[0].RoleARN, "a drift check assumes the plan role")
	h.gl.mu.Lock()
	require.Len(t, h.gl.issues, 1)
	issue := h.gl.issues[0]
	h.gl.mu.Unlock()
	assert.Equal(t, "opened", issue.State)
	assert.Equal(t, []string{"sops-aws-sync-drift"}, issue.Labels)
	marker := regexp.MustCompile(`^<!-- sops-aws-sync:drift:[0-9a-f]{16} -->\n`).FindString(issue.Description)
	require.NotEmpty(t, marker, "the issue starts with its marker")
	assert.Equal(t, marker+r.PlanMD, issue.Description)

	r = h.run(glPipeline{Job: "drift", Event: "schedule", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "bash", PipelineID: "842", JobID: "9342"})
	require.Equal(t, 2, r.Code, "stdout:\n%s", r.Stdout)
	h.gl.mu.Lock()
	assert.Len(t, h.gl.issues, 1, "a re-run keeps the one issue")
	h.gl.mu.Unlock()

	_, body := glParse(t, glInterpolate(t, glFile(t, "template.yml"), h.defaultsIn))
	rule := glMap(t, body["sops-aws-sync-sync"], "sync")["rules"].([]any)[0].(map[string]any)["if"].(string)
	assert.Contains(t, rule, `$CI_PIPELINE_SOURCE != "schedule"`, "a scheduled pipeline does not sync")

	r = h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "843", JobID: "9343"})
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	r = h.run(glPipeline{Job: "drift", Event: "schedule", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "844", JobID: "9344"})
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: drift issue #1 closed: AWS matches the default branch")
	h.gl.mu.Lock()
	assert.Equal(t, "closed", h.gl.issues[0].State)
	assert.Len(t, h.gl.issues, 1)
	h.gl.mu.Unlock()
	for _, q := range h.gl.requests() {
		assert.True(t, q.Authorized, "%s %s without the token", q.Method, q.Path)
	}
}

// TestGitLab_SyncAppliesThePlanReviewedOnTheMergeRequest: the sync job of
// a commit that a merge request was merged as fetches that merge
// request's plan job artifact (the GitLab API: the commit's merge
// requests, then the job artifact of refs/merge-requests/<iid>/head) and
// runs sync --reviewed-plan with it: it says which merge request, and the
// CLI that it applies the reviewed plan. A direct push with
// require-reviewed-plan fails before the CLI runs; without it the sync
// runs and says there was no reviewed plan.
func TestGitLab_SyncAppliesThePlanReviewedOnTheMergeRequest(t *testing.T) {
	h := newGitLabHarness(t)
	docs := h.f.standardDocs()
	sha := h.f.git("rev-parse", "HEAD")

	r := h.run(glPipeline{Job: "plan", Event: "merge_request_event", SHA: sha, Sub: glSubFeature, Shell: "sh", PipelineID: "851", JobID: "9351"})
	require.Equal(t, 2, r.Code, "stdout:\n%s", r.Stdout)
	reviewed, err := os.ReadFile(filepath.Join(r.Out, "plan.json"))
	require.NoError(t, err)
	h.gl.mu.Lock()
	h.gl.mergedBy = map[string]string{sha: glMRIID}
	h.gl.artifacts = map[string][]byte{glMRIID + " sops-aws-sync-plan .sops-aws-sync/sops-aws-sync/plan.json": reviewed}
	h.gl.reqs = nil
	h.gl.mu.Unlock()

	req := map[string]string{"require-reviewed-plan": "true"}
	r = h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "852", JobID: "9352", Inputs: req})
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: applying the plan reviewed on merge request !"+glMRIID)
	assert.Contains(t, r.Stdout, "applying the reviewed plan")
	assert.Equal(t, 3, r.Report.Counts.Create)
	for _, d := range docs {
		assert.NotNil(t, h.e.secret(d.Name), "%s synced", d.Name)
	}
	var paths []string
	for _, q := range h.gl.requests() {
		assert.True(t, q.Authorized)
		paths = append(paths, q.Method+" "+q.Path)
	}
	assert.Equal(t, []string{
		"GET /api/v4/projects/" + glProjectID + "/repository/commits/" + sha + "/merge_requests",
		"GET /api/v4/projects/" + glProjectID + "/jobs/artifacts/refs/merge-requests/" + glMRIID + "/head/raw/.sops-aws-sync/sops-aws-sync/plan.json",
	}, paths)

	h.f.addDoc("pushed", ".sops.json", `{"k": "CANARY-pushed-`+token(4)+`"}`)
	direct := h.f.commit("a direct push")
	before := len(h.cliEnvs())
	r = h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: direct, Sub: glSubMain, Shell: "bash", PipelineID: "853", JobID: "9353", Inputs: req})
	assert.Equal(t, 1, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "require-reviewed-plan: no reviewed plan to apply (no merged merge request has this commit (a direct push?))")
	assert.Equal(t, before, len(h.cliEnvs()), "the CLI never ran")

	r = h.run(glPipeline{Job: "sync", Event: "push", Branch: "main", SHA: direct, Sub: glSubMain, Shell: "sh", PipelineID: "854", JobID: "9354"})
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	assert.Contains(t, r.Stdout, "no reviewed plan (no merged merge request has this commit (a direct push?)): the sync applies the plan of this commit as it is")
}

// TestGitLab_Regression_DriftJobWithAnUnreachableScopeKeepsTheIssue: a
// scheduled drift job whose config file lets one unreachable scope be
// skipped (max-unreachable-scopes: 1; STS refuses the role of scope
// "far") ended exit 1 with "the CLI's exit status and its redacted report
// disagree" (exit 5 with status unreachable was not in the script's
// table) and left the drift issue alone. Now the job ends exit 5 and the
// issue holds the plan whose rendering names the unreachable scope.
func TestGitLab_Regression_DriftJobWithAnUnreachableScopeKeepsTheIssue(t *testing.T) {
	h := newGitLabHarness(t)
	h.f.standardDocs()
	const far = "222222222222"
	cfg := "repository-id: " + h.f.RepoID + "\nmax-unreachable-scopes: 1\noperation-timeout: 2s\nscopes:\n" +
		"  - name: near\n    source-root: secrets\n    secret-prefix: " + h.f.Prefix + "\n    aws-region: " + glRegion + "\n" +
		"  - name: far\n    source-root: secrets\n    secret-prefix: " + h.f.Prefix + "\n    aws-region: " + glRegion + "\n" +
		"    role-arn: arn:aws:iam::" + far + ":role/sops-aws-sync\n"
	require.NoError(t, os.WriteFile(filepath.Join(h.f.Repo, "scopes.yaml"), []byte(cfg), 0o600))
	h.f.commit("two scopes, one in another account")
	sha := h.f.git("rev-parse", "HEAD")
	h.e.setFaults(emulator.Faults{STSRefuseAccounts: []string{far}})
	delete(h.defaultsIn, "secret-prefix")
	delete(h.defaultsIn, "repository-id")

	r := h.run(glPipeline{Job: "drift", Event: "schedule", Branch: "main", SHA: sha, Sub: glSubMain, Shell: "sh", PipelineID: "861", JobID: "9361",
		Inputs: map[string]string{"config-file": "scopes.yaml"}})
	require.Equal(t, 5, r.Code, "stdout:\n%s", r.Stdout)
	assert.NotContains(t, r.Stdout, "disagree")
	require.NotNil(t, r.Report)
	assert.Equal(t, "unreachable", string(r.Report.Status))
	assert.Contains(t, r.Stdout, "sops-aws-sync-gitlab: drift issue created")
	h.gl.mu.Lock()
	require.Len(t, h.gl.issues, 1)
	issue := h.gl.issues[0]
	h.gl.mu.Unlock()
	assert.Contains(t, issue.Description, "far")
	assert.Contains(t, issue.Description, "unreachable")
	assert.Contains(t, issue.Description, "credentials:scope-unreachable")
	marker := regexp.MustCompile(`^<!-- sops-aws-sync:drift:[0-9a-f]{16} -->\n`).FindString(issue.Description)
	assert.Equal(t, marker+r.PlanMD, issue.Description)
}
