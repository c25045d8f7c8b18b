package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// sharedQuota is a Secrets Manager account whose quotas other clients mostly
// use up: the emulator's quotas at 10 % (5 writes/s of each kind, 10 value
// batches/s, 1,000 describes/s), issue 15.
var sharedQuota = emulator.Faults{Seed: 1, Quotas: true, QuotaScale: 0.1}

// manyDocs commits n documents secrets/q/sNNN.sops.json. One document is
// encrypted by the real sops CLI and its file copied to the other paths (a
// SOPS file does not bind its path), which keeps the fixture fast.
func (f *fixture) manyDocs(n int) []string {
	f.t.Helper()
	f.writeDoc("secrets/q/s000.sops.json", `{"password": "CANARY-quota-`+token(6)+`"}`, "")
	enc, err := os.ReadFile(filepath.Join(f.Repo, "secrets", "q", "s000.sops.json"))
	require.NoError(f.t, err)
	rels := []string{"secrets/q/s000.sops.json"}
	for i := 1; i < n; i++ {
		rel := fmt.Sprintf("secrets/q/s%03d.sops.json", i)
		require.NoError(f.t, os.WriteFile(filepath.Join(f.Repo, filepath.FromSlash(rel)), enc, 0o600))
		rels = append(rels, rel)
	}
	f.commit(fmt.Sprintf("add %d documents", n))
	return rels
}

// throttledIn sums the "throttled" field of the records matching msg.
func throttledIn(recs []map[string]any, msg string) float64 {
	var n float64
	for _, r := range recs {
		if r["msg"] == msg {
			if v, ok := r[vocab.FieldThrottled].(float64); ok {
				n += v
			}
		}
	}
	return n
}

// noThrottleErrors: throttling is counted on phase records, never logged as
// an error per call.
func noThrottleErrors(t *testing.T, recs []map[string]any) {
	t.Helper()
	for _, r := range recs {
		require.NotEqual(t, "ThrottlingException", r["error_code"], "a throttled call was logged as an error: %v", r)
	}
}

// TestExit0_SharedQuotaSlowsTheRunDown (issue 15): with the account's quotas
// at 10 %, a first sync of 100 secrets, then one scheduling 30 deletions,
// then one restoring them, each exits 0 with the exact counts. On main the
// first exited 5 after 21 creates: the SDK's standard retryer gave up after
// three throttled attempts.
func TestExit0_SharedQuotaSlowsTheRunDown(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	e.setFaults(sharedQuota)
	rels := f.manyDocs(100)
	first := f.git("rev-parse", "HEAD")

	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 100})
	recs := r.records(t)
	noThrottleErrors(t, recs)
	st := e.stats()
	require.Positive(t, st.Throttled["CreateSecret"], "premise: the scaled quota throttled some creates")
	assert.Equal(t, float64(st.Throttled["CreateSecret"]), throttledIn(recs, "phase applied"),
		"the create phase's record counts every throttled create")
	assert.Len(t, e.state().Secrets, 100)

	for _, rel := range rels[:30] {
		f.removeDoc(rel)
	}
	f.commit("remove 30 documents")
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 30, Unchanged: 70})
	noThrottleErrors(t, r.records(t))
	scheduled := 0
	for _, s := range e.state().Secrets {
		if s.DeletedDate != nil {
			scheduled++
		}
	}
	assert.Equal(t, 30, scheduled)

	f.git(append([]string{"checkout", first, "--"}, rels[:30]...)...)
	f.commit("restore 30 documents")
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Restore: 30, Unchanged: 70})
	noThrottleErrors(t, r.records(t))
	for _, s := range e.state().Secrets {
		assert.Nil(t, s.DeletedDate, "every secret is restored")
	}
	t.Logf("throttled calls over the three runs: %v", e.stats().Throttled)
}

// TestExit130_RunTimeoutUnderSharedQuotaThenRerunConverges: throttling
// alone never fails a run; only --run-timeout ends it (exit 130 with the
// report), and the next run converges.
func TestExit130_RunTimeoutUnderSharedQuotaThenRerunConverges(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	e.setFaults(sharedQuota)
	f.manyDocs(60) // 5 creates/s: about 12 s of writes

	r := f.run(e, runOpts{}, f.args("sync", "--run-timeout", "4s")...)
	expect(t, r, 130, vocab.StatusInterrupted, vocab.VerificationNotRun, nil)
	recs := r.records(t)
	assert.NotNil(t, findRecord(recs, func(m map[string]any) bool { return m["error_class"] == "interrupted:run-timeout" }), "stdout:\n%s", r.Stdout)
	noThrottleErrors(t, recs)
	done := len(e.state().Secrets)
	require.Less(t, done, 60, "the run timeout ended the apply part-way")
	assert.Equal(t, done, r.Report.Counts.Create, "the report counts the creates that took effect")

	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 60 - done, Unchanged: done})
	assert.Len(t, e.state().Secrets, 60)
}
