package planview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestFailuresRoundTripAndRedact: the failure records of the failed
// fixture are written under the optional key failures, read back equal,
// labelled by ordinal with names hidden (a record about the scope has no
// resource), and absent from the file of a scope without failures.
func TestFailuresRoundTripAndRedact(t *testing.T) {
	for _, shown := range []bool{false, true} {
		v := Build(fixtures(t)["failed"], model.Redaction{ShowNames: shown})
		b, err := Marshal(v)
		require.NoError(t, err)
		back, err := Parse(b)
		require.NoError(t, err)
		assert.Equal(t, v, back)
		first := back.Scopes[0].Failures[0]
		assert.Equal(t, "AccessDeniedException", first.ErrorCode)
		assert.Equal(t, []string{"secretsmanager:CreateSecret", "secretsmanager:TagResource"}, first.IAMActions)
		if shown {
			assert.Equal(t, "prod/app/api", first.Resource)
		} else {
			assert.Equal(t, "resource-0001", first.Resource)
		}
		assert.Equal(t, "", back.Scopes[1].Failures[0].Resource, "the observation of the scope is about no resource")
	}
	b, err := Marshal(Build(fixtures(t)["full"], model.Redaction{}))
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"failures"`, "a scope without failure records has no key")
}

// TestFailureRecordsAreValidated: a hand-edited record is refused
// (planfile:malformed): an unregistered class or a warning's, a secret
// name while names are hidden, a reason without an action, an action
// that is no operation, provider text as the error code, an IAM action
// of another form or given twice, an empty list.
func TestFailureRecordsAreValidated(t *testing.T) {
	good := Build(fixtures(t)["failed"], model.Redaction{})
	for name, edit := range map[string]func(*FailureView){
		"unregistered class":              func(f *FailureView) { f.Class = "apply:exploded" },
		"warning class":                   func(f *FailureView) { f.Class = "warning:orphans" },
		"name while hidden":               func(f *FailureView) { f.Resource = "prod/app/api" },
		"reason alone":                    func(f *FailureView) { f.Action = "" },
		"conflict":                        func(f *FailureView) { f.Action, f.Reason = vocab.ActionConflict, vocab.Reason(vocab.ConflictOwnership) },
		"conflict class without conflict": func(f *FailureView) { f.Class = diag.VerifyConflict },
		"conflict with metadata": func(f *FailureView) {
			f.Class, f.Action, f.Reason = diag.VerifyConflict, vocab.ActionConflict, vocab.Reason(vocab.ConflictOwnership)
			f.Metadata = []vocab.MetadataKind{vocab.MetadataKMSKey}
		},
		"conflict of an operation's reason": func(f *FailureView) {
			f.Class, f.Action, f.Reason, f.Metadata = diag.ConflictLate, vocab.ActionConflict, vocab.ReasonValueDiffers, nil
		},
		"provider text":   func(f *FailureView) { f.ErrorCode = "User arn:aws:iam::1 is not authorized" },
		"iam action form": func(f *FailureView) { f.IAMActions = []string{"CreateSecret"} },
		"iam action twice": func(f *FailureView) {
			f.IAMActions = []string{"secretsmanager:CreateSecret", "secretsmanager:CreateSecret"}
		},
		"iam actions empty":  func(f *FailureView) { f.IAMActions = []string{} },
		"metadata unordered": func(f *FailureView) { f.Metadata = []vocab.MetadataKind{vocab.MetadataTags, vocab.MetadataKMSKey} },
	} {
		v := Build(fixtures(t)["failed"], model.Redaction{})
		edit(&v.Scopes[0].Failures[0])
		assert.Equal(t, diag.PlanfileMalformed, classOf(v.Validate()), name)
		if b, err := json.Marshal(v); err == nil && name != "iam actions empty" {
			_, err = Parse(b)
			assert.Equal(t, diag.PlanfileMalformed, classOf(err), name+" (read)")
		}
	}
	b, err := json.Marshal(good)
	require.NoError(t, err)
	_, err = Parse(b)
	require.NoError(t, err, "the unedited file")
	for _, class := range []string{diag.VerifyConflict, diag.ConflictLate} {
		v := Build(fixtures(t)["failed"], model.Redaction{})
		f := &v.Scopes[0].Failures[0]
		f.Class, f.Action, f.Reason, f.Metadata, f.ErrorCode, f.IAMActions = class, vocab.ActionConflict, vocab.ConflictReplication.Reason(), nil, "", nil
		require.NoError(t, v.Validate(), class)
		assert.Contains(t, Text(v), "resource-0001 is a conflict ("+class+"): replication: ", class)
	}
}

// TestCompareIgnoresFailureRecords: a reviewed plan compared with a run's
// view that adds failure records (or a file that holds some, compared
// with one that does not) has no difference: the records are what a run
// met, not what it planned (SPEC §14).
func TestCompareIgnoresFailureRecords(t *testing.T) {
	in := fixtures(t)["full"]
	plain := Build(in, model.Redaction{})
	in.Scopes[0].Failures = []Failure{
		{Ordinal: 3, Name: "prod/app/db", Class: "apply:failed", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
			ErrorCode: "AccessDeniedException", IAMActions: []string{"secretsmanager:PutSecretValue"}},
		{Class: "observe:failed", ErrorCode: "ThrottlingException", IAMActions: []string{"secretsmanager:ListSecrets"}},
	}
	failed := Build(in, model.Redaction{})
	require.Len(t, failed.Scopes[0].Failures, 2)
	failed.DigestSalt, failed.Scopes[0].SettingsDigest = plain.DigestSalt, plain.Scopes[0].SettingsDigest
	assert.Empty(t, Compare(plain, failed))
	assert.Empty(t, Compare(failed, plain))
	assert.Empty(t, CompareScope(plain.Scopes[0], failed.Scopes[0]))
}

// TestV2FileWithFailuresIsMalformed: failures is a key of v3 only.
func TestV2FileWithFailuresIsMalformed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "v2-full-hidden.json"))
	require.NoError(t, err)
	bad := strings.Replace(string(b), `"diagnostics": []
    }`, `"diagnostics": [],
      "failures": [{"resource": "", "class": "observe:failed"}]
    }`, 1)
	require.NotEqual(t, string(b), bad)
	_, err = Parse([]byte(bad))
	assert.Equal(t, diag.PlanfileMalformed, classOf(err))
}

// TestFailureLineHasOnlyTheDetailItKnows: a record with nothing to add
// (an observation that failed without an error code, a resource still
// differing with no operation of this run) is its mark, subject and class
// alone, no ": " after the class; an access denial whose IAM actions are
// not known names the error code and no "grant".
func TestFailureLineHasOnlyTheDetailItKnows(t *testing.T) {
	in := Input{Command: CommandSync, GitRevision: rev, Scopes: []ScopeInput{
		{Name: "staging", Region: "us-east-1", Status: vocab.StatusObservationFailed, Verification: vocab.VerificationNotRun,
			Failures: []Failure{{Class: diag.ObserveFailed}}},
		{Name: "prod", Region: "eu-west-1", Status: vocab.StatusVerificationFailed, Verification: vocab.VerificationFailed,
			Failures: []Failure{{Ordinal: 1, Name: "prod/app/db", Class: diag.VerifyNotConverged}}},
		{Name: "dev", Region: "eu-west-1", Status: vocab.StatusObservationFailed, Verification: vocab.VerificationNotRun,
			Failures: []Failure{{Class: diag.ObserveFailed, ErrorCode: "AccessDeniedException"}}},
	}}
	v := Build(in, model.Redaction{ShowNames: true})
	require.NoError(t, v.Validate())
	txt := Text(v)
	for _, want := range []string{
		"  x observation failed (observe:failed)\n",
		"  ? prod/app/db still differs (verify:not-converged)\n",
		"  x observation failed (observe:failed): AccessDeniedException\n",
	} {
		assert.Contains(t, txt, want)
	}
}

// TestRegression_ParameterStoreFailureRecordRefusedByThePlanFilesOwnCheck:
// a parameter-store scope whose PutParameter failed ended exit 3
// planfile:write-failed without a plan file instead of exit 5, because the
// plan file's check knew only the IAM actions of secretsmanager, sts and
// kms. A failure record takes its scope's target's IAM services from the
// target table (SPEC §16: ssm:*, with STS and KMS); a Secrets Manager
// action in a parameter-store scope, and an ssm action in a Secrets
// Manager scope, are still refused.
func TestRegression_ParameterStoreFailureRecordRefusedByThePlanFilesOwnCheck(t *testing.T) {
	keys, err := keydiff.Create([]byte(`{"password":"x"}`))
	require.NoError(t, err)
	in := Input{Command: "sync", Scopes: []ScopeInput{{Name: "params", Region: "eu-west-1", Status: vocab.StatusApplyFailed,
		Verification: vocab.VerificationNotRun, Target: model.TargetParameterStore,
		Operations: []Operation{{Ordinal: 1, Name: "/prod/params/db", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: &keys}},
		Failures: []Failure{{Ordinal: 1, Name: "/prod/params/db", Class: diag.ApplyFailed, Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent,
			ErrorCode: "InternalServerError", IAMActions: vocab.IAMActions("PutParameter", false)}}}}}
	v := Build(in, model.Redaction{})
	require.NoError(t, v.Validate())
	b, err := Marshal(v)
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, []string{"ssm:PutParameter", "ssm:AddTagsToResource"}, back.Scopes[0].Failures[0].IAMActions)
	assert.Contains(t, Text(back), "ssm:PutParameter")

	other := Build(in, model.Redaction{})
	other.Scopes[0].Failures[0].IAMActions = []string{"secretsmanager:CreateSecret"}
	assert.Equal(t, diag.PlanfileMalformed, classOf(other.Validate()), "a Secrets Manager action in a parameter-store scope")
	sm := Build(fixtures(t)["failed"], model.Redaction{})
	sm.Scopes[0].Failures[0].IAMActions = []string{"ssm:PutParameter"}
	assert.Equal(t, diag.PlanfileMalformed, classOf(sm.Validate()), "a Parameter Store action in a Secrets Manager scope")
}

// TestRegression_ParameterStoreConflictSpokeOfSecrets: an ownership
// conflict of a parameter-store scope (a parameter of a document's name
// made by hand) was explained in Secrets Manager's words in show, the
// pull-request comment and the GitLab note: "a secret with this name
// exists …; to take over a secret made by hand …". A conflict every
// target can meet now names the scope's target's resource, and a source
// conflict the deletion its target makes; a Secrets Manager scope reads
// as before.
func TestRegression_ParameterStoreConflictSpokeOfSecrets(t *testing.T) {
	view := func(target model.Target, class vocab.ConflictClass) View {
		return Build(Input{Command: "plan", Scopes: []ScopeInput{{Name: "default", Region: "eu-west-1", Status: vocab.StatusConflict,
			Verification: vocab.VerificationNotRun, Target: target,
			Operations: []Operation{{Ordinal: 1, Name: "prod/db", Action: vocab.ActionConflict, Conflict: class}}}}}, model.Redaction{})
	}
	secret := regexp.MustCompile(`(^|[^A-Za-z0-9_-])[Ss]ecrets?($|[^A-Za-z0-9_-])`)
	for _, class := range []vocab.ConflictClass{vocab.ConflictOwnership, vocab.ConflictSource, vocab.ConflictSourceTag} {
		ps := view(model.TargetParameterStore, class)
		require.NoError(t, ps.Validate())
		for format, out := range map[string]string{"text": Text(ps), "markdown": Markdown(ps)} {
			assert.NotRegexp(t, secret, out, "%s, %s", class, format)
			assert.NotContains(t, out, "scheduled for deletion", "%s, %s", class, format)
		}
	}
	assert.Contains(t, Text(view(model.TargetParameterStore, vocab.ConflictOwnership)), "a parameter with this name exists and is not owned by this scope")
	assert.Contains(t, Text(view(model.TargetParameterStore, vocab.ConflictSource)), "let the old parameter be deleted first")
	assert.Contains(t, Text(view(model.TargetSecretsManager, vocab.ConflictOwnership)), "a secret with this name exists and is not owned by this scope")
	assert.Contains(t, Text(view(model.TargetSecretsManager, vocab.ConflictSource)), "let the old secret be scheduled for deletion first")
}
