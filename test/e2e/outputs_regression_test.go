package e2e

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/schemas"
)

// Defects the outputs × results table (outputs_table_test.go) found, each
// in the run that shows it alone.

// TestRegression_ParameterStoreChangesFileOfAStoppedApplyLackedItsCreatesARNs:
// PutParameter returns no ARN, so a Parameter Store create's change took
// its ARN from verification's re-observation; a sync whose apply stopped
// (a later write refused: exit 5) never verified, its changes carried no
// ARN, the changes file failed its own check, and the run ended exit 3
// report:changes-write-failed with no file, hiding both the failure and
// the parameters a redeploy needs. The engine now describes each such
// name once after the apply: exit 5 and a valid file listing the two
// creates that took effect by their parameter ARNs.
func TestRegression_ParameterStoreChangesFileOfAStoppedApplyLackedItsCreatesARNs(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 3, Fault: "error:AccessDeniedException"}}})
	p := filepath.Join(t.TempDir(), "changes.json")
	r := f.run(e, psEnv(e), f.psArgs("sync", "--changes-file", p)...)
	expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, &vocab.Counts{Create: 2})
	b, err := os.ReadFile(p)
	require.NoError(t, err, "no changes file\nstdout:\n%s", r.Stdout)
	c, err := changes.Parse(b)
	require.NoError(t, err, "%s", b)
	require.Len(t, c.Changes, 2, "%s", b)
	for _, ch := range c.Changes {
		assert.Equal(t, vocab.ActionCreate, ch.Action)
		assert.True(t, model.TargetParameterStore.ValidARN(ch.ARN, ch.Name), "a parameter ARN: %q", ch.ARN)
		assert.Equal(t, "1", ch.VersionID)
	}
}

// TestRegression_InterruptedParameterStoreCreateMaskedTheInterruption: a
// Parameter Store sync interrupted after a create took effect and before
// anything observed the new parameter (PutParameter answers no ARN, and a
// cancelled run describes nothing more) left that change without an ARN;
// the changes file failed its own check and the run ended exit 3,
// status invalid, report:changes-write-failed, hiding the interruption and
// the parameter a redeploy needs. A change of a scope that did not
// converge may now carry an empty arn: exit 130, interrupted, a valid
// file naming the create.
func TestRegression_InterruptedParameterStoreCreateMaskedTheInterruption(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	// The second create's answer never comes: the run is interrupted there.
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 2, Fault: "hang"}}})
	p := filepath.Join(t.TempDir(), "changes.json")
	o := psEnv(e)
	run := f.start(e, o, f.psArgs("sync", "--changes-file", p, "--concurrency", "1", "--operation-timeout", "10m")...)
	require.True(t, run.waitFor(func(m map[string]any) bool { return m["msg"] == "operation applied" && m["operation"] == "create" }),
		"the first create took effect")
	require.NoError(t, run.cmd.Process.Signal(syscall.SIGINT))
	r := run.wait()
	expect(t, r, 130, vocab.StatusInterrupted, vocab.VerificationNotRun, nil)
	b, err := os.ReadFile(p)
	require.NoError(t, err, "no changes file\nstdout:\n%s", r.Stdout)
	c, err := changes.Parse(b)
	require.NoError(t, err, "%s", b)
	require.Len(t, c.Changes, 1, "%s", b)
	assert.Equal(t, vocab.ActionCreate, c.Changes[0].Action)
	assert.Equal(t, "1", c.Changes[0].VersionID)
	if a := c.Changes[0].ARN; a != "" {
		assert.True(t, model.TargetParameterStore.ValidARN(a, c.Changes[0].Name), "empty or a parameter ARN: %q", a)
	}
	require.Len(t, c.Scopes, 1)
	assert.Equal(t, vocab.StatusInterrupted, c.Scopes[0].Status)
	assert.NoError(t, schemas.Validate(b), "the changes file against its published schema")
}

// TestRegression_SecondWriterRecordOfAParameterNamedSecretsManagersCode: a
// Parameter Store create refused as ParameterAlreadyExists while the
// parameter could not be observed (another writer) ended exit 6 with a
// failure record naming ResourceExistsException, Secrets Manager's code,
// which no call of the run returned. The record names the code AWS sent.
func TestRegression_SecondWriterRecordOfAParameterNamedSecretsManagersCode(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 1, Fault: "error:ParameterAlreadyExists"}}})
	r, v, raw := f.runPlan(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 6, vocab.StatusVerificationFailed, vocab.VerificationFailed, &vocab.Counts{Create: 2})
	require.Len(t, v.Scopes, 1)
	require.Len(t, v.Scopes[0].Failures, 1, "%s", raw)
	assert.Equal(t, planview.FailureView{Resource: v.Scopes[0].Failures[0].Resource, Class: diag.VerifySecondWriter,
		Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, ErrorCode: "ParameterAlreadyExists"}, v.Scopes[0].Failures[0])
	text, _ := f.showBoth(e, raw)
	assert.Contains(t, text, "(verify:second-writer): ParameterAlreadyExists")
	assert.NotContains(t, text, "ResourceExistsException")
}

// TestRegression_ChangesFileOfARunStoppedAtItsAWSSetUpListedNoScope: a
// sync whose role was refused (exit 5 before any scope was read) wrote a
// changes file with no scope, where its report lists the scope the
// configuration named with the run's status; docs/results.md keeps an
// empty list for a rejected configuration alone. Both now list it.
func TestRegression_ChangesFileOfARunStoppedAtItsAWSSetUpListedNoScope(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.ctl.SetIAM(emulator.IAM{RequireRoles: true})
	p := filepath.Join(t.TempDir(), "changes.json")
	o := runOpts{Env: []string{"AWS_ENDPOINT_URL_STS=" + e.URL}}
	r := f.run(e, o, f.args("sync", "--changes-file", p, "--role-arn", "arn:aws:iam::"+emulator.DefaultAccountID+":role/refused")...)
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, &vocab.Counts{})
	require.Len(t, r.Report.Scopes, 1)
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	c, err := changes.Parse(b)
	require.NoError(t, err, "%s", b)
	assert.Equal(t, []changes.Scope{{Name: "default", Region: r.Report.Scopes[0].Region, Status: vocab.StatusObservationFailed}}, c.Scopes,
		"the report's scope")
	assert.Empty(t, c.Changes)
}
