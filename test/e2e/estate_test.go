package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Several scopes in one run (SPEC §10) with the real binary, the real sops
// CLI and the emulator serving two accounts, two Regions and STS: the
// estate below is three scopes, two of them through one assumed role in two
// Regions (the same prefix in both, which is fine), one through another
// role in another account.

const (
	accountA = "111111111111"
	accountB = "222222222222"
	roleA    = "arn:aws:iam::" + accountA + ":role/sync-a"
	roleB    = "arn:aws:iam::" + accountB + ":role/sync-b"
	// foreignKey is an access key of account B, used by the test to play
	// another writer there.
	foreignKey = "AKIAFOREIGNWRITER001"
)

// estateScope is one scope of the estate: its config entry and the
// documents committed under its source root.
type estateScope struct {
	Name, Root, Prefix, Region, Role, Account string
	Docs                                      []doc
}

// estate is a fixture repository with the three scopes' documents, an
// emulator whose STS lets the base identity assume both roles, and the
// config file of the multi-scope run.
type estate struct {
	f      *fixture
	e      *emu
	scopes []estateScope
}

func newEstate(t *testing.T) *estate {
	t.Helper()
	f := newFixture(t)
	e := startEmulator(t)
	e.ctl.SetIAM(emulator.IAM{
		AccessKeys: map[string]string{foreignKey: accountB},
		Roles: []emulator.Role{
			{ARN: roleA, Trust: []string{emulator.DefaultAccountID}},
			{ARN: roleB, Trust: []string{emulator.DefaultAccountID}},
		},
		RequireRoles: true,
	})
	es := &estate{f: f, e: e, scopes: []estateScope{
		{Name: "prod-eu", Root: "secrets/prod", Prefix: f.Prefix + "/prod", Region: "eu-west-1", Role: roleA, Account: accountA},
		{Name: "staging", Root: "secrets/staging", Prefix: f.Prefix + "/staging", Region: "eu-west-1", Role: roleB, Account: accountB},
		{Name: "prod-us", Root: "secrets/prod-us", Prefix: f.Prefix + "/prod", Region: "us-east-1", Role: roleA, Account: accountA},
	}}
	docs := map[string][]string{"prod-eu": {"db", "api"}, "staging": {"db"}, "prod-us": {"cache"}}
	for i := range es.scopes {
		s := &es.scopes[i]
		for _, base := range docs[s.Name] {
			d := doc{Rel: s.Root + "/" + base + ".sops.json", Plain: `{"v": "CANARY-` + s.Name + "-" + base + "-" + token(6) + `"}`,
				Name: s.Prefix + "/" + base}
			f.writeDoc(d.Rel, d.Plain, "")
			f.Values = append(f.Values, d.Plain[strings.Index(d.Plain, "CANARY"):len(d.Plain)-2])
			f.Names = append(f.Names, d.Name, d.Rel)
			s.Docs = append(s.Docs, d)
		}
	}
	f.commit("three scopes")
	return es
}

// config is the multi-scope config file; edit may change a scope's entry.
func (es *estate) config(edit func(i int, s *estateScope)) string {
	var b strings.Builder
	fmt.Fprintf(&b, "repository-id: %s\nscopes:\n", es.f.RepoID)
	for i, s := range es.scopes {
		if edit != nil {
			edit(i, &s)
		}
		fmt.Fprintf(&b, "  - name: %s\n    source-root: %s\n    secret-prefix: %s\n    aws-region: %s\n    role-arn: %s\n",
			s.Name, s.Root, s.Prefix, s.Region, s.Role)
	}
	return b.String()
}

// opts are the run options of the multi-scope run: the config file and the
// emulator's STS endpoint.
func (es *estate) opts(config string, extra ...string) runOpts {
	return runOpts{Config: config, Env: append([]string{"AWS_ENDPOINT_URL_STS=" + es.e.URL}, extra...)}
}

// run runs the CLI with the estate's config and checks that no account id
// appears in any output.
func (es *estate) run(t *testing.T, config string, args ...string) result {
	t.Helper()
	r := es.f.run(es.e, es.opts(config), args...)
	for _, acct := range []string{accountA, accountB, emulator.DefaultAccountID} {
		require.NotContains(t, r.Stdout, acct, "an account id in stdout")
		require.NotContains(t, r.Stderr, acct, "an account id in stderr")
		require.NotContains(t, string(r.RawReport), acct, "an account id in the report")
	}
	return r
}

// secretIn returns the secret name in (account, Region), nil if absent.
func (es *estate) secretIn(account, region, name string) *emulator.SecretDump {
	for _, s := range es.e.state().Secrets {
		if s.Account == account && s.Region == region && s.Name == name {
			return &s
		}
	}
	return nil
}

// scopeRecords returns the records of r that carry scope name.
func scopeRecords(t *testing.T, r result, name string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, rec := range r.records(t) {
		if rec[vocab.FieldScope] == name {
			out = append(out, rec)
		}
	}
	return out
}

// TestScopes_FirstSyncCreatesAllRerunIsNoOp: one sync creates every
// scope's secrets in its own account and Region through its assumed role
// (the STS sessions are named after the scopes); the re-run is a no-op with
// exact calls per (account, Region).
func TestScopes_FirstSyncCreatesAllRerunIsNoOp(t *testing.T) {
	es := newEstate(t)
	cfg := es.config(nil)
	r := es.run(t, cfg, "sync")
	require.Equal(t, 0, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	require.NotNil(t, r.Report)
	assert.Equal(t, vocab.StatusConverged, r.Report.Status)
	assert.Equal(t, vocab.VerificationConverged, r.Report.Verification)
	assert.Equal(t, vocab.Counts{Create: 4}, r.Report.Counts, "the run's counts are the scopes' summed")
	assert.Equal(t, []report.Scope{
		{Name: "prod-eu", Region: "eu-west-1", Status: vocab.StatusConverged, Verification: vocab.VerificationConverged, Counts: vocab.Counts{Create: 2}},
		{Name: "staging", Region: "eu-west-1", Status: vocab.StatusConverged, Verification: vocab.VerificationConverged, Counts: vocab.Counts{Create: 1}},
		{Name: "prod-us", Region: "us-east-1", Status: vocab.StatusConverged, Verification: vocab.VerificationConverged, Counts: vocab.Counts{Create: 1}},
	}, r.Report.Scopes, "the report's scopes: one line per scope in configuration order")
	for _, s := range es.scopes {
		for _, d := range s.Docs {
			got := es.secretIn(s.Account, s.Region, d.Name)
			require.NotNil(t, got, "%s not in %s/%s", d.Name, s.Account, s.Region)
		}
		assert.NotEmpty(t, scopeRecords(t, r, s.Name), "no record carries scope %s", s.Name)
	}
	var sessions []string
	for _, s := range es.e.ctl.Sessions().Sessions {
		sessions = append(sessions, s.RoleARN+" "+s.SessionName)
	}
	assert.ElementsMatch(t, []string{roleA + " sops-aws-sync-prod-eu", roleB + " sops-aws-sync-staging"}, sessions,
		"one session per role for the run (SPEC §17): prod-us shares prod-eu's")

	before := es.e.stats()
	r = es.run(t, cfg, "sync")
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	after := es.e.stats()
	assert.Equal(t, vocab.Counts{Unchanged: 4}, r.Report.Counts)
	for _, s := range es.scopes {
		key := s.Account + "/" + s.Region
		calls := map[string]int64{}
		for op, n := range after.CallsByAccountRegion[key] {
			if d := n - before.CallsByAccountRegion[key][op]; d != 0 {
				calls[op] = d
			}
		}
		// One list page, a describe per owned secret, the values read in one
		// batch, or by GetSecretValue when there is one (docs/reconciliation.md,
		// calls per run); nothing else, no verification pass.
		n := int64(len(s.Docs))
		want := map[string]int64{"ListSecrets": 1, "DescribeSecret": n, "BatchGetSecretValue": 1}
		if n == 1 {
			want = map[string]int64{"ListSecrets": 1, "DescribeSecret": 1, "GetSecretValue": 1}
		}
		assert.Equal(t, want, calls, "no-op calls of scope %s", s.Name)
	}
}

// TestScopes_SingleScopeRunsThenOneRunPlanNothing: the same three scopes
// synced by three single-scope runs (flags, one role each) are exactly the
// scopes of the multi-scope run: it plans nothing (same tags, same scope
// digests).
func TestScopes_SingleScopeRunsThenOneRunPlanNothing(t *testing.T) {
	es := newEstate(t)
	for _, s := range es.scopes {
		r := es.f.run(es.e, runOpts{Env: []string{"AWS_ENDPOINT_URL_STS=" + es.e.URL}}, "sync",
			"--repository-id", es.f.RepoID, "--source-root", s.Root, "--secret-prefix", s.Prefix,
			"--aws-region", s.Region, "--role-arn", s.Role)
		require.Equal(t, 0, r.Code, "single-scope sync of %s:\n%s\n%s", s.Name, r.Stdout, r.Stderr)
	}
	before := es.e.mutatingCalls()
	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := es.run(t, es.config(nil), "plan", "--detailed-exit-code", "--plan-file", planFile)
	require.Equal(t, 0, r.Code, "the multi-scope plan over the same scopes:\n%s", r.Stdout)
	assert.Equal(t, vocab.Counts{Unchanged: 4}, r.Report.Counts)
	assert.Equal(t, before, es.e.mutatingCalls())
}

// TestScopes_InvalidDocumentInOneScopeWritesNothing: a document of the
// third scope that cannot be decrypted stops the whole run (exit 3) before
// any Secrets Manager write (reads may overlap decryption, SPEC §3.2); its
// diagnostic's record names the scope.
func TestScopes_InvalidDocumentInOneScopeWritesNothing(t *testing.T) {
	es := newEstate(t)
	other, err := newRecipient()
	require.NoError(t, err)
	es.f.writeDoc("secrets/prod-us/locked.sops.json", `{"v": "CANARY-locked"}`, other)
	es.f.Names = append(es.f.Names, "secrets/prod-us/locked.sops.json")
	es.f.commit("a document this key cannot open")
	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := es.run(t, es.config(nil), "sync", "--plan-file", planFile)
	require.Equal(t, 3, r.Code, "stdout:\n%s", r.Stdout)
	assert.Equal(t, vocab.StatusInvalid, r.Report.Status)
	assert.Zero(t, es.e.mutatingCalls())
	var rejected []map[string]any
	for _, rec := range r.records(t) {
		if strings.HasPrefix(fmt.Sprint(rec["msg"]), "desired state rejected") {
			rejected = append(rejected, rec)
		}
	}
	require.Len(t, rejected, 1, "stdout:\n%s", r.Stdout)
	assert.Equal(t, "prod-us", rejected[0][vocab.FieldScope])
	assert.Equal(t, "decrypt:no-key", rejected[0][vocab.FieldErrorClass])
	v, err := planview.ReadFile(planFile)
	require.NoError(t, err)
	diags := map[string][]string{}
	for _, s := range v.Scopes {
		assert.Equal(t, vocab.StatusInvalid, s.Status, "scope %s", s.Name)
		for _, d := range s.Diagnostics {
			diags[s.Name] = append(diags[s.Name], d.Class)
		}
	}
	assert.Equal(t, map[string][]string{"prod-us": {"decrypt:no-key"}}, diags, "the plan file puts the diagnostic in its scope's section")
}

// TestScopes_ForeignSecretInOneScopeWritesNowhere: a secret another writer
// made under the second scope's prefix (in its account) is a conflict:
// exit 4, and nothing is written in the first and third scopes either.
func TestScopes_ForeignSecretInOneScopeWritesNowhere(t *testing.T) {
	es := newEstate(t)
	foreign := secretsmanager.New(secretsmanager.Options{
		Region: "eu-west-1", BaseEndpoint: aws.String(es.e.URL),
		Credentials: credentials.NewStaticCredentialsProvider(foreignKey, "x", ""),
	})
	_, err := foreign.CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{
		Name: aws.String(es.scopes[1].Docs[0].Name), SecretString: aws.String(`{"theirs":true}`)})
	require.NoError(t, err)
	before := es.e.mutatingCalls()
	r := es.run(t, es.config(nil), "sync")
	require.Equal(t, 4, r.Code, "stdout:\n%s", r.Stdout)
	assert.Equal(t, vocab.StatusConflict, r.Report.Status)
	assert.Equal(t, before, es.e.mutatingCalls(), "no write in any scope")
	for _, s := range []estateScope{es.scopes[0], es.scopes[2]} {
		for _, d := range s.Docs {
			assert.Nil(t, es.secretIn(s.Account, s.Region, d.Name), "%s was created", d.Name)
		}
	}
}

// TestScopes_DeniedRoleAppliesNothing: STS refuses the second scope's role:
// exit 5 with credentials:assume-role, nothing applied anywhere. Every
// other scope says why it stopped (issue 30: it used to read
// observation-failed with no reason): observe:halted, "halted: scope
// staging failed"; the report and the plan file show the commit, which
// was resolved before the AWS set-up.
func TestScopes_DeniedRoleAppliesNothing(t *testing.T) {
	es := newEstate(t)
	es.e.ctl.SetIAM(emulator.IAM{Roles: []emulator.Role{
		{ARN: roleA, Trust: []string{emulator.DefaultAccountID}},
		{ARN: roleB, Deny: true},
	}, RequireRoles: true})
	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := es.run(t, es.config(nil), "sync", "--plan-file", planFile)
	require.Equal(t, 5, r.Code, "stdout:\n%s", r.Stdout)
	assert.Zero(t, es.e.mutatingCalls())
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m[vocab.FieldErrorClass] == "credentials:assume-role" })
	require.NotNil(t, rec, "stdout:\n%s", r.Stdout)
	assert.Equal(t, "staging", rec[vocab.FieldScope], "the record names the scope whose role was refused")
	v, err := planview.ReadFile(planFile)
	require.NoError(t, err)
	diags := map[string][]string{}
	for _, s := range v.Scopes {
		for _, d := range s.Diagnostics {
			diags[s.Name] = append(diags[s.Name], d.Class)
		}
	}
	assert.Equal(t, map[string][]string{"staging": {"credentials:assume-role"}, "prod-eu": {"observe:halted"}, "prod-us": {"observe:halted"}},
		diags, "the plan file puts it in the scope's section, and says why the others stopped")
	for _, s := range v.Scopes {
		assert.Equal(t, vocab.StatusObservationFailed, s.Status, s.Name)
		if s.Name != "staging" {
			assert.True(t, strings.HasPrefix(s.Diagnostics[0].Summary, "halted: scope staging failed"), s.Diagnostics[0].Summary)
		}
	}
	head := es.f.git("rev-parse", "HEAD")
	assert.Equal(t, head, r.Report.GitRevision, "the commit was resolved")
	assert.Equal(t, head, v.GitRevision)
	shown, err := exec.Command(cliBin, "show", planFile).CombinedOutput()
	require.NoError(t, err, "%s", shown)
	assert.Contains(t, string(shown), "at commit "+head)
	assert.Contains(t, string(shown), "halted: scope staging failed")
	assert.NotContains(t, string(shown), "(commit not resolved)")
}

// TestScopes_ApplyFaultInOneBucketThenRerunConverges: the first create of
// the run fails closed (AccessDenied): exit 5 (no new operation starts in
// any scope after it); the re-run converges every scope.
func TestScopes_ApplyFaultInOneBucketThenRerunConverges(t *testing.T) {
	es := newEstate(t)
	es.e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 1, Fault: "error:AccessDeniedException"}}})
	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := es.run(t, es.config(nil), "sync", "--plan-file", planFile)
	require.Equal(t, 5, r.Code, "stdout:\n%s", r.Stdout)
	assert.Equal(t, vocab.StatusApplyFailed, r.Report.Status)
	// One scope failed; each other one either finished before the failure
	// (converged, verified) or stopped without starting another operation.
	v, err := planview.ReadFile(planFile)
	require.NoError(t, err)
	failed := 0
	for _, s := range v.Scopes {
		switch {
		case s.Status == vocab.StatusConverged:
			assert.Equal(t, vocab.VerificationConverged, s.Verification, "scope %s", s.Name)
		case s.Status == vocab.StatusApplyFailed && len(s.Diagnostics) == 1 && s.Diagnostics[0].Class == "apply:halted":
		case s.Status == vocab.StatusApplyFailed:
			failed++
		default:
			assert.Failf(t, "unexpected scope status", "scope %s ended %s", s.Name, s.Status)
		}
	}
	assert.Equal(t, 1, failed, "exactly the scope whose create was refused failed on its own")
	es.e.setFaults(emulator.Faults{})
	r = es.run(t, es.config(nil), "sync")
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	for _, s := range es.scopes {
		for _, d := range s.Docs {
			require.NotNil(t, es.secretIn(s.Account, s.Region, d.Name), "%s after the re-run", d.Name)
		}
	}
}

// TestScopes_PlanDriftInOneScopeIsExit2: after a sync, one changed
// document of the second scope makes plan --detailed-exit-code exit 2, and
// the plan file says which scope drifts.
func TestScopes_PlanDriftInOneScopeIsExit2(t *testing.T) {
	es := newEstate(t)
	cfg := es.config(nil)
	require.Equal(t, 0, es.run(t, cfg, "sync").Code)
	d := es.scopes[1].Docs[0]
	es.f.writeDoc(d.Rel, `{"v": "CANARY-changed-`+token(6)+`"}`, "")
	es.f.commit("change one staging document")
	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := es.run(t, cfg, "plan", "--detailed-exit-code", "--plan-file", planFile)
	require.Equal(t, 2, r.Code, "stdout:\n%s", r.Stdout)
	v, err := planview.ReadFile(planFile)
	require.NoError(t, err)
	statuses := map[string]vocab.Status{}
	for _, s := range v.Scopes {
		statuses[s.Name] = s.Status
	}
	assert.Equal(t, map[string]vocab.Status{"prod-eu": vocab.StatusConverged, "staging": vocab.StatusDrift, "prod-us": vocab.StatusConverged}, statuses)
}

// TestScopes_OverlappingPrefixesInOneBucketRefusedBeforeAnyRead: two
// scopes of one (account, Region) whose prefixes overlap at a / boundary
// are exit 3 before any secret is read; the same prefix in two Regions
// (prod-eu and prod-us above) is fine.
func TestScopes_OverlappingPrefixesInOneBucketRefusedBeforeAnyRead(t *testing.T) {
	es := newEstate(t)
	cfg := es.config(func(i int, s *estateScope) {
		if s.Name == "prod-us" { // into prod-eu's bucket, under its prefix
			s.Region, s.Prefix = "eu-west-1", es.scopes[0].Prefix+"/us"
		}
	})
	r := es.run(t, cfg, "sync")
	require.Equal(t, 3, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	assert.Empty(t, es.e.stats().Calls, "no AWS call at all")
	assert.Contains(t, r.Stdout+r.Stderr, "config:scope-overlap")
}

// TestRegression_ScopeFilterHidOverlappingScopes: with --scope, the
// overlap rule was applied only to the scopes selected, so --scope staging
// synced although prod-us overlapped prod-eu in one bucket. The rule holds
// over every configured scope: exit 3 whichever scope runs, before any AWS
// call, naming the scopes involved.
func TestRegression_ScopeFilterHidOverlappingScopes(t *testing.T) {
	es := newEstate(t)
	cfg := es.config(func(i int, s *estateScope) {
		if s.Name == "prod-us" { // into prod-eu's bucket, under its prefix
			s.Region, s.Prefix = "eu-west-1", es.scopes[0].Prefix+"/us"
		}
	})
	for _, selected := range []string{"staging", "prod-eu"} {
		planFile := filepath.Join(t.TempDir(), "plan.json")
		r := es.run(t, cfg, "sync", "--scope", selected, "--plan-file", planFile)
		require.Equal(t, 3, r.Code, "--scope %s\nstdout:\n%s\nstderr:\n%s", selected, r.Stdout, r.Stderr)
		assert.Empty(t, es.e.stats().Calls, "no AWS call at all")
		assert.Equal(t, vocab.StatusInvalid, r.Report.Status)
		assert.Contains(t, r.Stdout+r.Stderr, "config:scope-overlap")
		v, err := planview.ReadFile(planFile)
		require.NoError(t, err)
		ds := v.Diagnostics // the selected scope's own are in its section
		for _, sc := range v.Scopes {
			ds = append(ds, sc.Diagnostics...)
		}
		var subjects []string
		for _, d := range ds {
			if d.Class == "config:scope-overlap" {
				subjects = append(subjects, d.Subject)
			}
		}
		assert.ElementsMatch(t, []string{"config file key scopes.prod-eu.secret-prefix", "config file key scopes.prod-us.secret-prefix"}, subjects, "--scope %s", selected)
	}
}

// TestScopes_InterruptedDuringApplyThenRerunConverges: SIGINT while the
// scopes apply ends the whole run interrupted (exit 130): every scope that
// had not finished is interrupted, none claims more; the re-run converges
// every scope.
func TestScopes_InterruptedDuringApplyThenRerunConverges(t *testing.T) {
	es := newEstate(t)
	es.e.setFaults(emulator.Faults{LatencyMS: 300})
	cmd := es.f.start(es.e, es.opts(es.config(nil)), "sync", "--concurrency", "1")
	require.True(t, cmd.waitFor(func(m map[string]any) bool { return m["phase"] == "apply" }), "a scope reached its apply phase")
	require.NoError(t, cmd.cmd.Process.Signal(syscall.SIGINT))
	r := cmd.wait()
	require.Equal(t, 130, r.Code, "stdout:\n%s", r.Stdout)
	assert.Equal(t, vocab.StatusInterrupted, r.Report.Status)
	finished := map[string]any{}
	for _, rec := range r.records(t) {
		if rec["msg"] == "scope finished" {
			finished[fmt.Sprint(rec[vocab.FieldScope])] = rec[vocab.FieldStatus]
			assert.Contains(t, []any{string(vocab.StatusInterrupted), string(vocab.StatusConverged)}, rec[vocab.FieldStatus], "scope %v", rec[vocab.FieldScope])
		}
	}
	assert.Len(t, finished, 3, "one scope finished record per scope:\n%s", r.Stdout)
	assert.Contains(t, finished, "prod-eu")

	es.e.setFaults(emulator.Faults{})
	r = es.run(t, es.config(nil), "sync")
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	for _, s := range es.scopes {
		for _, d := range s.Docs {
			require.NotNil(t, es.secretIn(s.Account, s.Region, d.Name), "%s after the re-run", d.Name)
		}
	}
}

// TestRegression_SiblingScopeReportedAsOrphan: two scopes of one
// configuration publish the same documents (one source root) under two
// prefixes in one account and Region. Each scope's plan warned that the
// other's secrets were orphans "left by a change of --secret-prefix" and
// told the operator to retire them: a live scope of the same file. Secrets
// of a scope the configuration holds (selected by --scope or not) are not
// orphans; a prefix really left behind still is.
func TestRegression_SiblingScopeReportedAsOrphan(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	config := func(prefixB string) string {
		return fmt.Sprintf("repository-id: %s\nsource-root: secrets\nscopes:\n"+
			"  - name: a\n    secret-prefix: %s/a\n  - name: b\n    secret-prefix: %s\n", f.RepoID, f.Prefix, prefixB)
	}
	isOrphanWarning := func(m map[string]any) bool {
		msg, _ := m["msg"].(string)
		return m["level"] == "WARN" && strings.Contains(msg, "another scope")
	}
	sts := []string{"AWS_ENDPOINT_URL_STS=" + e.URL}
	cfg := config(f.Prefix + "/b")
	r := f.run(e, runOpts{Config: cfg, Env: sts}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 6})

	for _, args := range [][]string{{"plan"}, {"plan", "--scope", "a"}} {
		r, view, _ := f.runPlan(e, runOpts{Config: cfg, Env: sts}, args...)
		expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, nil)
		assert.Nil(t, findRecord(r.records(t), isOrphanWarning), "%v: a sibling scope's secrets are no orphans:\n%s", args, r.Stdout)
		for _, s := range view.Scopes {
			assert.Empty(t, s.Diagnostics, "%v: scope %s", args, s.Name)
		}
	}

	// Scope b moves to another prefix: the secrets under its old prefix
	// belong to no scope of the file and are orphans again, for both scopes
	// (their documents are both scopes' documents).
	r, view, _ := f.runPlan(e, runOpts{Config: config(f.Prefix + "/c"), Env: sts}, "plan")
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, nil)
	require.Len(t, view.Scopes, 2)
	for _, s := range view.Scopes {
		require.Len(t, s.Diagnostics, 1, "scope %s", s.Name)
		assert.Equal(t, "warning:orphans", s.Diagnostics[0].Class)
		assert.Contains(t, s.Diagnostics[0].Summary, "3 secrets")
	}
}

// TestScopes_SharedRootInvalidDocumentReportedInEveryScope: two scopes
// over one source root (two Regions) read each blob once (desired.Cache),
// yet a document that no key opens is still reported in both scopes, each
// record naming its scope: exit 3 and nothing written anywhere.
func TestScopes_SharedRootInvalidDocumentReportedInEveryScope(t *testing.T) {
	es := newEstate(t)
	other, err := newRecipient()
	require.NoError(t, err)
	es.f.writeDoc("secrets/prod/locked.sops.json", `{"v": "CANARY-locked"}`, other)
	es.f.Names = append(es.f.Names, "secrets/prod/locked.sops.json")
	es.f.commit("a document this key cannot open, under a root two scopes share")
	config := es.config(func(_ int, s *estateScope) {
		if s.Name == "prod-us" {
			s.Root = "secrets/prod"
		}
	})
	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := es.run(t, config, "sync", "--plan-file", planFile)
	require.Equal(t, 3, r.Code, "stdout:\n%s", r.Stdout)
	assert.Zero(t, es.e.mutatingCalls())
	var rejected []string
	for _, rec := range r.records(t) {
		if strings.HasPrefix(fmt.Sprint(rec["msg"]), "desired state rejected") {
			assert.Equal(t, "decrypt:no-key", rec[vocab.FieldErrorClass])
			rejected = append(rejected, fmt.Sprint(rec[vocab.FieldScope]))
		}
	}
	assert.Equal(t, []string{"prod-eu", "prod-us"}, rejected, "one record per scope that selects the document, in config order")
	v, err := planview.ReadFile(planFile)
	require.NoError(t, err)
	diags := map[string][]string{}
	for _, s := range v.Scopes {
		for _, d := range s.Diagnostics {
			diags[s.Name] = append(diags[s.Name], d.Class)
		}
	}
	assert.Equal(t, map[string][]string{"prod-eu": {"decrypt:no-key"}, "prod-us": {"decrypt:no-key"}}, diags)
}

// TestRegression_RejectedDesiredStateShowsTheResolvedCommit: a run whose
// commit was resolved shows it (docs/results.md, git_revision; issue 30):
// a source root missing from the commit ends exit 3 with the commit in
// the report and the plan file, whether the run has one scope or several
// (the other scopes loaded, the commit resolved once for the run), as a
// valid run of the same estate does. Both used to be "" (the header said
// "(commit not resolved)").
func TestRegression_RejectedDesiredStateShowsTheResolvedCommit(t *testing.T) {
	es := newEstate(t)
	head := es.f.git("rev-parse", "HEAD")
	revisions := func(t *testing.T, r result, planFile string) (string, string) {
		t.Helper()
		require.NotNil(t, r.Report, "stdout:\n%s", r.Stdout)
		v, err := planview.ReadFile(planFile)
		require.NoError(t, err)
		return r.Report.GitRevision, v.GitRevision
	}

	planFile := filepath.Join(t.TempDir(), "plan.json")
	r := es.run(t, es.config(nil), "plan", "--plan-file", planFile)
	require.Equal(t, 0, r.Code, "stdout:\n%s", r.Stdout)
	rep, pf := revisions(t, r, planFile)
	assert.Equal(t, head, rep, "a valid run: report")
	assert.Equal(t, head, pf, "a valid run: plan file")

	missing := es.config(func(_ int, s *estateScope) {
		if s.Name == "staging" {
			s.Root = "secrets/missing"
		}
	})
	planFile = filepath.Join(t.TempDir(), "plan.json")
	r = es.run(t, missing, "plan", "--plan-file", planFile)
	require.Equal(t, 3, r.Code, "stdout:\n%s", r.Stdout)
	assert.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool {
		return m[vocab.FieldErrorClass] == "source:missing-root" && m[vocab.FieldScope] == "staging"
	}), "stdout:\n%s", r.Stdout)
	rep, pf = revisions(t, r, planFile)
	assert.Equal(t, head, rep, "several scopes: report")
	assert.Equal(t, head, pf, "several scopes: plan file")

	planFile = filepath.Join(t.TempDir(), "plan.json")
	r = es.f.run(es.e, runOpts{}, es.f.args("plan", "--source-root", "secrets/missing", "--plan-file", planFile)...)
	require.Equal(t, 3, r.Code, "stdout:\n%s", r.Stdout)
	rep, pf = revisions(t, r, planFile)
	assert.Equal(t, head, rep, "one scope: report")
	assert.Equal(t, head, pf, "one scope: plan file")
}
