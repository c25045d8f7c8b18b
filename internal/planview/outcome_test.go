package planview

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestOutcome_RunErrorMakesOnlyConvergedOrDriftInvalid: an error of the
// run's own turns a run whose scopes are converged or drifting into
// invalid, not run; a conflict stays a conflict, and without the error
// (or with a warning alone) the scopes' status stands.
func TestOutcome_RunErrorMakesOnlyConvergedOrDriftInvalid(t *testing.T) {
	runErr := []diag.Record{{Class: diag.PlanfileMalformed, Summary: "s"}}
	for _, st := range []vocab.Status{vocab.StatusConverged, vocab.StatusDrift, vocab.StatusConflict} {
		v := View{Scopes: []ScopeView{{Status: st, Verification: vocab.VerificationNotRun}}}
		got, _ := v.Outcome()
		assert.Equal(t, st, got, "%s without a run error", st)
		v.Diagnostics = runErr
		got, ver := v.Outcome()
		if st == vocab.StatusConflict {
			assert.Equal(t, st, got, "a conflict with a run error")
			continue
		}
		assert.Equal(t, vocab.StatusInvalid, got, "%s with a run error", st)
		assert.Equal(t, vocab.VerificationNotRun, ver)
	}
}

// TestBuild_AWSOwnedKeptOnWritesOnly: the plan counts a secret's keys
// owned by AWS on the operation that writes it, never on a conflict.
func TestBuild_AWSOwnedKeptOnWritesOnly(t *testing.T) {
	in := single(rev, vocab.StatusConflict, []Operation{
		{Ordinal: 1, Name: "prod/app/a", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers, AWSOwnedKept: 2,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-b"}`)},
		{Ordinal: 2, Name: "prod/app/b", Action: vocab.ActionConflict, Conflict: vocab.ConflictOwnership, AWSOwnedKept: 3},
	}, nil)
	ops := Build(in, model.Redaction{}).Scopes[0].Operations
	kept := map[vocab.Action]int{}
	for _, o := range ops {
		kept[o.Action] = o.AWSOwnedKept
	}
	assert.Equal(t, map[vocab.Action]int{vocab.ActionUpdate: 2, vocab.ActionConflict: 0}, kept)
	assert.Equal(t, 2, Kept(ops))
}

// TestBuild_EmptyMetadataListIsNoMetadata: an update whose metadata list
// is empty (not nil) is written as an update of no metadata kind: the plan
// file is valid and its operation has no "metadata" list.
func TestBuild_EmptyMetadataListIsNoMetadata(t *testing.T) {
	in := single(rev, vocab.StatusDrift, []Operation{
		{Ordinal: 1, Name: "prod/app/a", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers, Metadata: []vocab.MetadataKind{},
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-b"}`)},
	}, nil)
	b, err := Marshal(Build(in, model.Redaction{}))
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"metadata": [`)
}
