package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// expect checks exit code, report status, verification and (when non-nil)
// counts.
func expect(t *testing.T, r result, code int, status vocab.Status, v vocab.Verification, counts *vocab.Counts) {
	t.Helper()
	require.Equal(t, code, r.Code, "exit code\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	require.NotNil(t, r.Report, "no report written")
	assert.Equal(t, status, r.Report.Status)
	assert.Equal(t, v, r.Report.Verification)
	if counts != nil {
		assert.Equal(t, *counts, r.Report.Counts)
	}
}

func findRecord(recs []map[string]any, match func(map[string]any) bool) map[string]any {
	for _, r := range recs {
		if match(r) {
			return r
		}
	}
	return nil
}

func TestExit0_SyncConvergesRepairsDriftAndRerunIsNoOp(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	head := f.git("rev-parse", "HEAD")

	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	assert.Equal(t, head, r.Report.GitRevision)
	assert.Empty(t, r.Stderr, "stderr is for usage/configuration diagnostics only")
	fin := r.final(t)
	assert.Equal(t, "complete", fin["phase"])
	assert.Equal(t, "converged", fin["status"])

	// Values are the RFC 8785 canonical JSON of the documents, whatever
	// their format; ownership tags were written at create.
	assert.Equal(t, `{"password":"`+f.Values[0]+`","port":5432}`, e.currentValue(docs[0].Name))
	assert.Equal(t, `{"api_key":"`+f.Values[1]+`","nested":{"flag":true}}`, e.currentValue(docs[1].Name))
	assert.Equal(t, `{"MODE":"prod","TOKEN":"`+f.Values[2]+`"}`, e.currentValue(docs[2].Name))
	s := e.secret(docs[0].Name)
	require.NotNil(t, s)
	assert.Equal(t, model.ManagedByValue, s.Tags[model.TagManagedBy])
	assert.Equal(t, model.Scope{RepositoryID: f.RepoID, SourceRoot: "secrets", Prefix: f.Prefix}.Digest(), s.Tags[model.TagScope])
	assert.Equal(t, model.SourceDigest(docs[0].Rel), s.Tags[model.TagSource])

	// A converged scope is a pure no-op.
	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, before, e.mutatingCalls(), "no-op sync made a mutating call")

	r = f.run(e, runOpts{}, f.args("plan", "--detailed-exit-code")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 3})

	// An out-of-band edit is repaired by the next sync.
	e.putValue(docs[1].Name, `{"api_key":"tampered"}`)
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
	assert.Equal(t, `{"api_key":"`+f.Values[1]+`","nested":{"flag":true}}`, e.currentValue(docs[1].Name))

	// A removed file schedules the deletion of its secret (never forced).
	f.removeDoc(docs[2].Rel)
	f.commit("remove env document")
	r = f.run(e, runOpts{}, f.args("sync", "--recovery-window-days", "7")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 1, Unchanged: 2})
	gone := e.secret(docs[2].Name)
	require.NotNil(t, gone, "scheduled deletion keeps the secret recoverable")
	assert.NotNil(t, gone.DeletedDate)

	// Re-adding the document restores the secret instead of re-creating it.
	f.writeDoc(docs[2].Rel, docs[2].Plain, "")
	f.commit("re-add env document")
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Restore: 1, Unchanged: 2})
	back := e.secret(docs[2].Name)
	require.NotNil(t, back)
	assert.Nil(t, back.DeletedDate)
	assert.Equal(t, gone.ARN, back.ARN, "same secret, not a new one")
	assert.Equal(t, `{"MODE":"prod","TOKEN":"`+f.Values[2]+`"}`, e.currentValue(docs[2].Name))
}

func TestExit2_PlanDetectsDrift(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()

	r := f.run(e, runOpts{}, f.args("plan", "--detailed-exit-code")...)
	expect(t, r, 2, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 3})
	assert.Zero(t, e.mutatingCalls(), "plan is read-only")

	// Without the drift gate, drift is exit 0.
	r = f.run(e, runOpts{}, f.args("plan")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 3})
	assert.Zero(t, e.mutatingCalls())
}

// TestExit3_RejectedConfiguration covers the configuration half of exit 3:
// each case is rejected before any side effect — not one AWS call — with a
// stderr diagnostic that names the setting and never the value, and an
// "invalid" report.
func TestExit3_RejectedConfiguration(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	cases := []struct {
		name    string
		args    []string
		o       runOpts
		mention string
	}{
		{"unknown config key", f.args("sync"), runOpts{Config: "secret-prefx: CANARY-cfg\n"}, "secret-prefx"},
		{"config key of wrong type", f.args("sync"), runOpts{Config: "recovery-window-days: CANARY-cfg\n"}, "recovery-window-days"},
		{"unknown flag", f.args("sync", "--bogus-flag=CANARY-flag"), runOpts{}, "--bogus-flag"},
		{"stray argument", f.args("sync", "CANARY-stray"), runOpts{}, "positional"},
		{"flag value out of range", f.args("sync", "--recovery-window-days", "31"), runOpts{}, "--recovery-window-days"},
		{"env value of wrong type", f.args("sync"), runOpts{Env: []string{"SOPS_AWS_SYNC_RUN_TIMEOUT=CANARY-env"}}, "SOPS_AWS_SYNC_RUN_TIMEOUT"},
		{"unknown env setting", f.args("sync"), runOpts{Env: []string{"SOPS_AWS_SYNC_SECRET_PREFX=CANARY-env"}}, "SOPS_AWS_SYNC_SECRET_PREFX"},
		{"missing secret prefix", []string{"sync", "--repository-id", f.RepoID}, runOpts{}, "--secret-prefix"},
		{"missing repository id", []string{"plan", "--secret-prefix", f.Prefix}, runOpts{}, "--repository-id"},
		{"detailed exit code on sync", f.args("sync", "--detailed-exit-code"), runOpts{}, "--detailed-exit-code"},
		{"invalid secret prefix", []string{"plan", "--repository-id", "x", "--secret-prefix", "CANARY bad"}, runOpts{}, "--secret-prefix"},
		{"source root escapes", f.args("plan", "--source-root", "../CANARY"), runOpts{}, "--source-root"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := f.run(e, tc.o, tc.args...)
			expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
			assert.Contains(t, r.Stderr, tc.mention)
			assert.Contains(t, r.Stderr, "next:")
			assert.Empty(t, e.stats().Calls, "a rejected configuration must not reach AWS")
		})
	}
}

func TestExit3_DesiredStateRejected_NoKeyForOneDocument(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	other, err := newRecipient()
	require.NoError(t, err)
	f.writeDoc("secrets/zz-other-key.sops.json", `{"v":"CANARY-other-`+token(4)+`"}`, other)
	f.Names = append(f.Names, "zz-other-key", f.Prefix+"/zz-other-key")
	f.commit("document for a key the runner lacks")

	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] != nil && m["phase"] == "plan" })
	require.NotNil(t, rec, "the desired-state error is a log record on stdout:\n%s", r.Stdout)
	assert.Equal(t, "decrypt:no-key", rec["error_class"])
	assert.Equal(t, "resource-0004", rec["resource"], "documents are ordered by path: the fourth")
	assert.Empty(t, r.Stderr)
	e.onlyReads("every document is decrypted before the first mutating call; reads may overlap (SPEC §3.2)")
}

func TestExit3_EmptyScopeGateBlocksDeletingEverything(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)

	for _, d := range docs {
		f.removeDoc(d.Rel)
	}
	f.writeDoc("secrets/README.txt", "not a document", "") // keeps the source root present (.txt without .sops is no document)
	f.commit("remove every document")
	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Equal(t, before, e.mutatingCalls(), "the empty-scope gate mutates nothing")

	r = f.run(e, runOpts{}, f.args("sync", "--allow-empty")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 3})
}

// TestRegression_BlockedSyncReportCountsNoDeletions: a sync that the
// deletion limit or the empty-scope gate blocks deleted nothing, so its
// report (which the Action's scheduled-delete-count reads) says
// schedule_delete 0, while its plan file still lists the deletions it
// refused. Before the fix the report said 2 and 3.
func TestRegression_BlockedSyncReportCountsNoDeletions(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})

	f.removeDoc(docs[0].Rel)
	f.removeDoc(docs[1].Rel)
	f.commit("remove two")
	r, v, _ := f.runPlan(e, runOpts{}, f.args("sync", "--max-deletions", "1")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	assert.Equal(t, vocab.Counts{ScheduleDelete: 2, Unchanged: 1}, v.Scopes[0].Counts, "the plan file lists the refused deletions")

	f.removeDoc(docs[2].Rel)
	f.writeDoc("secrets/README.txt", "not a document", "") // keeps the source root present (.txt without .sops is no document)
	f.commit("remove every document")
	r, v, _ = f.runPlan(e, runOpts{}, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Equal(t, vocab.Counts{ScheduleDelete: 3}, v.Scopes[0].Counts, "the plan file lists the refused deletions")
}

func TestExit4_OwnershipConflict(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	// Someone else owns a secret with one of our names.
	_, err := e.sdk().CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{
		Name: aws.String(docs[1].Name), SecretString: aws.String(`{"foreign":"x"}`),
	})
	require.NoError(t, err)
	before := e.mutatingCalls()

	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
	assert.Equal(t, 1, r.Report.Counts.Conflicts)
	assert.Equal(t, before, e.mutatingCalls(), "one conflict blocks the whole plan")
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] != nil })
	require.NotNil(t, rec, "conflict record:\n%s", r.Stdout)
	assert.Equal(t, "ownership", rec["conflict_class"])
	assert.Regexp(t, `^resource-\d{4}$`, rec["resource"])

	// With --show-resource-names the real name is logged (trusted sinks only).
	r = f.run(e, runOpts{ShowNames: true}, f.args("plan", "--show-resource-names")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
	rec = findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] != nil })
	require.NotNil(t, rec)
	assert.Equal(t, docs[1].Name, rec["resource"])
}

func TestExit4_RotationEnabledOnOwnedSecret(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	expect(t, f.run(e, runOpts{}, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
	e.conditions(emulator.Conditions{Name: docs[0].Name, RotationEnabled: aws.Bool(true)})
	r := f.run(e, runOpts{}, f.args("plan")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] != nil })
	require.NotNil(t, rec)
	assert.Equal(t, "rotation", rec["conflict_class"])
}

func TestExit5_ApplyFailedThenRerunConverges(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "CreateSecret", Nth: 2, Fault: "error:AccessDeniedException"}}})

	r := f.run(e, runOpts{}, f.args("sync", "--concurrency", "1")...)
	expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, nil)
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_code"] != nil })
	require.NotNil(t, rec, "the AWS failure is logged with its modelled code:\n%s", r.Stdout)
	assert.Equal(t, "AccessDeniedException", rec["error_code"])
	assert.Equal(t, "client", rec["fault_class"])
	assert.NotContains(t, r.Stdout, "Message", "no raw AWS error text")

	e.setFaults(emulator.Faults{})
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
	assert.Equal(t, 3, r.Report.Counts.Create+r.Report.Counts.Unchanged)
}

func TestExit5_ObservationFailedOnAccessDenied(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "ListSecrets", Nth: 1, Fault: "error:AccessDeniedException"}}})
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, nil)
	assert.Zero(t, e.mutatingCalls())
}

// TestExit6_SecondWriterDefeatsVerification: while sync applies its plan,
// a second writer changes another secret of the scope. Verification
// re-observes the whole scope, never sees it converge, and the run ends in
// exit 6 instead of claiming success.
func TestExit6_SecondWriterDefeatsVerification(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	expect(t, f.run(e, runOpts{}, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, nil)

	// New committed values for two documents, so the next sync plans two
	// updates; the third secret is the one the second writer will change.
	f.Values = f.Values[:0]
	for _, d := range docs[:2] {
		plain := strings.Replace(d.Plain, canaryIn(d.Plain), "CANARY-v2-"+token(6), 1)
		f.writeDoc(d.Rel, plain, "")
		f.Values = append(f.Values, canaryIn(plain))
	}
	f.Values = append(f.Values, canaryIn(docs[2].Plain))
	f.commit("rotate values")
	e.setFaults(emulator.Faults{LatencyMS: 150})

	planFile := filepath.Join(t.TempDir(), "plan.json")
	p := f.start(e, runOpts{}, f.args("sync", "--concurrency", "1", "--verification-timeout", "2s", "--plan-file", planFile)...)
	require.True(t, p.waitFor(func(m map[string]any) bool { return m["msg"] == "plan built" }), "the run built its plan")
	e.putValue(docs[2].Name, `{"second":"writer"}`)
	r := p.wait()
	expect(t, r, 6, r.Report.Status, r.Report.Verification, nil)
	assert.Contains(t, []vocab.Status{vocab.StatusVerificationFailed, vocab.StatusVerificationInconclusive}, r.Report.Status)
	assert.Contains(t, []vocab.Verification{vocab.VerificationFailed, vocab.VerificationInconclusive}, r.Report.Verification)
	assert.Equal(t, 2, r.Report.Counts.Update)
	// Issue 30: the resource still differing at the timeout is named (by
	// ordinal) with what differs, in the plan file, show and the log.
	raw, err := os.ReadFile(planFile)
	require.NoError(t, err)
	v, err := planview.Parse(raw)
	require.NoError(t, err)
	assert.Equal(t, []planview.FailureView{{Resource: "resource-0003", Class: "verify:not-converged", Action: vocab.ActionUpdate,
		Reason: vocab.ReasonValueDiffers}}, v.Scopes[0].Failures, "%s", raw)
	text, _ := f.showBoth(e, raw)
	assert.Contains(t, text, "resource-0003 still differs (verify:not-converged): update (value differs)")
	assert.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool {
		return m["error_class"] == "verify:not-converged" && m["resource"] == "resource-0003"
	}), r.Stdout)

	// Once the second writer stops, a re-run converges.
	e.setFaults(emulator.Faults{})
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
}

func TestExit130_InterruptedDuringSlowApplyThenRerunConverges(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{LatencyMS: 400})

	p := f.start(e, runOpts{}, f.args("sync", "--concurrency", "1")...)
	applying := p.waitFor(func(m map[string]any) bool { return m["phase"] == "apply" })
	require.True(t, applying, "the run reached the apply phase")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	r := p.wait()
	expect(t, r, 130, vocab.StatusInterrupted, vocab.VerificationNotRun, nil)
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "interrupted:signal" })
	assert.NotNil(t, rec)
	require.Less(t, len(e.state().Secrets), 3, "the interruption stopped the apply part-way")

	// SIGTERM (a cancelled CI job) is the same outcome.
	p = f.start(e, runOpts{}, f.args("sync", "--concurrency", "1")...)
	require.True(t, p.waitFor(func(m map[string]any) bool { return m["msg"] == "plan built" }))
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	r = p.wait()
	expect(t, r, 130, vocab.StatusInterrupted, vocab.VerificationNotRun, nil)

	e.setFaults(emulator.Faults{})
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
	assert.Len(t, e.state().Secrets, 3)
}

func TestExit130_RunTimeout(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{LatencyMS: 3000})
	r := f.run(e, runOpts{}, f.args("sync", "--run-timeout", "1s")...)
	expect(t, r, 130, vocab.StatusInterrupted, vocab.VerificationNotRun, nil)
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "interrupted:run-timeout" })
	assert.NotNil(t, rec, "stdout:\n%s", r.Stdout)
}

func TestExit3_NoAWSRegion(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	r := f.run(e, runOpts{Env: []string{"AWS_REGION="}}, f.args("plan")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "aws:no-region" })
	assert.NotNil(t, rec, "stdout:\n%s", r.Stdout)
	assert.Empty(t, e.stats().Calls)

	r = f.run(e, runOpts{Env: []string{"AWS_REGION="}}, f.args("plan", "--aws-region", "us-east-1")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, nil)
}
