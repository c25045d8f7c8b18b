package plan_test

import (
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Keys owned by AWS (SPEC §13): a rotation-enabled secret whose /password
// AWS owns is plannable; a rotated password is no change; a Git change to
// another key writes the merge with the rotated password; a rotation in
// flight stays conflict rotation; a listed key missing is aws-owned-missing.
func TestClassify_AWSOwnedKeys(t *testing.T) {
	rules := ours
	rules.Canonical = canonical.FromJSON
	rules.AWSOwned = map[string]model.AWSOwned{"app/db": {Secret: "db", Keys: []string{"/password"}}}
	rotated := func(value string, f func(*plan.ObservedSecret)) plan.ObservedSecret {
		o := owned("app/db", "secrets/db.sops.json", value)
		o.RotationEnabled = true
		if f != nil {
			f(&o)
		}
		return o
	}
	doc := want("app/db", "secrets/db.sops.json", `{"host":"h1","password":"from-git"}`)
	for _, c := range []struct {
		name   string
		want   *model.Secret
		obs    plan.ObservedSecret
		action vocab.Action
		class  vocab.ConflictClass
		value  string
	}{
		{"rotated password is no change", doc, rotated(`{"host":"h1","password":"rotated"}`, nil), vocab.ActionUnchanged, "", ""},
		{"a rotation function's own spelling is no change", doc, rotated(`{ "password": "rotated", "host": "h1" }`, nil), vocab.ActionUnchanged, "", ""},
		{"Git change keeps the rotated password", want("app/db", "secrets/db.sops.json", `{"host":"h2"}`),
			rotated(`{"host":"h1","password":"rotated"}`, nil), vocab.ActionUpdate, "", `{"host":"h2","password":"rotated"}`},
		{"a removed Git-owned key is restored", doc, rotated(`{"password":"rotated"}`, nil), vocab.ActionUpdate, "", `{"host":"h1","password":"rotated"}`},
		{"rotation in flight", doc, rotated(`{"host":"h1","password":"rotated"}`, func(o *plan.ObservedSecret) {
			o.Versions = append(o.Versions, plan.Version{ID: "v2", Stages: []string{"AWSPENDING"}})
		}), vocab.ActionConflict, vocab.ConflictRotation, ""},
		{"AWSPENDING left on the current version is no rotation", doc, rotated(`{"host":"h1","password":"r"}`, func(o *plan.ObservedSecret) {
			o.Versions = []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT", "AWSPENDING"}}}
		}), vocab.ActionUnchanged, "", ""},
		{"service-owned stays", doc, rotated(`{"host":"h1","password":"r"}`, func(o *plan.ObservedSecret) { o.OwningService = "rds" }),
			vocab.ActionConflict, vocab.ConflictServiceOwned, ""},
		{"listed key missing", doc, rotated(`{"host":"h1"}`, nil), vocab.ActionConflict, vocab.ConflictAWSOwnedMissing, ""},
		{"no current version", doc, rotated(`{}`, func(o *plan.ObservedSecret) {
			o.Versions = nil
			o.Current = nil
		}), vocab.ActionConflict, vocab.ConflictAWSOwnedMissing, ""},
		{"binary live value", doc, rotated(`{}`, func(o *plan.ObservedSecret) {
			o.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte("x")}
		}), vocab.ActionConflict, vocab.ConflictAWSOwnedMissing, ""},
	} {
		d := plan.Classify(rules, c.want, c.obs)
		if d.Action != c.action || d.Conflict != c.class || string(d.Value) != c.value {
			t.Errorf("%s: %s %s value %s, want %s %s %s", c.name, d.Action, d.Conflict, d.Value, c.action, c.class, c.value)
		}
	}
	// Without aws-owned the same rotation-enabled secret is conflict rotation.
	if d := plan.Classify(ours, doc, rotated(`{"host":"h1","password":"from-git"}`, nil)); d.Conflict != vocab.ConflictRotation {
		t.Errorf("rotation without aws-owned: %s %s", d.Action, d.Conflict)
	}
}

func TestBuild_AWSOwnedWritesTheMergeAndCountsKeptKeys(t *testing.T) {
	rules := ours
	rules.Canonical = canonical.FromJSON
	rules.AWSOwned = map[string]model.AWSOwned{
		"app/db":   {Secret: "*", Keys: []string{"/password", "/user"}},
		"app/seed": {Secret: "*", Keys: []string{""}},
	}
	st := model.State{Scope: testScope, Secrets: []model.Secret{
		*want("app/db", "secrets/db.sops.json", `{"host":"h2","user":"u"}`),
		*want("app/seed", "secrets/seed.sops.json", `{"k":"git"}`),
	}}
	obs := map[string]plan.ObservedSecret{
		"app/db":   owned("app/db", "secrets/db.sops.json", `{"host":"h1","password":"p","user":"u9"}`),
		"app/seed": owned("app/seed", "secrets/seed.sops.json", `{"k":"aws"}`),
	}
	p := plan.Build(st, obs, plan.Policy{Rules: rules})
	if len(p.Ops) != 1 || string(p.Ops[0].Desired.Value) != `{"host":"h2","password":"p","user":"u9"}` {
		t.Fatalf("ops %+v", p.Ops)
	}
	if k := p.Ops[0].Keys; k == nil || len(k.Changed) != 1 || k.Changed[0].Pointer != "/host" || len(k.Added)+len(k.Removed) != 0 {
		t.Fatalf("keys %+v: only /host changes", k)
	}
	if p.Kept() != 3 {
		t.Fatalf("kept %d, want 3", p.Kept())
	}
	if string(st.Secrets[0].Value) != `{"host":"h2","user":"u"}` {
		t.Fatal("the merge changed the desired state")
	}
}

func TestUnfillable(t *testing.T) {
	rules := ours
	rules.AWSOwned = map[string]model.AWSOwned{
		"app/a": {Secret: "a", Keys: []string{"/password"}},
		"app/b": {Secret: "b", Keys: []string{"/password"}, Generate: 32},
		"app/c": {Secret: "c", Keys: []string{"/password"}},
	}
	st := model.State{Scope: testScope, Secrets: []model.Secret{
		*want("app/a", "secrets/a.sops.json", `{"host":"h"}`),
		*want("app/b", "secrets/b.sops.json", `{"host":"h"}`),
		*want("app/c", "secrets/c.sops.json", `{"password":"seed"}`),
	}}
	p := plan.Build(st, map[string]plan.ObservedSecret{}, plan.Policy{Rules: rules})
	if got := plan.Unfillable(p, rules); len(got) != 1 || got[0] != "app/a" {
		t.Fatalf("unfillable %v, want [app/a]", got)
	}
}

// TestAWSOwnedSet: each desired secret an entry matches under the
// state's prefix maps to that entry; none matching is nil.
func TestAWSOwnedSet(t *testing.T) {
	want := model.State{Scope: model.Scope{Prefix: "app"}, Secrets: []model.Secret{{Name: "app/db/main"}, {Name: "app/db/replica"}, {Name: "app/api"}}}
	db := model.AWSOwned{Secret: "db/*", Keys: []string{"/password"}}
	got := plan.AWSOwnedSet(want, []model.AWSOwned{db})
	if len(got) != 2 || got["app/db/main"].Secret != "db/*" || got["app/db/replica"].Secret != "db/*" {
		t.Errorf("AWSOwnedSet = %v, want app/db/main and app/db/replica mapped to db/*", got)
	}
	if got := plan.AWSOwnedSet(want, []model.AWSOwned{{Secret: "cache", Keys: []string{"/k"}}}); got != nil {
		t.Errorf("no match: %v, want nil", got)
	}
}
