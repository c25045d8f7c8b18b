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
	in := Input{Operations: []Operation{
		{Ordinal: 1, Name: "app/a", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: &none, ReplicasAdded: []string{"us-west-2", "eu-west-1"}},
		{Ordinal: 2, Name: "app/b", Action: vocab.ActionUpdate, Reason: vocab.ReasonReplicas, Keys: &none, ReplicasRemoved: []string{"ap-south-1"}},
		{Ordinal: 3, Name: "app/c", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired, ReplicasRemoved: []string{"eu-west-1"}},
		{Ordinal: 4, Name: "app/d", Action: vocab.ActionUnchanged, Reason: vocab.ReasonReplica},
	}}
	v := Build(in, model.Redaction{})
	require.NoError(t, v.Validate())
	assert.Equal(t, []string{"eu-west-1", "us-west-2"}, v.Operations[0].ReplicasAdded)
	for _, out := range []string{Text(v), Markdown(v)} {
		assert.Contains(t, out, "+ replica eu-west-1")
		assert.Contains(t, out, "- replica ap-south-1 removed at once (cannot be undone; counts as a deletion)")
		assert.Contains(t, out, "- replica eu-west-1 removed at once")
		assert.Contains(t, out, "replica Regions differ")
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, v, back)

	bad := v
	bad.Operations = append([]Op(nil), v.Operations...)
	bad.Operations[2].ReplicasAdded = []string{"eu-west-1"}
	assert.Error(t, bad.Validate(), "replicas_added on a schedule-delete")
	bad.Operations[2].ReplicasAdded = nil
	bad.Operations[2].ReplicasRemoved = []string{"us-west-2", "eu-west-1"}
	assert.Error(t, bad.Validate(), "unsorted Regions")
	bad.Operations[2].ReplicasRemoved = []string{"not a region"}
	assert.Error(t, bad.Validate(), "not a Region code")
}
