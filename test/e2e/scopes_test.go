package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const (
	e2eRoleAccount = "210987654321"
	e2eRole        = "arn:aws:iam::" + e2eRoleAccount + ":role/secrets-sync"
	e2eDeniedRole  = "arn:aws:iam::" + e2eRoleAccount + ":role/locked"
)

// roleEmulator is an emulator whose STS lets the default account assume
// e2eRole and refuses e2eDeniedRole; stsEnv points the CLI's STS at it.
func roleEmulator(t *testing.T) (*emu, []string) {
	e := startEmulator(t)
	e.ctl.SetIAM(emulator.IAM{RequireRoles: true, Roles: []emulator.Role{
		{ARN: e2eRole, Trust: []string{emulator.DefaultAccountID}},
		{ARN: e2eDeniedRole, Trust: []string{"*"}, Deny: true},
	}})
	return e, []string{"AWS_ENDPOINT_URL_STS=" + e.URL}
}

// --role-arn in a single-scope run: every call is made with the role's
// credentials (session sops-aws-sync-default), so the secrets are created in
// the role's account; the re-run is a no-op.
func TestExit0_RoleARNSyncWritesInTheRolesAccount(t *testing.T) {
	f := newFixture(t)
	e, env := roleEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{Env: env}, f.args("sync", "--role-arn", e2eRole)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	for _, d := range docs {
		s := e.secret(d.Name)
		require.NotNil(t, s, d.Name)
		assert.Equal(t, e2eRoleAccount, s.Account, "created with the role's credentials")
	}
	sessions := e.ctl.Sessions().Sessions
	require.Len(t, sessions, 1)
	assert.Equal(t, "sops-aws-sync-default", sessions[0].SessionName)
	assert.Equal(t, e2eRole, sessions[0].RoleARN)
	assert.NotContains(t, r.Stdout, e2eRoleAccount, "account ids are never logged")

	r = f.run(e, runOpts{Env: env}, f.args("sync", "--role-arn", e2eRole)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Zero(t, e.stats().Calls["GetCallerIdentity"], "a single-scope run never asks for its account")
}

// A role STS refuses: exit 5 before anything is read, the class names the
// setting, never the ARN, its account or STS's text.
func TestExit5_AssumeRoleRefusedReadsNothing(t *testing.T) {
	f := newFixture(t)
	e, env := roleEmulator(t)
	f.standardDocs()
	r := f.run(e, runOpts{Env: env}, f.args("sync", "--role-arn", e2eDeniedRole)...)
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, &vocab.Counts{})
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "credentials:assume-role" })
	require.NotNil(t, rec, r.Stdout)
	st := e.stats()
	assert.Equal(t, int64(1), st.Calls["AssumeRole"])
	assert.Zero(t, st.Calls["ListSecrets"]+st.Calls["DescribeSecret"]+e.mutatingCalls(), "nothing read or written")
	for _, leak := range []string{e2eRoleAccount, "arn:aws", "AccessDenied", "not authorized"} {
		assert.NotContains(t, r.Stdout+r.Stderr+string(r.RawReport), leak)
	}
}

// A config file with scopes: and --scope NAME runs that scope with its own
// settings; a per-scope flag beside scopes: is exit 3 before any call.
func TestExit3_ScopesConfigRules(t *testing.T) {
	f := newFixture(t)
	e, env := roleEmulator(t)
	docs := f.standardDocs()
	cfg := "repository-id: " + f.RepoID + "\nscopes:\n" +
		"  - name: main\n    secret-prefix: " + f.Prefix + "\n    role-arn: " + e2eRole + "\n" +
		"  - name: other\n    secret-prefix: other/" + f.Prefix + "\n"
	r := f.run(e, runOpts{Env: env, Config: cfg}, "sync", "--scope", "main")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	assert.Equal(t, e2eRoleAccount, e.secret(docs[0].Name).Account)
	assert.Equal(t, "sops-aws-sync-main", e.ctl.Sessions().Sessions[0].SessionName)

	before := e.stats()
	r = f.run(e, runOpts{Env: env, Config: cfg}, "sync", "--scope", "main,other", "--secret-prefix", f.Prefix)
	require.Equal(t, 3, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "flag --secret-prefix")
	assert.Contains(t, r.Stderr, "(config:scope-ambiguous)")
	r = f.run(e, runOpts{Env: env, Config: cfg}, "sync", "--scope", "nope")
	require.Equal(t, 3, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "flag --scope")
	r = f.run(e, runOpts{Env: env, Config: strings.Replace(cfg, "    role-arn:", "    concurrency: 2\n    role-arn:", 1)}, "sync", "--scope", "main")
	require.Equal(t, 3, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "config file key scopes.main.concurrency")
	assert.Contains(t, r.Stderr, "(config:not-per-scope)")
	after := e.stats()
	assert.Equal(t, before.Calls, after.Calls, "a rejected configuration makes no call")
}

// Two scopes in two accounts (one through an assumed role) and two Regions
// in one run: each scope's secrets are created in its own account and
// Region with its own prefix; the re-run changes nothing.
func TestExit0_TwoScopesTwoAccountsOneRun(t *testing.T) {
	f := newFixture(t)
	e, env := roleEmulator(t)
	f.writeDoc("secrets/prod/db.sops.json", `{"password": "CANARY-prod-`+token(6)+`"}`, "")
	f.writeDoc("secrets/staging/db.sops.json", `{"password": "CANARY-stg-`+token(6)+`"}`, "")
	f.commit("two scopes")
	cfg := "repository-id: " + f.RepoID + "\nscopes:\n" +
		"  - name: prod\n    source-root: secrets/prod\n    secret-prefix: " + f.Prefix + "\n    aws-region: eu-west-1\n    role-arn: " + e2eRole + "\n" +
		"  - name: staging\n    source-root: secrets/staging\n    secret-prefix: " + f.Prefix + "\n    aws-region: eu-central-1\n"
	r := f.run(e, runOpts{Env: env, Config: cfg}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 2})
	where := map[string]string{}
	for _, s := range e.state().Secrets {
		where[s.Account+"/"+s.Region] = s.Name
	}
	assert.Equal(t, map[string]string{
		e2eRoleAccount + "/eu-west-1":               f.Prefix + "/db",
		emulator.DefaultAccountID + "/eu-central-1": f.Prefix + "/db",
	}, where)
	assert.Equal(t, int64(1), e.stats().Calls["GetCallerIdentity"], "one call for the base account")
	assert.NotContains(t, r.Stdout, e2eRoleAccount)
	assert.NotContains(t, r.Stdout, emulator.DefaultAccountID)

	before := e.mutatingCalls()
	r = f.run(e, runOpts{Env: env, Config: cfg}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 2})
	assert.Equal(t, before, e.mutatingCalls())
}

// TestRegression_STSThatNeverAnswersEndsWithinTheOperationTimeout: the real
// binary against an STS that never answers (the emulator's sts_hang) ends
// exit 5 with credentials:assume-role (a role) or
// credentials:caller-identity (two scopes without a role: the base
// account), within --operation-timeout, having read nothing. Before the
// fix the STS calls had no bound: the run hung until --run-timeout and
// ended interrupted (exit 130), and the recovery guide then told the
// operator to raise the timeout.
func TestRegression_STSThatNeverAnswersEndsWithinTheOperationTimeout(t *testing.T) {
	f := newFixture(t)
	f.standardDocs()
	twoScopes := "repository-id: " + f.RepoID + "\noperation-timeout: 1s\nrun-timeout: 10m\nscopes:\n" +
		"  - name: main\n    secret-prefix: " + f.Prefix + "\n" +
		"  - name: other\n    secret-prefix: other/" + f.Prefix + "\n"
	for _, c := range []struct {
		action, class string
		o             runOpts
		args          []string
	}{
		{"AssumeRole", "credentials:assume-role", runOpts{}, f.args("sync", "--role-arn", e2eRole, "--operation-timeout", "1s", "--run-timeout", "10m")},
		{"GetCallerIdentity", "credentials:caller-identity", runOpts{Config: twoScopes}, []string{"sync"}},
	} {
		t.Run(c.action, func(t *testing.T) {
			e, env := roleEmulator(t)
			e.setFaults(emulator.Faults{STSHang: []string{c.action}})
			c.o.Env = env
			r := f.run(e, c.o, c.args...)
			expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, &vocab.Counts{})
			rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == c.class })
			require.NotNil(t, rec, r.Stdout)
			st := e.stats()
			assert.Positive(t, st.Calls[c.action], "the call reached STS")
			assert.Positive(t, st.Faults["sts-hang"])
			assert.Zero(t, st.Calls["ListSecrets"]+st.Calls["DescribeSecret"]+e.mutatingCalls(), "nothing read or written")
		})
	}
}

// TestRegression_PlanAssumesPlanRoleARN: one config file for both jobs
// (issue 30 item 2): plan (and the drift check, plan --detailed-exit-code)
// assumes the scope's read-only plan-role-arn, sync its role-arn, as the
// emulator's STS records; the flag form of a single-scope run does the
// same. A refused plan role names plan-role-arn; a plan role in another
// account than role-arn is refused before any AWS call.
func TestRegression_PlanAssumesPlanRoleARN(t *testing.T) {
	f := newFixture(t)
	e, env := roleEmulator(t)
	planRole := "arn:aws:iam::" + e2eRoleAccount + ":role/secrets-plan"
	e.ctl.SetIAM(emulator.IAM{RequireRoles: true, Roles: []emulator.Role{
		{ARN: e2eRole, Trust: []string{emulator.DefaultAccountID}},
		{ARN: planRole, Trust: []string{emulator.DefaultAccountID}},
		{ARN: e2eDeniedRole, Trust: []string{"*"}, Deny: true},
	}})
	f.standardDocs()
	cfg := "repository-id: " + f.RepoID + "\nscopes:\n" +
		"  - name: main\n    secret-prefix: " + f.Prefix + "\n    role-arn: " + e2eRole + "\n    plan-role-arn: " + planRole + "\n"
	lastRole := func() string {
		t.Helper()
		s := e.ctl.Sessions().Sessions
		require.NotEmpty(t, s)
		assert.Equal(t, "sops-aws-sync-main", s[len(s)-1].SessionName)
		return s[len(s)-1].RoleARN
	}
	r := f.run(e, runOpts{Env: env, Config: cfg}, "plan")
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 3})
	assert.Equal(t, planRole, lastRole(), "plan assumes plan-role-arn")
	assert.Len(t, e.ctl.Sessions().Sessions, 1)
	r = f.run(e, runOpts{Env: env, Config: cfg}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	assert.Equal(t, e2eRole, lastRole(), "sync assumes role-arn")
	r = f.run(e, runOpts{Env: env, Config: cfg}, "plan", "--detailed-exit-code")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, planRole, lastRole(), "the drift check assumes plan-role-arn")
	assert.Len(t, e.ctl.Sessions().Sessions, 3, "one role per run")

	// Single-scope flag form: the session is sops-aws-sync-default.
	r = f.run(e, runOpts{Env: env}, f.args("plan", "--role-arn", e2eRole, "--plan-role-arn", planRole)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 3})
	s := e.ctl.Sessions().Sessions
	assert.Equal(t, planRole+" sops-aws-sync-default", s[len(s)-1].RoleARN+" "+s[len(s)-1].SessionName)

	// A refused plan role names the setting it came from.
	r = f.run(e, runOpts{Env: env}, f.args("plan", "--role-arn", e2eRole, "--plan-role-arn", e2eDeniedRole)...)
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, &vocab.Counts{})
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "credentials:assume-role" })
	require.NotNil(t, rec, r.Stdout)
	assert.Contains(t, r.Stdout, "plan-role-arn")

	// Another account than role-arn: refused in plan and sync, no AWS call.
	before := e.stats().Calls["AssumeRole"]
	for _, cmd := range []string{"plan", "sync"} {
		r = f.run(e, runOpts{Env: env}, f.args(cmd, "--role-arn", e2eRole, "--plan-role-arn", "arn:aws:iam::111111111111:role/secrets-plan")...)
		require.Equal(t, 3, r.Code, r.Stderr)
		assert.Contains(t, r.Stderr, "flag --plan-role-arn")
		assert.Contains(t, r.Stderr, "config:invalid-value")
	}
	assert.Equal(t, before, e.stats().Calls["AssumeRole"])
}
