package plan_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

func pointers(ps []keydiff.Path) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Pointer)
	}
	return out
}

// TestBuildCarriesKeySummaries: creates and updates carry their key-level
// summary (issue 13 item 1) — a create adds every leaf, a value edited out
// of band is changed, a key added out of band is removed and not in the
// desired document, a binary stored value is keys_unavailable — while
// unchanged names, restores and schedule-deletes carry none.
func TestBuildCarriesKeySummaries(t *testing.T) {
	value := `{"db":{"password":"p","user":"u"}}`
	st := model.State{Scope: testScope, Secrets: []model.Secret{
		*want("app/binary", "secrets/binary.sops.json", value),
		*want("app/edited", "secrets/edited.sops.json", value),
		*want("app/equal", "secrets/equal.sops.json", value),
		*want("app/new", "secrets/new.sops.json", value),
		*want("app/restored", "secrets/restored.sops.json", value),
	}}
	bin := owned("app/binary", "secrets/binary.sops.json", "")
	bin.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte(value)}
	restored := owned("app/restored", "secrets/restored.sops.json", value)
	restored.Deleted, restored.Current = true, nil
	gone := owned("app/gone", "secrets/gone.sops.json", value)
	gone.Current = nil
	obs := map[string]plan.ObservedSecret{
		"app/binary":   bin,
		"app/edited":   owned("app/edited", "secrets/edited.sops.json", `{"db":{"password":"other","user":"u","extra":"x"}}`),
		"app/equal":    owned("app/equal", "secrets/equal.sops.json", value),
		"app/restored": restored,
		"app/gone":     gone,
	}
	p := plan.Build(st, obs, plan.Policy{})
	require.Len(t, p.Unchanged, 1)
	byName := map[string]plan.Operation{}
	for _, op := range p.Ops {
		byName[op.Name] = op
	}
	require.Len(t, byName, 5)

	k := byName["app/new"].Keys
	require.NotNil(t, k)
	assert.Equal(t, []string{"/db/password", "/db/user"}, pointers(k.Added))

	k = byName["app/edited"].Keys
	require.NotNil(t, k)
	assert.Equal(t, []string{"/db/password"}, pointers(k.Changed))
	assert.Equal(t, []keydiff.Path{{Pointer: "/db/extra", InDesired: false}}, k.Removed, "added out of band: counted, not desired-side")
	assert.Empty(t, k.Added)

	k = byName["app/binary"].Keys
	require.NotNil(t, k)
	assert.Equal(t, vocab.KeysStoredValueBinary, k.Unavailable)

	assert.Nil(t, byName["app/restored"].Keys, "restore carries no key summary")
	assert.Nil(t, byName["app/gone"].Keys, "schedule-delete carries no key summary")
}

// TestReasonsAreWireTokens: every reason the planner and the engine give an
// operation or an unchanged name is one the action table allows for its
// action (vocab.Action.Reasons).
func TestReasonsAreWireTokens(t *testing.T) {
	for _, c := range []struct {
		a vocab.Action
		r vocab.Reason
	}{
		{vocab.ActionCreate, vocab.ReasonAbsent}, {vocab.ActionUpdate, vocab.ReasonValueDiffers},
		{vocab.ActionUpdate, vocab.ReasonStoredValueBinary}, {vocab.ActionUpdate, vocab.ReasonNoCurrentVersion},
		{vocab.ActionUpdate, vocab.ReasonRestoreThenUpdate}, {vocab.ActionUpdate, vocab.ReasonMetadata},
		{vocab.ActionRestore, vocab.ReasonScheduledForDeletion}, {vocab.ActionScheduleDelete, vocab.ReasonNotDesired},
		{vocab.ActionUnchanged, vocab.ReasonValueEqual}, {vocab.ActionUnchanged, vocab.ReasonScheduledForDeletion},
	} {
		assert.True(t, slices.Contains(c.a.Reasons(), c.r), "%s %s", c.a, c.r)
	}
}

// TestMetadataKinds: the kinds of a metadata change, in schema order, never
// a tag key.
func TestMetadataKinds(t *testing.T) {
	assert.Nil(t, plan.MetadataChange{}.Kinds())
	assert.Equal(t, []vocab.MetadataKind{vocab.MetadataKMSKey, vocab.MetadataDescription, vocab.MetadataTags},
		plan.MetadataChange{Tags: []string{"team"}, Description: true, KMSKeyID: true}.Kinds())
}
