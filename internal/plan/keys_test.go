package plan_test

import (
	"reflect"
	"slices"
	"testing"

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
	p := plan.Build(st, obs, plan.Policy{Rules: ours})
	if len(p.Unchanged) != 1 {
		t.Fatalf("unchanged = %+v, want one", p.Unchanged)
	}
	byName := map[string]plan.Operation{}
	for _, op := range p.Ops {
		byName[op.Name] = op
	}
	if len(byName) != 5 {
		t.Fatalf("operations = %+v, want five", p.Ops)
	}
	keysOf := func(name string) *keydiff.Summary {
		t.Helper()
		k := byName[name].Keys
		if k == nil {
			t.Fatalf("%s has no key summary", name)
		}
		return k
	}

	if got := pointers(keysOf("app/new").Added); !slices.Equal(got, []string{"/db/password", "/db/user"}) {
		t.Errorf("create added %v", got)
	}
	k := keysOf("app/edited")
	if got := pointers(k.Changed); !slices.Equal(got, []string{"/db/password"}) {
		t.Errorf("update changed %v", got)
	}
	if want := []keydiff.Path{{Pointer: "/db/extra", InDesired: false}}; !reflect.DeepEqual(k.Removed, want) {
		t.Errorf("added out of band must be counted, not desired-side: removed %+v", k.Removed)
	}
	if len(k.Added) != 0 {
		t.Errorf("update added %v", k.Added)
	}
	if got := keysOf("app/binary").Unavailable; got != vocab.KeysStoredValueBinary {
		t.Errorf("binary: keys_unavailable %q", got)
	}
	if byName["app/restored"].Keys != nil || byName["app/gone"].Keys != nil {
		t.Errorf("restore and schedule-delete carry no key summary")
	}
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
		if !slices.Contains(c.a.Reasons(), c.r) {
			t.Errorf("%s may not carry %s", c.a, c.r)
		}
	}
}

// TestMetadataKinds: the kinds of a metadata change, in schema order, never
// a tag key.
func TestMetadataKinds(t *testing.T) {
	if got := (plan.MetadataChange{}).Kinds(); got != nil {
		t.Errorf("no change has kinds %v", got)
	}
	want := []vocab.MetadataKind{vocab.MetadataKMSKey, vocab.MetadataDescription, vocab.MetadataTags}
	if got := (plan.MetadataChange{Tags: []string{"team"}, Description: true, KMSKeyID: true}).Kinds(); !slices.Equal(got, want) {
		t.Errorf("kinds = %v, want %v", got, want)
	}
}
