package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// twoHundredScopes is a config file of one scope per name, each in its
// own account of ids (the organization's OrganizationAccountAccessRole),
// with one document each: one SOPS document encrypted once and copied
// under every scope's source root (a SOPS file does not depend on its
// path), so 200 scopes cost one encryption.
func twoHundredScopes(f *fixture, ids map[string]string, names []string) string {
	f.writeDoc("secrets/"+names[0]+"/db.sops.json", `{"password": "CANARY-many-`+token(6)+`"}`, "")
	b, err := os.ReadFile(filepath.Join(f.Repo, "secrets", names[0], "db.sops.json"))
	require.NoError(f.t, err)
	cfg := "repository-id: " + f.RepoID + "\noperation-timeout: 5s\nscopes:\n"
	for _, n := range names {
		cfg += "  - name: " + n + "\n    source-root: secrets/" + n + "\n    secret-prefix: " + f.Prefix + "\n    aws-region: us-east-1\n" +
			"    role-arn: arn:aws:iam::" + ids[n] + ":role/OrganizationAccountAccessRole\n"
		p := filepath.Join(f.Repo, "secrets", n, "db.sops.json")
		require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(f.t, os.WriteFile(p, b, 0o600))
	}
	f.commit("200 scopes")
	return cfg
}

// Failure isolation at 200 accounts (SPEC §17), with the real binary
// against the emulator, one secret per scope:
//
//  1. a content error (a document that is not encrypted) in one of 200
//     scopes: nothing is applied anywhere, exit 3, whatever
//     --max-unreachable-scopes allows;
//  2. fixed, with one account suspended and --max-unreachable-scopes 1:
//     the 199 others converge, exit 5, one AssumeRole per role (200);
//  3. three scopes changed, planned: show's text and Markdown (the
//     pull-request comment and the job summary) render the 3 changed
//     scopes and the suspended one in full and fold the 196 others into
//     one line with their count, far under GitHub's comment limit; the
//     suspended account's scope is named unreachable in the report, the
//     plan file, the text and the Markdown, and no account id is printed.
func TestManyAccounts_200Scopes_ContentErrorSuspendedAccountAndFoldedPlan(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	names := make([]string, 200)
	for i := range names {
		names[i] = fmt.Sprintf("acct-%03d", i)
	}
	ids, env := orgAccounts(t, e, names...)
	cfg := twoHundredScopes(f, ids, names)
	o := runOpts{Env: env, Config: cfg}

	f.writePlain("secrets/acct-137/broken.sops.json", `{"password": "CANARY-plain-`+token(6)+`"}`)
	f.commit("a document that is not encrypted, in one scope of 200")
	r := f.run(e, o, "sync", "--max-unreachable-scopes", "5")
	require.Equal(t, 3, r.Code, r.Stdout)
	assert.Equal(t, vocab.StatusInvalid, r.Report.Status)
	assert.Equal(t, vocab.StatusInvalid, reportScopes(t, r)["acct-137"])
	assert.Zero(t, e.mutatingCalls(), "nothing applied anywhere")
	assert.Empty(t, byAccount(e))

	require.NoError(t, os.Remove(filepath.Join(f.Repo, "secrets", "acct-137", "broken.sops.json")))
	f.commit("the document removed")
	e.ctl.SetAccountStatus(emulator.AccountStatus{AccountID: ids["acct-042"], Status: "SUSPENDED"})
	before := e.stats().Calls["AssumeRole"]
	r = f.run(e, o, "sync", "--max-unreachable-scopes", "1")
	expect(t, r, 5, vocab.StatusUnreachable, vocab.VerificationNotRun, &vocab.Counts{Create: 199})
	assert.Equal(t, int64(200), e.stats().Calls["AssumeRole"]-before, "one AssumeRole per role")
	assert.Len(t, byAccount(e), 199, "every reachable scope converged")
	assert.NotContains(t, byAccount(e), ids["acct-042"])

	changed := []string{"acct-003", "acct-100", "acct-199"}
	for _, n := range changed {
		f.writeDoc("secrets/"+n+"/api.sops.json", `{"token": "CANARY-`+n+`-`+token(6)+`"}`, "")
	}
	f.commit("three scopes changed")
	planFile := filepath.Join(t.TempDir(), "plan.json")
	r = f.run(e, o, "plan", "--max-unreachable-scopes", "1", "--plan-file", planFile)
	require.Equal(t, 5, r.Code, r.Stdout)
	assert.Equal(t, vocab.Counts{Create: 3, Unchanged: 199}, r.Report.Counts)
	assert.Equal(t, vocab.StatusUnreachable, reportScopes(t, r)["acct-042"])
	inPlan, raw := planScopes(t, planFile)
	assert.Len(t, inPlan, 200, "the plan file keeps every scope")
	assert.Equal(t, "unreachable", inPlan["acct-042"])
	text, md := shown(t, planFile)
	for _, n := range changed {
		assert.Equal(t, 1, strings.Count(text, "\nScope "+n+" · us-east-1 · drift\n"), n)
		assert.Equal(t, 1, strings.Count(md, "\n#### Scope `"+n+"` · `us-east-1` · drift\n"), n)
	}
	assert.Equal(t, 1, strings.Count(text, "\nScope acct-042 · us-east-1 · unreachable\n"))
	assert.Equal(t, 1, strings.Count(md, "\n#### Scope `acct-042` · `us-east-1` · unreachable\n"))
	assert.Equal(t, 4, strings.Count(text, "\nScope "), "the 3 changed and the unreachable scope have a section")
	assert.Equal(t, 4, strings.Count(md, "\n#### Scope "))
	assert.Equal(t, 1, strings.Count(text, "\nNo changes in 196 scopes (converged, folded; 196 unchanged): acct-000, acct-001, acct-002, acct-004,"))
	assert.Equal(t, 1, strings.Count(md, "\nNo changes in 196 scopes (converged, folded; 196 unchanged): `acct-000`, `acct-001`,"))
	assert.Contains(t, md, "| 196 scopes with no change |  | converged |")
	assert.Less(t, len(md), planview.GitHubCommentLimit/4, "200 scopes fit a comment")
	for _, out := range []string{text, md} {
		assert.Contains(t, out, "credentials:scope-unreachable")
	}
	for _, id := range ids {
		for _, out := range []string{r.Stdout, r.Stderr, string(r.RawReport), string(raw), text, md} {
			if !assert.NotContains(t, out, id, "account ids are never printed") {
				return
			}
		}
	}
}
