package planview

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestReplicaOperationsShownAndRoundTrip: replica Regions an operation adds
// or removes are in the plan file (replicas_added, replicas_removed), a
// removal is rendered as a deletion in text and Markdown alike, and the
// file reads back; a field on an action that cannot carry it is refused.
func TestReplicaOperationsShownAndRoundTrip(t *testing.T) {
	none := keydiff.Summary{}
	in := Input{Scopes: []ScopeInput{{Name: "default", Region: "us-east-1", Status: vocab.StatusDrift, Verification: vocab.VerificationNotRun, Operations: []Operation{
		{Ordinal: 1, Name: "app/a", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: &none, ReplicasAdded: []string{"us-west-2", "eu-west-1"}},
		{Ordinal: 2, Name: "app/b", Action: vocab.ActionUpdate, Reason: vocab.ReasonReplicas, Keys: &none, ReplicasRemoved: []string{"ap-south-1"}},
		{Ordinal: 3, Name: "app/c", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired, ReplicasRemoved: []string{"eu-west-1"}},
		{Ordinal: 4, Name: "app/d", Action: vocab.ActionUnchanged, Reason: vocab.ReasonReplica},
	}}}}
	v := Build(in, model.Redaction{})
	require.NoError(t, v.Validate())
	assert.Equal(t, []string{"eu-west-1", "us-west-2"}, v.Scopes[0].Operations[0].ReplicasAdded)
	text := Text(v)
	assert.Contains(t, text, "+ replica eu-west-1")
	assert.Contains(t, text, "- replica ap-south-1 removed at once (cannot be undone; counts as a deletion)")
	assert.Contains(t, text, "- replica eu-west-1 removed at once")
	// Markdown's diff block puts the symbol in the first column: a removal
	// is a red "-" line there.
	md := Markdown(v)
	assert.Regexp(t, `(?m)^\+\s+replica eu-west-1$`, md)
	assert.Regexp(t, `(?m)^-\s+replica ap-south-1 removed at once \(cannot be undone; counts as a deletion\)$`, md)
	for _, out := range []string{text, md} {
		assert.Contains(t, out, "replica Regions differ")
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, v, back)

	bad := v
	bad.Scopes = []ScopeView{v.Scopes[0]}
	ops := append([]Op(nil), v.Scopes[0].Operations...)
	bad.Scopes[0].Operations = ops
	ops[2].ReplicasAdded = []string{"eu-west-1"}
	assert.Error(t, bad.Validate(), "replicas_added on a schedule-delete")
	ops[2].ReplicasAdded = nil
	ops[2].ReplicasRemoved = []string{"us-west-2", "eu-west-1"}
	assert.Error(t, bad.Validate(), "unsorted Regions")
	ops[2].ReplicasRemoved = []string{"not a region"}
	assert.Error(t, bad.Validate(), "not a Region code")
}

// TestRegression_ReplicaOnlyChangeOfWholeValueSaysValueEqual: a whole-value
// document (a certificate) whose value is equal and whose replica Regions
// differ is an update of reason replicas; text and Markdown say the value
// is equal. Before, both said "whole value changed (replica Regions
// differ)", which reads as a replaced certificate.
func TestRegression_ReplicaOnlyChangeOfWholeValueSaysValueEqual(t *testing.T) {
	in := Input{Scopes: []ScopeInput{{Name: "default", Region: "us-east-1", Status: vocab.StatusDrift, Verification: vocab.VerificationNotRun, Operations: []Operation{
		{Ordinal: 1, Name: "app/tls.crt", Action: vocab.ActionUpdate, Reason: vocab.ReasonReplicas, Keys: &keydiff.Summary{Unavailable: vocab.KeysWholeValue}, ReplicasAdded: []string{"eu-west-1"}},
		{Ordinal: 2, Name: "app/tls.key", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers, Keys: &keydiff.Summary{Unavailable: vocab.KeysWholeValue}, ReplicasAdded: []string{"eu-west-1"}},
	}}}}
	v := Build(in, model.Redaction{ShowNames: true})
	require.NoError(t, v.Validate())
	for name, out := range map[string]string{"text": Text(v), "markdown": Markdown(v)} {
		assert.Contains(t, out, "app/tls.crt update: whole value equal (replica Regions differ)", name)
		assert.NotContains(t, out, "app/tls.crt update: whole value changed", name)
		assert.Contains(t, out, "app/tls.key update: whole value changed (value differs)", name)
	}
}
