package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// syncWithChanges runs sync with --changes-file and returns the result and
// the parsed file (its mode checked: 0600).
func (f *fixture) syncWithChanges(e *emu, extra ...string) (result, changes.Changes) {
	f.t.Helper()
	p := filepath.Join(f.t.TempDir(), "changes.json")
	r := f.run(e, runOpts{}, f.args("sync", append([]string{"--changes-file", p}, extra...)...)...)
	b, err := os.ReadFile(p)
	require.NoError(f.t, err, "no changes file\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	st, err := os.Stat(p)
	require.NoError(f.t, err)
	require.Equal(f.t, os.FileMode(0o600), st.Mode().Perm(), "changes file mode")
	c, err := changes.Parse(b)
	require.NoError(f.t, err, "changes file is not schema-exact:\n%s", b)
	return r, c
}

// currentVersionOf is the id of the AWSCURRENT version of name in the
// emulator ("" when none).
func (e *emu) currentVersionOf(name string) string {
	s := e.secret(name)
	if s == nil {
		return ""
	}
	for _, v := range s.Versions {
		if slices.Contains(v.Stages, "AWSCURRENT") {
			return v.VersionID
		}
	}
	return ""
}

// TestChangesFile_CreateUpdateDeleteNoop: with the real binary, sync
// --changes-file lists exactly the secrets the run changed, each with its
// scope, action, name, full ARN (the emulator's) and the version it
// wrote (AWSCURRENT now): three creates; then one update and one
// schedule-delete (version "" for a deletion); then a converged no-op run
// lists nothing and keeps the state digest of the run before, which an
// update had changed. Nothing of the file (names, ARNs, version ids) is in
// stdout, stderr or the report (the fixture's canary scan: version ids
// and ARNs are canaries of every run).
func TestChangesFile_CreateUpdateDeleteNoop(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	rev := f.git("rev-parse", "HEAD")

	r, c := f.syncWithChanges(e)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	assert.Equal(t, changes.Schema, c.SchemaVersion)
	assert.Equal(t, testVersion, c.ToolVersion)
	assert.Equal(t, rev, c.GitRevision)
	assert.Equal(t, vocab.StatusConverged, c.Status)
	require.Len(t, c.Scopes, 1)
	assert.Equal(t, "default", c.Scopes[0].Name)
	assert.Equal(t, "us-east-1", c.Scopes[0].Region)
	first := c.Scopes[0].StateDigest
	require.NotEmpty(t, first, "a converged scope has its digest")
	var want []changes.Change
	for _, d := range docs {
		s := e.secret(d.Name)
		require.NotNil(t, s, d.Name)
		want = append(want, changes.Change{Scope: "default", Action: vocab.ActionCreate, Name: d.Name, ARN: s.ARN, VersionID: e.currentVersionOf(d.Name)})
	}
	slices.SortFunc(want, func(a, b changes.Change) int { return strings.Compare(a.Name, b.Name) })
	assert.Equal(t, want, c.Changes)

	// One document changes, one is removed.
	f.writeDoc(docs[0].Rel, `{"password": "CANARY-json2-`+token(6)+`", "port": 5433}`, "")
	f.Values = append(f.Values, "CANARY-json2-")
	f.removeDoc(docs[1].Rel)
	f.commit("change one, remove one")
	deleted := e.secret(docs[1].Name).ARN
	r, c = f.syncWithChanges(e, "--allow-empty=false")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, ScheduleDelete: 1, Unchanged: 1})
	want = []changes.Change{
		{Scope: "default", Action: vocab.ActionUpdate, Name: docs[0].Name, ARN: e.secret(docs[0].Name).ARN, VersionID: e.currentVersionOf(docs[0].Name)},
		{Scope: "default", Action: vocab.ActionScheduleDelete, Name: docs[1].Name, ARN: deleted},
	}
	slices.SortFunc(want, func(a, b changes.Change) int { return strings.Compare(a.Name, b.Name) })
	assert.Equal(t, want, c.Changes)
	assert.NotEqual(t, want[0].VersionID, "", "an update names its new version")
	second := c.Scopes[0].StateDigest
	assert.NotEqual(t, first, second, "a new value and a deletion change the digest")

	// Nothing to do: no change, the same digest.
	r, c = f.syncWithChanges(e)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3}) // the deleted one is unchanged too
	assert.Empty(t, c.Changes)
	assert.NotNil(t, c.Changes, "an empty list, never null")
	assert.Equal(t, second, c.Scopes[0].StateDigest)
}

// TestChangesFile_OnlySyncHasIt: plan refuses --changes-file (a usage
// error, exit 3, before any AWS call), and the variable
// SOPS_AWS_SYNC_CHANGES_FILE is no setting (the file names secrets: only
// the command line of the job that reads it asks for it).
func TestChangesFile_OnlySyncHasIt(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	p := filepath.Join(t.TempDir(), "changes.json")
	r := f.run(e, runOpts{}, f.args("plan", "--changes-file", p)...)
	assert.Equal(t, 3, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	assert.Empty(t, e.stats().Calls, "no AWS call")
	assert.NoFileExists(t, p)

	r = f.run(e, runOpts{Env: []string{"SOPS_AWS_SYNC_CHANGES_FILE=" + p}}, f.args("sync")...)
	assert.Equal(t, 3, r.Code, "an unknown variable is refused\nstderr:\n%s", r.Stderr)
	assert.NoFileExists(t, p)
}

// TestChangesFile_SameFileAsTheReportRefused: --changes-file naming the
// report's file is refused before any AWS call (exit 3,
// report:changes-same-file); the report is written.
func TestChangesFile_SameFileAsTheReportRefused(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	p := filepath.Join(t.TempDir(), "out.json")
	r := f.run(e, runOpts{NoReport: true}, f.args("sync", "--changes-file", p, "--report-file", p)...)
	require.Equal(t, 3, r.Code, "stdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	assert.Contains(t, r.Stderr, "report:changes-same-file")
	assert.Empty(t, e.stats().Calls, "no AWS call")
}

// TestChangesFile_PartialSyncListsWhatTookEffect: a sync whose deletion
// is refused (AccessDenied on DeleteSecret, exit 5 apply-failed) still
// lists the update that took effect before it (updates apply before
// deletions) and no deletion, and gives no state digest (the scope did
// not converge): the redeploy can follow a partial run.
func TestChangesFile_PartialSyncListsWhatTookEffect(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r, _ := f.syncWithChanges(e)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})

	f.writeDoc(docs[0].Rel, `{"password": "CANARY-json3-`+token(6)+`", "port": 1}`, "")
	f.Values = append(f.Values, "CANARY-json3-")
	f.removeDoc(docs[1].Rel)
	f.commit("change one, remove one")
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "DeleteSecret", Nth: 1, Fault: "error:AccessDeniedException"}}})
	r, c := f.syncWithChanges(e)
	expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, nil)
	assert.Equal(t, vocab.StatusApplyFailed, c.Status)
	assert.Equal(t, []changes.Change{{Scope: "default", Action: vocab.ActionUpdate, Name: docs[0].Name,
		ARN: e.secret(docs[0].Name).ARN, VersionID: e.currentVersionOf(docs[0].Name)}}, c.Changes)
	require.Len(t, c.Scopes, 1)
	assert.Equal(t, vocab.StatusApplyFailed, c.Scopes[0].Status)
	assert.Empty(t, c.Scopes[0].StateDigest, "no digest for a scope that did not converge")
}
