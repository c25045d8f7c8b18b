package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/command"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Issue 30 with the real binary: what an operator moving an estate in
// meets (docs/migration.md, docs/recovery.md).

// TestPlan_JSONLogsPointAtTheRendering (issue 30 §8): a plan with the
// default JSON logs prints no human rendering, so it logs one record,
// before "run finished", saying where the plan can be read (--log-format
// text, or --plan-file and show); stdout stays JSON records only. A text
// plan and a sync do not log it.
func TestPlan_JSONLogsPointAtTheRendering(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	r := f.run(e, runOpts{}, f.args("plan")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 3})
	recs := r.records(t)
	require.GreaterOrEqual(t, len(recs), 2)
	hint := recs[len(recs)-2]
	assert.Equal(t, command.PlanNotRendered, hint["msg"])
	assert.Equal(t, "INFO", hint["level"])
	assert.Contains(t, hint["msg"], "--log-format text")
	assert.Contains(t, hint["msg"], "sops-aws-sync show")

	r = f.run(e, runOpts{}, f.args("plan", "--log-format", "text")...)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.NotContains(t, r.Stdout, command.PlanNotRendered)
	assert.Contains(t, r.Stdout, "Create (3):")

	r = f.run(e, runOpts{}, f.args("sync")...)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.NotContains(t, r.Stdout, command.PlanNotRendered)
}

// TestRecovery_RetiringAScopeWhoseDirectoryGitDropped (issue 30 §7):
// deleting every document of a scope removes its directory from Git.
// Without allow-empty the run is source:missing-root, zero writes, and its
// next line (and docs/recovery.md) says to re-run with allow-empty; with
// --allow-empty the absent source root is an empty scope and the secrets
// are scheduled for deletion (no placeholder file needed). A source root
// that is a file stays source:missing-root even with --allow-empty.
func TestRecovery_RetiringAScopeWhoseDirectoryGitDropped(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)

	for _, d := range docs {
		f.removeDoc(d.Rel)
	}
	f.commit("retire the scope")
	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Contains(t, r.Stdout, `"error_class":"source:missing-root"`)
	assert.Contains(t, r.Stdout, "re-run with --allow-empty (or set allow-empty: true in the config file)")
	assert.Equal(t, before, e.mutatingCalls())

	r = f.run(e, runOpts{}, f.args("sync", "--allow-empty")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 3})

	// A file where the source root should be is a wrong root, not a
	// retired scope.
	require.NoError(t, os.WriteFile(filepath.Join(f.Repo, "secrets"), []byte("not a directory\n"), 0o600))
	f.commit("a file named like the source root")
	before = e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", "--allow-empty")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Contains(t, r.Stdout, `"error_class":"source:missing-root"`)
	assert.Equal(t, before, e.mutatingCalls())
}
