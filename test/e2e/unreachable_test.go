package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/organizations"
	orgtypes "github.com/aws/aws-sdk-go-v2/service/organizations/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Failure isolation across accounts (SPEC §17): a scope whose account
// cannot be reached is skipped under --max-unreachable-scopes, named with
// status unreachable in every output, and the run exits 5 after the other
// scopes converged; more unreachable scopes than allowed, or a content
// error anywhere, and nothing is applied.

// orgAccounts builds an organization in e's Organizations service (the
// base identity is its management account) with one member account per
// name, made by CreateAccount so that each has the role
// OrganizationAccountAccessRole trusting the base identity; it returns the
// account ids by name and the environment pointing the CLI's STS at e.
func orgAccounts(t *testing.T, e *emu, names ...string) (map[string]string, []string) {
	t.Helper()
	ctx := context.Background()
	c := organizations.New(organizations.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDE2E", awsSecretKey, "")})
	_, err := c.CreateOrganization(ctx, &organizations.CreateOrganizationInput{FeatureSet: orgtypes.OrganizationFeatureSetAll})
	require.NoError(t, err)
	ids := map[string]string{}
	for _, n := range names {
		out, err := c.CreateAccount(ctx, &organizations.CreateAccountInput{AccountName: aws.String(n), Email: aws.String(n + "@example.com")})
		require.NoError(t, err)
		st, err := c.DescribeCreateAccountStatus(ctx, &organizations.DescribeCreateAccountStatusInput{CreateAccountRequestId: out.CreateAccountStatus.Id})
		require.NoError(t, err)
		require.Equal(t, orgtypes.CreateAccountStateSucceeded, st.CreateAccountStatus.State)
		ids[n] = aws.ToString(st.CreateAccountStatus.AccountId)
	}
	return ids, []string{"AWS_ENDPOINT_URL_STS=" + e.URL}
}

// accountScopes is a config file with one scope per name, in that order:
// source root secrets/<name>, the fixture's prefix, in the account of
// ids[name] through its OrganizationAccountAccessRole; one document per
// scope is committed.
func accountScopes(f *fixture, ids map[string]string, extra string, names ...string) string {
	cfg := "repository-id: " + f.RepoID + "\noperation-timeout: 2s\n" + extra + "scopes:\n"
	for _, n := range names {
		cfg += "  - name: " + n + "\n    source-root: secrets/" + n + "\n    secret-prefix: " + f.Prefix + "\n    aws-region: us-east-1\n" +
			"    role-arn: arn:aws:iam::" + ids[n] + ":role/OrganizationAccountAccessRole\n"
		f.writeDoc("secrets/"+n+"/db.sops.json", `{"password": "CANARY-`+n+`-`+token(6)+`"}`, "")
	}
	f.commit("scopes " + strings.Join(names, ","))
	return cfg
}

// byAccount is the number of secrets the emulator holds in each account.
func byAccount(e *emu) map[string]int {
	out := map[string]int{}
	for _, s := range e.state().Secrets {
		out[s.Account]++
	}
	return out
}

// reportScopes is the report's scopes, name → status.
func reportScopes(t *testing.T, r result) map[string]vocab.Status {
	t.Helper()
	require.NotNil(t, r.Report, r.Stdout)
	out := map[string]vocab.Status{}
	for _, s := range r.Report.Scopes {
		out[s.Name] = s.Status
	}
	return out
}

// planScopes is the plan file's scopes, name → status, and the file.
func planScopes(t *testing.T, path string) (map[string]string, []byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var v struct {
		Scopes []struct{ Name, Status string }
	}
	require.NoError(t, json.Unmarshal(raw, &v))
	out := map[string]string{}
	for _, s := range v.Scopes {
		out[s.Name] = s.Status
	}
	return out, raw
}

// shown is show's text and Markdown of the plan file at path.
func shown(t *testing.T, path string) (text, markdown string) {
	t.Helper()
	tx, err := exec.Command(cliBin, "show", path).CombinedOutput()
	require.NoError(t, err, string(tx))
	md, err := exec.Command(cliBin, "show", "--format", "markdown", path).CombinedOutput()
	require.NoError(t, err, string(md))
	return string(tx), string(md)
}

// A suspended account's scope is skipped with --max-unreachable-scopes 1:
// the two others converge, the run exits 5 with status unreachable, and
// the skipped scope is named unreachable in the logs, the report's
// scopes, the plan file, show's text and Markdown (the pull-request
// comment and the job summary's plan); without the flag the run is all or
// nothing, as before.
func TestExit5_SuspendedAccountSkippedWithItsNameInEveryOutput(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	ids, env := orgAccounts(t, e, "alpha", "bravo", "charlie")
	cfg := accountScopes(f, ids, "", "alpha", "bravo", "charlie")
	e.ctl.SetAccountStatus(emulator.AccountStatus{AccountID: ids["bravo"], Status: "SUSPENDED"})

	r := f.run(e, runOpts{Env: env, Config: cfg}, "sync")
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Zero(t, e.mutatingCalls(), "--max-unreachable-scopes 0: all or nothing")

	planFile := filepath.Join(t.TempDir(), "plan.json")
	r = f.run(e, runOpts{Env: env, Config: cfg}, "sync", "--max-unreachable-scopes", "1", "--plan-file", planFile)
	expect(t, r, 5, vocab.StatusUnreachable, vocab.VerificationNotRun, &vocab.Counts{Create: 2})
	assert.Equal(t, map[string]int{ids["alpha"]: 1, ids["charlie"]: 1}, byAccount(e), "the reachable scopes converged")
	assert.Equal(t, map[string]vocab.Status{"alpha": vocab.StatusConverged, "bravo": vocab.StatusUnreachable, "charlie": vocab.StatusConverged}, reportScopes(t, r))
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "credentials:scope-unreachable" })
	require.NotNil(t, rec, r.Stdout)
	assert.Equal(t, "bravo", rec["scope"])
	assert.Equal(t, string(vocab.StatusUnreachable), rec["status"])
	inPlan, raw := planScopes(t, planFile)
	assert.Equal(t, map[string]string{"alpha": "converged", "bravo": "unreachable", "charlie": "converged"}, inPlan)
	text, md := shown(t, planFile)
	for _, out := range []string{text, md} {
		assert.Contains(t, out, "bravo")
		assert.Contains(t, out, "unreachable")
		assert.Contains(t, out, "credentials:scope-unreachable")
	}
	for _, id := range ids {
		for _, out := range []string{r.Stdout, r.Stderr, string(r.RawReport), string(raw), text, md} {
			assert.NotContains(t, out, id, "account ids are never printed")
		}
	}
	for _, leak := range []string{"AccessDenied", "not authorized", "arn:aws"} {
		assert.NotContains(t, r.Stdout+string(raw)+text+md, leak)
	}

	// Reinstated, the skipped scope converges on the next run.
	e.ctl.SetAccountStatus(emulator.AccountStatus{AccountID: ids["bravo"], Status: "ACTIVE"})
	r = f.run(e, runOpts{Env: env, Config: cfg}, "sync", "--max-unreachable-scopes", "1")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1, Unchanged: 2})
}

// More unreachable scopes than --max-unreachable-scopes allows (a closed
// account's AccessDenied and a role STS refuses, with 1 allowed): nothing
// is read or applied anywhere, exit 5, every unreachable scope named.
func TestExit5_MoreUnreachableThanAllowedAppliesNothing(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	ids, env := orgAccounts(t, e, "alpha", "bravo", "charlie")
	cfg := accountScopes(f, ids, "max-unreachable-scopes: 1\n", "alpha", "bravo", "charlie")
	e.ctl.SetAccountStatus(emulator.AccountStatus{AccountID: ids["alpha"], Status: "SUSPENDED"})
	e.setFaults(emulator.Faults{STSRefuseAccounts: []string{ids["charlie"]}})

	r := f.run(e, runOpts{Env: env, Config: cfg}, "sync")
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, &vocab.Counts{})
	st := e.stats()
	assert.Zero(t, st.Calls["ListSecrets"]+st.Calls["BatchGetSecretValue"]+e.mutatingCalls(), "nothing read or written")
	assert.Equal(t, map[string]vocab.Status{"alpha": vocab.StatusObservationFailed, "bravo": vocab.StatusObservationFailed, "charlie": vocab.StatusObservationFailed}, reportScopes(t, r))
	refused := map[string]bool{}
	var run map[string]any
	for _, m := range r.records(t) {
		if m["error_class"] == "credentials:assume-role" {
			refused[m["scope"].(string)] = true
		}
		if m["error_class"] == "credentials:scope-unreachable" {
			run = m
		}
	}
	assert.Equal(t, map[string]bool{"alpha": true, "charlie": true}, refused)
	require.NotNil(t, run, r.Stdout)
	assert.Contains(t, run["msg"], "2 scopes could not be reached, more than --max-unreachable-scopes 1")
}

// An account whose STS never answers is unreachable once --operation-timeout
// passes: with --max-unreachable-scopes 1 the other scopes converge and the
// run exits 5.
func TestExit5_SilentSTSAccountSkippedOthersConverge(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	ids, env := orgAccounts(t, e, "alpha", "bravo", "charlie")
	cfg := accountScopes(f, ids, "", "alpha", "bravo", "charlie")
	e.setFaults(emulator.Faults{STSSilentAccounts: []string{ids["charlie"]}})

	r := f.run(e, runOpts{Env: env, Config: cfg}, "sync", "--max-unreachable-scopes", "1")
	expect(t, r, 5, vocab.StatusUnreachable, vocab.VerificationNotRun, &vocab.Counts{Create: 2})
	assert.Positive(t, e.stats().Faults["sts-silent-account"])
	assert.Equal(t, map[string]int{ids["alpha"]: 1, ids["bravo"]: 1}, byAccount(e))
	assert.Equal(t, map[string]vocab.Status{"alpha": vocab.StatusConverged, "bravo": vocab.StatusConverged, "charlie": vocab.StatusUnreachable}, reportScopes(t, r))
}

// A content error (a document that is no SOPS document) in one scope while
// another scope is unreachable: content errors stay all or nothing, so
// nothing is applied anywhere (exit 3), whatever --max-unreachable-scopes
// allows.
func TestExit3_ContentErrorWithAnUnreachableScopeAppliesNothing(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	ids, env := orgAccounts(t, e, "alpha", "bravo", "charlie")
	cfg := accountScopes(f, ids, "", "alpha", "bravo", "charlie")
	f.writePlain("secrets/alpha/broken.sops.json", `{"password": "CANARY-plain-`+token(6)+`"}`)
	f.commit("a document that is not encrypted")
	e.ctl.SetAccountStatus(emulator.AccountStatus{AccountID: ids["bravo"], Status: "SUSPENDED"})

	r := f.run(e, runOpts{Env: env, Config: cfg}, "sync", "--max-unreachable-scopes", "1")
	require.Equal(t, 3, r.Code, r.Stdout)
	assert.Equal(t, vocab.StatusInvalid, r.Report.Status)
	assert.Zero(t, e.mutatingCalls(), "nothing applied anywhere")
	assert.Empty(t, byAccount(e))
}

// TestRegression_ReviewedPlanTallySaysWhichScopesWereSkipped: a sync
// given a reviewed plan (made while every account answered) that skips a
// scope whose account was suspended since (--max-unreachable-scopes 1)
// said nothing of the reviewed plan: its record of applying it now names
// the skipped scope and counts only the operations applied (the two
// reachable scopes' creates, not the skipped one's), and so do its plan
// file (reviewed) and show's text and Markdown.
func TestRegression_ReviewedPlanTallySaysWhichScopesWereSkipped(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	ids, env := orgAccounts(t, e, "alpha", "bravo", "charlie")
	cfg := accountScopes(f, ids, "", "alpha", "bravo", "charlie")
	reviewedAt := strings.TrimSpace(f.git("rev-parse", "HEAD"))
	reviewed := filepath.Join(t.TempDir(), "reviewed.json")
	r := f.run(e, runOpts{Env: env, Config: cfg}, "plan", "--plan-file", reviewed)
	require.Equal(t, 0, r.Code, r.Stdout)
	e.ctl.SetAccountStatus(emulator.AccountStatus{AccountID: ids["bravo"], Status: "SUSPENDED"})

	r, v, raw := f.runPlan(e, runOpts{Env: env, Config: cfg}, "sync", "--reviewed-plan", reviewed, "--max-unreachable-scopes", "1")
	expect(t, r, 5, vocab.StatusUnreachable, vocab.VerificationNotRun, &vocab.Counts{Create: 2})
	assert.Equal(t, map[string]int{ids["alpha"]: 1, ids["charlie"]: 1}, byAccount(e))
	line := "applying the reviewed plan (2 operations, reviewed at commit " + reviewedAt + "; skipped as unreachable: scope bravo)"
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["msg"] == line })
	require.NotNil(t, rec, "no record %q:\n%s", line, r.Stdout)
	assert.EqualValues(t, 2, rec["count"])
	assert.Equal(t, &planview.Reviewed{GitRevision: reviewedAt, Operations: 2}, v.Reviewed)
	text, md := shown(t, writeTemp(t, raw))
	for _, out := range []string{text, md} {
		assert.Contains(t, out, "Applying the reviewed plan (2 operations, reviewed at commit "+reviewedAt+"; skipped as unreachable: scope bravo)")
	}
}
