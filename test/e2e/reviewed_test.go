package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// reviewedPlan runs plan with --plan-file (and extra) and returns the plan
// file's path: the plan a reviewer approved.
func (f *fixture) reviewedPlan(e *emu, o runOpts, extra ...string) string {
	f.t.Helper()
	p := filepath.Join(f.t.TempDir(), "reviewed.json")
	r := f.run(e, o, f.args("plan", append(extra, "--plan-file", p)...)...)
	require.Equal(f.t, 0, r.Code, "plan: %s", r.Stdout)
	return p
}

// expectStale asserts that a run with a reviewed plan ended exit 3,
// invalid, class plan:stale with each of kinds in its records, and that
// it wrote nothing since before.
func expectStale(t *testing.T, e *emu, r result, before int64, kinds ...string) {
	t.Helper()
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout, `"error_class":"plan:stale"`)
	for _, k := range kinds {
		assert.Contains(t, r.Stdout, k, "a plan:stale record says %q", k)
	}
	assert.Equal(t, before, e.mutatingCalls(), "nothing written when the plan is stale")
}

// TestReviewedPlan_SyncAppliesExactlyTheReviewedPlan (SPEC §14): a plan
// file written by plan (names hidden) is applied by sync --reviewed-plan
// and converges; plan --reviewed-plan answers exit 0 before; after the
// sync a re-run with the same file writes nothing and is converged (the
// reviewed plan or nothing).
func TestReviewedPlan_SyncAppliesExactlyTheReviewedPlan(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	p := f.reviewedPlan(e, runOpts{})

	r := f.run(e, runOpts{}, f.args("plan", "--reviewed-plan", p)...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 3})
	assert.Zero(t, e.mutatingCalls(), "plan --reviewed-plan writes nothing")

	r = f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	for _, d := range docs {
		assert.NotEmpty(t, e.currentValue(d.Name))
	}

	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, before, e.mutatingCalls())
}

// TestRegression_SyncSaysItAppliesTheReviewedPlan: issue 44 §4. A sync
// given a reviewed plan that its own plan equals said nothing of it: now
// one record, before the writes, says "applying the reviewed plan (3
// operations, reviewed at commit …)", its plan file keeps it (reviewed)
// and its renderings (the text after the log, show's text and Markdown)
// say it under the heading "sops-aws-sync sync", not "plan". A stale
// reviewed plan is never said to be applied.
func TestRegression_SyncSaysItAppliesTheReviewedPlan(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	reviewedAt := strings.TrimSpace(f.git("rev-parse", "HEAD"))
	p := f.reviewedPlan(e, runOpts{})
	line := "applying the reviewed plan (3 operations, reviewed at commit " + reviewedAt + ")"

	r, v, raw := f.runPlan(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	recs := r.records(t)
	i := slices.IndexFunc(recs, func(m map[string]any) bool { return m["msg"] == line })
	require.GreaterOrEqual(t, i, 0, "no record %q:\n%s", line, r.Stdout)
	assert.Equal(t, "apply", recs[i]["phase"])
	assert.EqualValues(t, 3, recs[i]["count"])
	first := slices.IndexFunc(recs, func(m map[string]any) bool { return m["msg"] == "operation applied" })
	assert.Less(t, i, first, "said before the first write")
	assert.Equal(t, &planview.Reviewed{GitRevision: reviewedAt, Operations: 3}, v.Reviewed)
	for format, heading := range map[string]string{"text": "sops-aws-sync sync at commit ", "markdown": "### sops-aws-sync sync\n"} {
		out, err := exec.Command(cliBin, "show", "--format", format, writeTemp(t, raw)).CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.True(t, strings.HasPrefix(string(out), heading), "%s:\n%s", format, out)
		assert.Contains(t, string(out), "Applying the reviewed plan (3 operations, reviewed at commit "+reviewedAt+")", format)
	}

	f.addDoc("later", ".sops.json", `{"k": "CANARY-later-`+token(3)+`"}`)
	f.commit("a document added after review")
	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...)
	expectStale(t, e, r, before)
	assert.NotContains(t, r.Stdout, "pplying the reviewed plan")
}

// TestReviewedPlan_SameTreeInAMergeCommitApplies: the plan reviewed on
// the pull request's head commit applies to the merge commit of main
// whose source-root tree is the same (a new commit id, the same change).
func TestReviewedPlan_SameTreeInAMergeCommitApplies(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	f.git("checkout", "-q", "-b", "feature")
	name := f.addDoc("feat"+token(2), ".sops.json", `{"k": "CANARY-feat-`+token(6)+`"}`)
	f.commit("feature: one more document")
	p := f.reviewedPlan(e, runOpts{})

	f.git("checkout", "-q", "main")
	require.NoError(t, os.WriteFile(filepath.Join(f.Repo, "README.md"), []byte("outside the source root\n"), 0o600))
	f.commit("main moved outside the source root")
	f.git("merge", "-q", "--no-ff", "-m", "merge feature", "feature")

	r := f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 4})
	assert.NotEmpty(t, e.currentValue(name))
}

// TestReviewedPlan_StaleWritesNothing: each change after review makes
// sync --reviewed-plan exit 3 plan:stale with the kind of difference and
// zero writes: another commit changes a document, a setting changed, an
// out-of-band write, a deleted secret, a new owned secret made by another
// run; plan --reviewed-plan says the same without writing.
func TestReviewedPlan_StaleWritesNothing(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)

	// The reviewed change updates one document.
	f.writeDoc(docs[0].Rel, `{"password": "CANARY-json2-`+token(6)+`", "port": 5433}`, "")
	f.Values = append(f.Values, "CANARY-json2-")
	reviewed := f.commit("update one document")
	p := f.reviewedPlan(e, runOpts{})
	r = f.run(e, runOpts{}, f.args("plan", "--reviewed-plan", p)...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 1, Unchanged: 2})

	t.Run("another commit changes a document", func(t *testing.T) {
		f.writeDoc(docs[1].Rel, "api_key: CANARY-yaml2-"+token(6)+"\n", "")
		f.Values = append(f.Values, "CANARY-yaml2-")
		f.commit("another change")
		before := e.mutatingCalls()
		expectStale(t, e, f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...), before, "source changed", "operation changed")
		expectStale(t, e, f.run(e, runOpts{}, f.args("plan", "--reviewed-plan", p)...), before, "source changed")
		f.git("reset", "-q", "--hard", reviewed)
	})
	t.Run("a setting changed", func(t *testing.T) {
		before := e.mutatingCalls()
		expectStale(t, e, f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p, "--recovery-window-days", "14")...), before, "settings changed")
	})
	t.Run("an out-of-band write after review", func(t *testing.T) {
		e.putValue(docs[0].Name, `{"password": "CANARY-oob-x", "port": 5432}`)
		f.Values = append(f.Values, "CANARY-oob-x")
		before := e.mutatingCalls()
		expectStale(t, e, f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...), before, "AWS changed since review")
	})
	t.Run("a secret deleted after review", func(t *testing.T) {
		_, err := e.sdk().DeleteSecret(context.Background(), &secretsmanager.DeleteSecretInput{SecretId: aws.String(docs[1].Name), RecoveryWindowInDays: aws.Int64(7)})
		require.NoError(t, err)
		before := e.mutatingCalls()
		expectStale(t, e, f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...), before, "plan:stale")
	})
}

// TestReviewedPlan_NewOwnedSecretOfAnotherRunIsStale: after review,
// another run (a sync of another branch's commit) creates a secret this
// scope owns; the reviewed plan did not delete it, the run now would:
// operation added, nothing written.
func TestReviewedPlan_NewOwnedSecretOfAnotherRunIsStale(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	p := f.reviewedPlan(e, runOpts{})
	main := f.git("rev-parse", "HEAD")

	f.git("checkout", "-q", "-b", "other")
	f.addDoc("other"+token(2), ".sops.json", `{"k": "CANARY-other-`+token(6)+`"}`)
	f.commit("another branch")
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 4})
	f.git("checkout", "-q", "main")
	require.Equal(t, main, f.git("rev-parse", "HEAD"))

	before := e.mutatingCalls()
	expectStale(t, e, f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...), before, "operation added", "operation changed")
}

// TestReviewedPlan_NamesShownFileWorks: a plan file written with
// --show-resource-names applies; a run without names that finds it stale
// labels resources by ordinal, never by the file's names.
func TestReviewedPlan_NamesShownFileWorks(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	p := f.reviewedPlan(e, runOpts{ShowNames: true}, "--show-resource-names")
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(raw), f.Prefix, "the file shows names")

	r := f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", p)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
}

// TestReviewedPlan_TamperedFileIsNeverApplied: a plan file with an
// operation removed (its count too, so the file stays well-formed) or a
// fingerprint edited is stale; a file that breaks the schema is
// planfile:malformed; neither writes anything.
func TestReviewedPlan_TamperedFileIsNeverApplied(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	p := f.reviewedPlan(e, runOpts{})
	raw, err := os.ReadFile(p)
	require.NoError(t, err)

	edit := func(change func(scope map[string]any)) string {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc))
		change(doc["scopes"].([]any)[0].(map[string]any))
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		out := filepath.Join(t.TempDir(), "tampered.json")
		require.NoError(t, os.WriteFile(out, b, 0o600))
		return out
	}
	removed := edit(func(s map[string]any) {
		ops := s["operations"].([]any)
		s["operations"] = ops[1:]
		s["counts"].(map[string]any)["create"] = float64(len(ops) - 1)
	})
	fingerprint := edit(func(s map[string]any) {
		fp := s["operations"].([]any)[0].(map[string]any)["fingerprint"].(map[string]any)
		v := fp["versions"].(string)
		fp["versions"] = strings.Repeat("0", len(v))
	})
	broken := edit(func(s map[string]any) { s["operations"] = "none" })

	expectStale(t, e, f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", removed)...), 0, "operation added")
	expectStale(t, e, f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", fingerprint)...), 0, "AWS changed since review")
	lists := e.stats().Calls["ListSecrets"]
	r := f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", broken)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout, `"error_class":"planfile:malformed"`)
	assert.Zero(t, e.mutatingCalls())
	assert.Equal(t, lists, e.stats().Calls["ListSecrets"], "a file that is no plan stops the run before any AWS call")
}

// TestReviewedPlan_NotThisRunsPlan: a plan of another repository-id, one
// written by sync, and a report file given as a plan are each refused
// with their own class before any AWS call.
func TestReviewedPlan_NotThisRunsPlan(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	p := f.reviewedPlan(e, runOpts{})

	r := f.run(e, runOpts{}, "sync", "--secret-prefix", f.Prefix, "--repository-id", "someone/else", "--reviewed-plan", p)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout, `"error_class":"plan:other-repository"`)

	synced := filepath.Join(t.TempDir(), "synced.json")
	r = f.run(e, runOpts{}, f.args("sync", "--plan-file", synced)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
	before, lists := e.mutatingCalls(), e.stats().Calls["ListSecrets"]
	r = f.run(e, runOpts{}, f.args("sync", "--reviewed-plan", synced)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout, `"error_class":"plan:not-reviewable"`)

	report := filepath.Join(t.TempDir(), "report.json")
	require.NoError(t, os.WriteFile(report, r.RawReport, 0o600))
	r = f.run(e, runOpts{}, f.args("plan", "--reviewed-plan", report)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout, `"error_class":"planfile:`)
	assert.Equal(t, before, e.mutatingCalls())
	assert.Equal(t, lists, e.stats().Calls["ListSecrets"], "refused before any AWS call")
}

// TestReviewedPlan_OtherScopesAreRefused (SPEC §14): a reviewed plan of
// another scope set is plan:other-scopes, exit 3, before any Secrets
// Manager call: the file of both scopes given to a run of one (--scope),
// the same scopes in another order, and a plan of the run without scopes:
// (one scope, default) given to the run with them. The file of both scopes
// given to the run of both applies.
func TestReviewedPlan_OtherScopesAreRefused(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	env := []string{"AWS_ENDPOINT_URL_STS=" + e.URL}
	tok := token(4)
	f.writeDoc("secrets/one/db.sops.json", `{"password": "CANARY-one-`+tok+`"}`, "")
	f.writeDoc("secrets/two/db.sops.json", `{"password": "CANARY-two-`+tok+`"}`, "")
	f.Values = append(f.Values, "CANARY-one-"+tok, "CANARY-two-"+tok)
	f.Names = append(f.Names, f.Prefix+"/one/db", f.Prefix+"/two/db")
	f.commit("two scopes")
	scope := func(name string) string {
		return "  - name: " + name + "\n    source-root: secrets/" + name + "\n    secret-prefix: " + f.Prefix + "/" + name + "\n"
	}
	both := "repository-id: " + f.RepoID + "\nscopes:\n" + scope("one") + scope("two")
	reversed := "repository-id: " + f.RepoID + "\nscopes:\n" + scope("two") + scope("one")

	p := filepath.Join(t.TempDir(), "both.json")
	r := f.run(e, runOpts{Env: env, Config: both}, "plan", "--plan-file", p)
	require.Equal(t, 0, r.Code, r.Stdout)
	single := filepath.Join(t.TempDir(), "default.json")
	r = f.run(e, runOpts{}, "plan", "--secret-prefix", f.Prefix, "--repository-id", f.RepoID, "--source-root", "secrets", "--plan-file", single)
	require.Equal(t, 0, r.Code, r.Stdout)

	for _, c := range []struct {
		name   string
		config string
		args   []string
	}{
		{"one scope of the two", both, []string{"sync", "--scope", "one", "--reviewed-plan", p}},
		{"the scopes in another order", reversed, []string{"sync", "--reviewed-plan", p}},
		{"plan --reviewed-plan of one scope of the two", both, []string{"plan", "--scope", "two", "--reviewed-plan", p}},
		{"the default scope's plan", both, []string{"sync", "--reviewed-plan", single}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, lists := e.mutatingCalls(), e.stats().Calls["ListSecrets"]
			r := f.run(e, runOpts{Env: env, Config: c.config}, c.args...)
			expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
			assert.Contains(t, r.Stdout, `"error_class":"plan:other-scopes"`)
			assert.NotContains(t, r.Stdout, `"error_class":"plan:stale"`)
			assert.Equal(t, before, e.mutatingCalls(), "nothing written")
			assert.Equal(t, lists, e.stats().Calls["ListSecrets"], "refused before any Secrets Manager call")
		})
	}

	r = f.run(e, runOpts{Env: env, Config: both}, "sync", "--reviewed-plan", p)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 2})
}
