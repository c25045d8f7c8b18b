package e2e

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Issue 30 item 4 with the real binary against the emulator: a failure
// says what failed.

// showBoth renders the plan file raw with show, as text and as Markdown,
// and scans both for the fixture's canaries.
func (f *fixture) showBoth(e *emu, raw []byte) (string, string) {
	f.t.Helper()
	p := writeTemp(f.t, raw)
	text, err := exec.Command(cliBin, "show", p).CombinedOutput()
	require.NoError(f.t, err, "%s", text)
	md, err := exec.Command(cliBin, "show", "--format", "markdown", p).CombinedOutput()
	require.NoError(f.t, err, "%s", md)
	f.scan(e, runOpts{}, result{Stdout: string(text) + string(md)})
	return string(text), string(md)
}

// TestRegression_ApplyFailureNamesClassCodeAndIAMAction: the role may not
// call PutSecretValue (the emulator denies secretsmanager:PutSecretValue)
// and a secret's value was changed out of band: sync ends exit 5, and the
// plan file, show's text and Markdown and the failed call's log record
// name the class (apply:failed), the AWS error code and the IAM action to
// grant, never the provider's message or a value. It used to leave no
// trace outside the log, whose operation=update is no IAM action.
func TestRegression_ApplyFailureNamesClassCodeAndIAMAction(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})

	e.putValue(docs[1].Name, `{"api_key":"tampered"}`)
	e.setFaults(emulator.Faults{Denied: []string{"secretsmanager:PutSecretValue"}})
	r, v, raw := f.runPlan(e, runOpts{}, f.args("sync")...)
	expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, nil)
	require.Len(t, v.Scopes, 1)
	want := planview.FailureView{Resource: "resource-0002", Class: diag.ApplyFailed, Action: vocab.ActionUpdate,
		Reason: vocab.ReasonValueDiffers, ErrorCode: "AccessDeniedException", IAMActions: []string{"secretsmanager:PutSecretValue"}}
	assert.Equal(t, []planview.FailureView{want}, v.Scopes[0].Failures, "%s", raw)
	assert.NotContains(t, string(raw), "not authorized", "provider text in the plan file")

	rec := findRecord(r.records(t), func(m map[string]any) bool { return m[vocab.FieldErrorCode] == "AccessDeniedException" })
	require.NotNil(t, rec, r.Stdout)
	assert.Equal(t, "secretsmanager:PutSecretValue", rec[vocab.FieldIAMActions], "the log record names the IAM action")

	text, md := f.showBoth(e, raw)
	for name, out := range map[string]string{"text": text, "markdown": md} {
		assert.Contains(t, out, "resource-0002 update failed (apply:failed): AccessDeniedException: grant secretsmanager:PutSecretValue", name)
		assert.NotContains(t, out, "not authorized", name)
	}

	// Granted again, the re-run repairs the value.
	e.setFaults(emulator.Faults{})
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
}

// TestRegression_DeniedCreateNamesEveryIAMActionItNeeds: CreateSecret
// denied: each failed create's record names secretsmanager:CreateSecret
// and secretsmanager:TagResource (AWS checks it for the ownership tags
// every create carries).
func TestRegression_DeniedCreateNamesEveryIAMActionItNeeds(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{Denied: []string{"secretsmanager:CreateSecret"}})
	r, v, raw := f.runPlan(e, runOpts{}, f.args("sync")...)
	expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, &vocab.Counts{})
	require.Len(t, v.Scopes, 1)
	require.NotEmpty(t, v.Scopes[0].Failures, "%s", raw)
	for _, fl := range v.Scopes[0].Failures {
		assert.Equal(t, diag.ApplyFailed, fl.Class)
		assert.Equal(t, vocab.ActionCreate, fl.Action)
		assert.Equal(t, "AccessDeniedException", fl.ErrorCode)
		assert.Equal(t, []string{"secretsmanager:CreateSecret", "secretsmanager:TagResource"}, fl.IAMActions)
	}
	text, md := f.showBoth(e, raw)
	assert.Contains(t, text, "grant secretsmanager:CreateSecret, secretsmanager:TagResource")
	assert.Contains(t, md, "grant secretsmanager:CreateSecret, secretsmanager:TagResource")
}

// TestRegression_DeniedObservationNamesTheReadToGrant: ListSecrets
// denied: observation-failed (exit 5) with a record for the scope naming
// observe:failed, the code and secretsmanager:ListSecrets.
func TestRegression_DeniedObservationNamesTheReadToGrant(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	e.setFaults(emulator.Faults{Denied: []string{"secretsmanager:ListSecrets"}})
	r, v, raw := f.runPlan(e, runOpts{}, f.args("plan")...)
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, nil)
	require.Len(t, v.Scopes, 1)
	assert.Equal(t, []planview.FailureView{{Class: diag.ObserveFailed, ErrorCode: "AccessDeniedException",
		IAMActions: []string{"secretsmanager:ListSecrets"}}}, v.Scopes[0].Failures, "%s", raw)
	text, _ := f.showBoth(e, raw)
	assert.Contains(t, text, "observation failed (observe:failed): AccessDeniedException: grant secretsmanager:ListSecrets")
}
