package plan_test

import (
	"strings"
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

// TestRegression_AdoptLineCountsAWSOwnedKeyAsRemoved: adopting a secret
// whose /password AWS owns, from a document without it. The live value
// holds /password; the plan must count it only as kept (KeptOf), never
// as a key removed from the live value: the adopt line said "value equal",
// "kept: 1" and "-1 key not in the desired document" at once, which a
// reviewer reads as "the password is dropped" (SPEC §13: the adopt line
// never counts a listed key as removed). An adoption that also changes a
// Git-owned key counts that change and nothing under /password.
func TestRegression_AdoptLineCountsAWSOwnedKeyAsRemoved(t *testing.T) {
	rules := plan.Rules{ScopeDigest: testScope.Digest(), Canonical: canonical.FromJSON, Adopt: plan.AdoptSet([]string{"app/db"}),
		AWSOwned: map[string]model.AWSOwned{"app/db": {Secret: "db", Keys: []string{"/password"}}}}
	for _, c := range []struct {
		name, doc, live string
		reason          vocab.Reason
		changed         int
	}{
		{"value equal", `{"host":"h1"}`, `{"host":"h1","password":"p"}`, vocab.ReasonValueEqual, 0},
		{"a Git-owned key differs", `{"host":"h2"}`, `{"host":"h1","password":"p"}`, vocab.ReasonValueDiffers, 1},
		{"the document seeds another password", `{"host":"h1","password":"seed"}`, `{"host":"h1","password":"p"}`, vocab.ReasonValueEqual, 0},
	} {
		st := model.State{Scope: testScope, Secrets: []model.Secret{*want("app/db", "secrets/db.sops.json", c.doc)}}
		p := plan.Build(st, map[string]plan.ObservedSecret{"app/db": handMade("app/db", c.live)}, plan.Policy{Rules: rules})
		if len(p.Ops) != 1 || p.Ops[0].Action != vocab.ActionAdopt || p.Ops[0].Reason != c.reason {
			t.Fatalf("%s: ops %+v, want one adopt %s", c.name, p.Ops, c.reason)
		}
		k := p.Ops[0].Keys
		if k == nil || len(k.Added) != 0 || len(k.Removed) != 0 || len(k.Changed) != c.changed {
			t.Errorf("%s: keys %+v, want %d changed and nothing added or removed", c.name, k, c.changed)
		}
		if p.KeptOf["app/db"] != 1 {
			t.Errorf("%s: kept %v, want app/db: 1", c.name, p.KeptOf)
		}
	}
}

// TestRegression_AdoptionDropsTheAWSOwnedKey: an adoption of a secret
// whose /password AWS owns, where a Git-owned key differs, must write the
// merge (the document with the live /password), as an update of an owned
// secret does; the adoption wrote the document alone, dropping the
// password AWS owns (SPEC §13: a listed key is never written once the
// secret exists).
func TestRegression_AdoptionDropsTheAWSOwnedKey(t *testing.T) {
	rules := plan.Rules{ScopeDigest: testScope.Digest(), Canonical: canonical.FromJSON, Adopt: plan.AdoptSet([]string{"app/db"}),
		AWSOwned: map[string]model.AWSOwned{"app/db": {Secret: "db", Keys: []string{"/password"}}}}
	st := model.State{Scope: testScope, Secrets: []model.Secret{*want("app/db", "secrets/db.sops.json", `{"host":"h2"}`)}}
	p := plan.Build(st, map[string]plan.ObservedSecret{"app/db": handMade("app/db", `{"host":"h1","password":"p"}`)}, plan.Policy{Rules: rules})
	if len(p.Ops) != 1 || p.Ops[0].Action != vocab.ActionAdopt {
		t.Fatalf("ops %+v, want one adopt", p.Ops)
	}
	if got := string(p.Ops[0].Desired.Value); got != `{"host":"h2","password":"p"}` {
		t.Errorf("the adoption writes %s, want the merge with the live password", got)
	}
	strict := rules
	strict.AdoptRequireMatch = true
	if d := plan.Classify(strict, &st.Secrets[0], handMade("app/db", `{"host":"h1","password":"p"}`)); d.Conflict != vocab.ConflictAdoptMismatch {
		t.Errorf("adopt-require-match with a differing Git-owned key: %s %s, want adopt-mismatch", d.Action, d.Conflict)
	}
}

// TestRegression_AdoptingARotatingSecretWhoseKeysAreListedIsRefused: a
// secret made by hand that already rotates, named in adopt, whose rotated
// /password aws-owned lists, is adopted (SPEC §13: "Adoption (§11) of a
// rotation-enabled secret whose rotated keys are listed is allowed"); it
// was conflict rotation. The rotation conflict that remains says which
// case it is, so its next action can differ: a rotation in flight
// (rotation-in-flight: re-run after it finishes), keys not listed
// (keys-not-listed: list them), a secret without a document (the class
// alone).
func TestRegression_AdoptingARotatingSecretWhoseKeysAreListedIsRefused(t *testing.T) {
	listed := plan.Rules{ScopeDigest: testScope.Digest(), Canonical: canonical.FromJSON, Adopt: plan.AdoptSet([]string{"app/db"}),
		AWSOwned: map[string]model.AWSOwned{"app/db": {Secret: "db", Keys: []string{"/password"}}}}
	unlisted := listed
	unlisted.AWSOwned = nil
	doc := want("app/db", "secrets/db.sops.json", `{"host":"h1"}`)
	rotating := func(f func(*plan.ObservedSecret)) plan.ObservedSecret {
		o := handMade("app/db", `{"host":"h1","password":"rotated"}`)
		o.RotationEnabled = true
		if f != nil {
			f(&o)
		}
		return o
	}
	inFlight := func(o *plan.ObservedSecret) {
		o.Versions = append(o.Versions, plan.Version{ID: "v2", Stages: []string{"AWSPENDING"}})
	}
	ownedRotating := func(f func(*plan.ObservedSecret)) plan.ObservedSecret {
		o := owned("app/db", "secrets/db.sops.json", `{"host":"h1","password":"rotated"}`)
		o.RotationEnabled = true
		if f != nil {
			f(&o)
		}
		return o
	}
	for _, c := range []struct {
		name   string
		rules  plan.Rules
		want   *model.Secret
		obs    plan.ObservedSecret
		action vocab.Action
		reason vocab.Reason
		class  vocab.ConflictClass
		kase   vocab.ConflictCase
	}{
		{"adopted: the rotated key is listed", listed, doc, rotating(nil), vocab.ActionAdopt, vocab.ReasonValueEqual, "", ""},
		{"adopted: AWSPENDING left on the current version", listed, doc, rotating(func(o *plan.ObservedSecret) {
			o.RotationEnabled = false
			o.Versions = []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT", "AWSPENDING"}}}
		}), vocab.ActionAdopt, vocab.ReasonValueEqual, "", ""},
		{"adopted with a Git change", listed, want("app/db", "secrets/db.sops.json", `{"host":"h2"}`), rotating(nil), vocab.ActionAdopt, vocab.ReasonValueDiffers, "", ""},
		{"adopt, in flight", listed, doc, rotating(inFlight), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation, vocab.CaseRotationInFlight},
		{"adopt, not listed", unlisted, doc, rotating(nil), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation, vocab.CaseRotationKeysNotListed},
		{"adopt, not listed and in flight", unlisted, doc, rotating(inFlight), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation, vocab.CaseRotationKeysNotListed},
		{"adopt, service-owned first", listed, doc, rotating(func(o *plan.ObservedSecret) { o.OwningService = "rds" }), vocab.ActionConflict, vocab.ConflictServiceOwned.Reason(), vocab.ConflictServiceOwned, ""},
		{"owned, in flight", listed, doc, ownedRotating(inFlight), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation, vocab.CaseRotationInFlight},
		{"owned, not listed", unlisted, doc, ownedRotating(nil), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation, vocab.CaseRotationKeysNotListed},
		{"owned, no document", listed, nil, ownedRotating(nil), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation, ""},
		{"owned, no document, in flight", listed, nil, ownedRotating(inFlight), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation, vocab.CaseRotationInFlight},
	} {
		d := plan.Classify(c.rules, c.want, c.obs)
		if d.Action != c.action || d.Reason != c.reason || d.Conflict != c.class || d.Case != c.kase {
			t.Errorf("%s: %s %s %s %q, want %s %s %s %q", c.name, d.Action, d.Reason, d.Conflict, d.Case, c.action, c.reason, c.class, c.kase)
		}
	}
	st := model.State{Scope: testScope, Secrets: []model.Secret{*doc}}
	p := plan.Build(st, map[string]plan.ObservedSecret{"app/db": rotating(inFlight)}, plan.Policy{Rules: listed})
	if len(p.Conflicts) != 1 || p.Conflicts[0].Case != vocab.CaseRotationInFlight {
		t.Errorf("Build: conflicts %+v, want one rotation-in-flight", p.Conflicts)
	}
}

// TestOversized: the value a write would store with the keys owned by AWS
// in it, against Rules.MaxValueBytes: a create's generated keys counted at
// their configured length (one byte per character, exactly: the limit
// itself fits, one byte more does not), a key the document holds
// generates nothing, an update's merge by its bytes; 0 checks nothing.
func TestOversized(t *testing.T) {
	pad := func(n int) string { return `{"host":"h","pad":"` + strings.Repeat("x", n) + `"}` }
	// pad(n) is 21+n bytes; ,"password":"" adds 14, ,"user":"" 10.
	rules := plan.Rules{ScopeDigest: testScope.Digest(), Canonical: canonical.FromJSON, MaxValueBytes: 1000,
		AWSOwned: map[string]model.AWSOwned{
			"app/fits": {Secret: "fits", Keys: []string{"/password"}, Generate: 32},
			"app/over": {Secret: "over", Keys: []string{"/password", "/user"}, Generate: 16},
			"app/seed": {Secret: "seed", Keys: []string{"/password"}, Generate: 4096},
			"app/db":   {Secret: "db", Keys: []string{"/password"}},
		}}
	st := model.State{Scope: testScope, Secrets: []model.Secret{
		*want("app/db", "secrets/db.sops.json", pad(1001-21-14-41)),
		*want("app/fits", "secrets/fits.sops.json", pad(1000-21-14-32)),
		*want("app/over", "secrets/over.sops.json", pad(1000-21-14-10-32+1)),
		*want("app/plain", "secrets/plain.sops.json", pad(900)),
		*want("app/seed", "secrets/seed.sops.json", `{"password":"s"}`),
	}}
	obs := map[string]plan.ObservedSecret{"app/db": owned("app/db", "secrets/db.sops.json", `{"host":"h","password":"`+strings.Repeat("p", 41)+`"}`)}
	p := plan.Build(st, obs, plan.Policy{Rules: rules})
	var got []string
	for _, op := range plan.Oversized(p, rules) {
		got = append(got, op.Name)
	}
	if strings.Join(got, ",") != "app/over,app/db" {
		t.Errorf("oversized %v, want [app/over app/db] (the merge with a 41-byte password is 1001 bytes; over lacks two keys of 16)", got)
	}
	rules.MaxValueBytes = 0
	if got := plan.Oversized(p, rules); got != nil {
		t.Errorf("no limit: %v", got)
	}
}

// TestOversized_CountsTheCanonicalBytesOfTheFill: a create's size is that
// of the value with its generated keys in canonical form (Rules.Canonical,
// RFC 8785), not the filler's encoding. Go's encoder writes U+2028 as the
// six-byte escape \u2028; the canonical form, the bytes the create sends,
// holds it raw (three bytes). A value of exactly the limit once canonical
// fits; one byte more does not.
func TestOversized_CountsTheCanonicalBytesOfTheFill(t *testing.T) {
	doc := func(pad int) string {
		return `{"host":"h","note":"` + strings.Repeat("\u2028", 4) + `","pad":"` + strings.Repeat("x", pad) + `"}`
	}
	// doc(n) is 43+n bytes (four U+2028 of 3 bytes each); ,"password":"" adds 14.
	rules := plan.Rules{ScopeDigest: testScope.Digest(), Canonical: canonical.FromJSON, MaxValueBytes: 1000,
		AWSOwned: map[string]model.AWSOwned{
			"app/fits": {Secret: "fits", Keys: []string{"/password"}, Generate: 32},
			"app/over": {Secret: "over", Keys: []string{"/password"}, Generate: 32},
		}}
	if n := len(doc(0)); n != 43 {
		t.Fatalf("doc(0) is %d bytes, want 43", n)
	}
	st := model.State{Scope: testScope, Secrets: []model.Secret{
		*want("app/fits", "secrets/fits.sops.json", doc(1000-43-14-32)),
		*want("app/over", "secrets/over.sops.json", doc(1000-43-14-32+1)),
	}}
	p := plan.Build(st, nil, plan.Policy{Rules: rules})
	var got []string
	for _, op := range plan.Oversized(p, rules) {
		got = append(got, op.Name)
	}
	if strings.Join(got, ",") != "app/over" {
		t.Errorf("oversized %v, want [app/over] (app/fits is 1,000 bytes canonical, 1,012 as Go's encoder escapes U+2028)", got)
	}
}
