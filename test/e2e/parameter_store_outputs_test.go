package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// A Parameter Store scope through sync's file outputs (SPEC §16: every
// output speaks of the target by its own words and forms), with the real
// binary and the emulator's Parameter Store.

// psSyncWithFiles runs sync on a parameter-store scope with --changes-file
// and --plan-file and returns the result and both files, each read by its
// own strict reader (changes.Parse, planview.ReadFile).
func (f *fixture) psSyncWithFiles(e *emu) (result, changes.Changes, planview.View, []byte) {
	f.t.Helper()
	dir := f.t.TempDir()
	cp, pp := filepath.Join(dir, "changes.json"), filepath.Join(dir, "plan.json")
	r := f.run(e, psEnv(e), f.psArgs("sync", "--changes-file", cp, "--plan-file", pp)...)
	b, err := os.ReadFile(cp)
	require.NoError(f.t, err, "no changes file\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	c, err := changes.Parse(b)
	require.NoError(f.t, err, "the changes file is not valid:\n%s", b)
	raw, err := os.ReadFile(pp)
	require.NoError(f.t, err, "no plan file\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	v, err := planview.ReadFile(pp)
	require.NoError(f.t, err, "the plan file is not valid:\n%s", raw)
	f.scan(e, psEnv(e), result{Stdout: string(raw)})
	return r, c, v, raw
}

// TestParameterStore_ChangesAndPlanFilesThroughEveryOutcome: sync with
// --changes-file and --plan-file on a parameter-store scope creates three
// parameters, then updates one and deletes one, then fails a write
// (the emulator denies ssm:PutParameter): exit 0, 0 and 5, and every time
// both files are written and valid. The changes file lists each parameter
// by its ARN (arn:aws:ssm:…:parameter/…) and the version it wrote (1, 2;
// none for a deletion); the failed run's plan file records the failure
// with the ssm actions to grant. Both used to be refused by their own
// checks (exit 3, no file: a changes file of parameter ARNs, a failure
// record of ssm actions).
func TestParameterStore_ChangesAndPlanFilesThroughEveryOutcome(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()

	r, c, v, _ := f.psSyncWithFiles(e)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	require.Len(t, c.Changes, 3, "%+v", c)
	for _, ch := range c.Changes {
		assert.Equal(t, vocab.ActionCreate, ch.Action)
		assert.True(t, model.TargetParameterStore.ValidARN(ch.ARN, ch.Name), "a parameter ARN: %s", ch.ARN)
		assert.True(t, strings.HasPrefix(ch.ARN, "arn:aws:ssm:us-east-1:"), ch.ARN)
		assert.Equal(t, "1", ch.VersionID)
	}
	require.Len(t, c.Scopes, 1)
	assert.NotEmpty(t, c.Scopes[0].StateDigest)
	assert.Equal(t, model.TargetParameterStore, v.Scopes[0].Target)

	// One update, one deletion.
	f.writeDoc(docs[0].Rel, `{"password": "CANARY-psout-`+token(6)+`", "port": 5432}`, "")
	f.Values = append(f.Values, canaryIn(`CANARY-psout-`))
	f.removeDoc(docs[2].Rel)
	f.commit("update one, remove one")
	r, c, _, raw := f.psSyncWithFiles(e)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, ScheduleDelete: 1, Unchanged: 1})
	text, md := f.showBoth(e, raw)
	for format, out := range map[string]string{"text": text, "markdown": md} {
		assert.Contains(t, out, "Delete (1):", format)
		assert.Contains(t, out, " delete (no document in the commit)", format)
		assert.Contains(t, out, "1 to delete,", format)
		for _, sm := range []string{"Secrets Manager", "Schedule deletion", "schedule for deletion", "schedule-delete"} {
			assert.NotContains(t, out, sm, format)
		}
	}
	rec := findRecord(r.records(t), func(m map[string]any) bool {
		return m[vocab.FieldOperation] == string(vocab.ActionScheduleDelete) && m["msg"] == "phase applied"
	})
	require.NotNil(t, rec, r.Stdout)
	assert.Equal(t, "immediate", rec[vocab.FieldDeletion], "the log says what the deletion did")
	byAction := map[vocab.Action]changes.Change{}
	for _, ch := range c.Changes {
		byAction[ch.Action] = ch
		assert.True(t, model.TargetParameterStore.ValidARN(ch.ARN, ch.Name), "a parameter ARN: %s", ch.ARN)
	}
	require.Len(t, byAction, 2, "%+v", c.Changes)
	assert.Equal(t, "2", byAction[vocab.ActionUpdate].VersionID)
	assert.Equal(t, "", byAction[vocab.ActionScheduleDelete].VersionID, "a deletion writes no version")
	_, ok := e.param(docs[2].Name)
	assert.False(t, ok, "deleted at once")

	// A failed write: exit 5, both files valid, the failure's IAM actions
	// are Parameter Store's.
	f.writeDoc(docs[1].Rel, `{"api_key": "CANARY-psfail-`+token(6)+`"}`, "")
	f.Values = append(f.Values, canaryIn(`CANARY-psfail-`))
	f.commit("update another")
	e.setFaults(emulator.Faults{Denied: []string{"ssm:PutParameter"}})
	r, c, v, _ = f.psSyncWithFiles(e)
	expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, nil)
	assert.Empty(t, c.Changes, "nothing took effect")
	assert.Empty(t, c.Scopes[0].StateDigest, "no digest beside a failed scope")
	require.Len(t, v.Scopes, 1)
	require.Len(t, v.Scopes[0].Failures, 1, "%+v", v.Scopes[0])
	fv := v.Scopes[0].Failures[0]
	assert.Equal(t, diag.ApplyFailed, fv.Class)
	assert.Equal(t, "AccessDeniedException", fv.ErrorCode)
	assert.Equal(t, []string{"ssm:PutParameter", "ssm:AddTagsToResource"}, fv.IAMActions)
	assert.False(t, classIn(t, r, diag.PlanfileWriteFailed), "the plan file was written: %s", r.Stdout)

	// Granted again: the write lands; a no-op run then says the target
	// matches the commit, in its words.
	e.setFaults(emulator.Faults{})
	r, c, _, _ = f.psSyncWithFiles(e)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 1})
	require.Len(t, c.Changes, 1)
	assert.Equal(t, "2", c.Changes[0].VersionID)
	r, c, _, raw = f.psSyncWithFiles(e)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 2})
	assert.Empty(t, c.Changes)
	text, md = f.showBoth(e, raw)
	for format, out := range map[string]string{"text": text, "markdown": md} {
		assert.Contains(t, out, "No changes: Parameter Store matches the commit.", format)
		assert.NotContains(t, out, "Secrets Manager", format)
	}
}
