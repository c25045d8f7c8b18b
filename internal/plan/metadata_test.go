package plan_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const keyA = "1234abcd-12ab-34cd-56ef-1234567890ab"

func TestDiffMetadataComparesOnlyWhatIsConfigured(t *testing.T) {
	obs := plan.ObservedSecret{Exists: true, ARN: "arn:aws:secretsmanager:eu-west-1:111122223333:secret:app/db-AbCdEf", KMSKeyID: keyA, Description: "old",
		Tags: map[string]string{"team": "a", "cost": "1", "owner-by-hand": "x", model.TagScope: "s"}}
	if c := plan.DiffMetadata(model.Metadata{}, obs); c.Any() {
		t.Fatalf("nothing configured, got %+v", c)
	}
	c := plan.DiffMetadata(model.Metadata{
		KMSKeyID:    "arn:aws:kms:eu-west-1:111122223333:key/" + keyA, // same key, other form, the secret's Region and account
		Description: "new",
		Tags:        map[string]string{"team": "a", "cost": "2", "env": "prod"},
	}, obs)
	want := plan.MetadataChange{Description: true, Tags: []string{"cost", "env"}}
	if fmt.Sprint(c) != fmt.Sprint(want) {
		t.Fatalf("DiffMetadata = %+v, want %+v", c, want)
	}
	if !c.NeedsUpdateSecret() {
		t.Fatal("a description change needs UpdateSecret")
	}
	// The same key id in another account is another key.
	if c := plan.DiffMetadata(model.Metadata{KMSKeyID: "arn:aws:kms:eu-west-1:999999999999:key/" + keyA}, obs); !c.KMSKeyID {
		t.Fatalf("another account's key: %+v", c)
	}
	if (plan.MetadataChange{Tags: []string{"x"}}).NeedsUpdateSecret() {
		t.Fatal("tags alone go through TagResource only")
	}
}

func TestClassifyMetadataOnlyIsAnUpdateWithReasonMetadata(t *testing.T) {
	w := &model.Secret{Name: "app/db", Value: []byte(`{"a":1}`), SourceDigest: model.SourceDigest("secrets/db.sops.json"), Path: "secrets/db.sops.json"}
	o := owned("app/db", w.Path, `{"a":1}`)
	rules := plan.Rules{ScopeDigest: testScope.Digest()}
	if d := plan.Classify(rules, w, o); d.Action != vocab.ActionUnchanged {
		t.Fatalf("no metadata configured: %+v", d)
	}
	rules.Metadata = model.Metadata{Tags: map[string]string{"env": "prod"}}
	d := plan.Classify(rules, w, o)
	if d.Action != vocab.ActionUpdate || d.Reason != vocab.ReasonMetadata || !slices.Equal(d.Metadata.Tags, []string{"env"}) {
		t.Fatalf("metadata differs: %+v", d)
	}
	// A value change carries the metadata change along.
	o2 := owned("app/db", w.Path, `{"a":2}`)
	d = plan.Classify(rules, w, o2)
	if d.Action != vocab.ActionUpdate || d.Reason != vocab.ReasonValueDiffers || !d.Metadata.Any() {
		t.Fatalf("value and metadata differ: %+v", d)
	}
	// A conflict stays a conflict; not-desired and scheduled names are not managed.
	o3 := o
	o3.RotationEnabled = true
	if d := plan.Classify(rules, w, o3); d.Action != vocab.ActionConflict || d.Metadata.Any() {
		t.Fatalf("conflict: %+v", d)
	}
	if d := plan.Classify(rules, nil, o); d.Action != vocab.ActionScheduleDelete || d.Metadata.Any() {
		t.Fatalf("not desired: %+v", d)
	}
	o4 := o
	o4.Deleted = true
	if d := plan.Classify(rules, w, o4); d.Action != vocab.ActionRestore || d.Metadata.Any() {
		t.Fatalf("scheduled for deletion: %+v", d)
	}
}

func TestFingerprintCoversTheMetadataChange(t *testing.T) {
	w := &model.Secret{Name: "app/db", Value: []byte(`{"a":1}`), SourceDigest: model.SourceDigest("secrets/db.sops.json"), Path: "secrets/db.sops.json"}
	rules := plan.Rules{ScopeDigest: testScope.Digest(), Metadata: model.Metadata{Description: "d", Tags: map[string]string{"env": "prod"}}}
	a := owned("app/db", w.Path, `{"a":1}`)
	fa := plan.FingerprintOf("app/db", a, plan.Classify(rules, w, a))
	b := owned("app/db", w.Path, `{"a":1}`)
	b.Tags["env"] = "prod" // someone set the tag meanwhile: the planned change is no longer the one needed
	if fb := plan.FingerprintOf("app/db", b, plan.Classify(rules, w, b)); fb.Equal(fa) {
		t.Fatal("a changed metadata difference must change the fingerprint")
	}
	c := owned("app/db", w.Path, `{"a":1}`)
	c.Tags["unrelated"] = "x" // a tag the configuration does not name
	if fc := plan.FingerprintOf("app/db", c, plan.Classify(rules, w, c)); !fc.Equal(fa) {
		t.Fatal("an unmanaged tag must not change the fingerprint")
	}
}

func TestDeletionLimitGate(t *testing.T) {
	st := model.State{Scope: testScope, Secrets: []model.Secret{{Name: "app/keep", Value: []byte(`{"a":1}`), SourceDigest: model.SourceDigest("secrets/keep.sops.json"), Path: "secrets/keep.sops.json"}}}
	obs := map[string]plan.ObservedSecret{"app/keep": owned("app/keep", "secrets/keep.sops.json", `{"a":1}`)}
	for _, n := range []string{"x", "y", "z"} {
		obs["app/"+n] = owned("app/"+n, "secrets/"+n+".sops.json", `{"a":1}`)
	}
	limit := func(n int) *int { return &n }
	if p := plan.Build(st, obs, plan.Policy{Rules: ours}); p.Gated() || p.Deletions() != 3 {
		t.Fatalf("no limit: gated=%v deletions=%d", p.Gated(), p.Deletions())
	}
	if p := plan.Build(st, obs, plan.Policy{Rules: ours, MaxDeletions: limit(2)}); !p.DeletionLimitGate || !p.Gated() || len(p.Ops) != 3 {
		t.Fatalf("3 deletions over a limit of 2 must gate the plan and still list them: %+v", p)
	}
	if p := plan.Build(st, obs, plan.Policy{Rules: ours, MaxDeletions: limit(3)}); p.Gated() {
		t.Fatal("3 deletions at a limit of 3 are allowed")
	}
	delete(obs, "app/z")
	if p := plan.Build(st, obs, plan.Policy{Rules: ours, MaxDeletions: limit(2)}); p.Gated() {
		t.Fatal("2 deletions at a limit of 2 are allowed")
	}
	if p := plan.Build(st, obs, plan.Policy{Rules: ours, MaxDeletions: limit(0)}); !p.DeletionLimitGate {
		t.Fatal("a limit of 0 forbids every deletion")
	}
	delete(obs, "app/x")
	delete(obs, "app/y")
	if p := plan.Build(st, obs, plan.Policy{Rules: ours, MaxDeletions: limit(0)}); p.Gated() {
		t.Fatal("a plan without deletions is never gated by the limit")
	}
}

var kmsForms = []string{"", keyA, "arn:aws:kms:eu-west-1:111122223333:key/" + keyA, "alias/app", "arn:aws:kms:eu-west-1:111122223333:alias/app", "alias/other"}

// applyWithMetadata executes ops as AWS would, metadata included: a create
// carries the configured metadata; an update with reason metadata writes no
// version; UpdateSecret stores the configured KMS reference as given.
func applyWithMetadata(w world, st model.State, meta model.Metadata, ops []plan.Operation, version *int) {
	for _, op := range ops {
		o := w[op.Name]
		switch {
		case op.Action == vocab.ActionCreate:
			*version++
			vid := fmt.Sprintf("w%d", *version)
			tags := st.Scope.Tags(op.Desired.Path)
			maps.Copy(tags, meta.Tags)
			o = plan.ObservedSecret{Exists: true, Name: op.Name, ARN: "arn:new:" + op.Name, Tags: tags,
				KMSKeyID: meta.KMSKeyID, Description: meta.Description,
				Versions: []plan.Version{{ID: vid, Stages: []string{"AWSCURRENT"}}},
				Current:  written(vid, op.Desired)}
		case op.Action == vocab.ActionAdopt:
			// TagResource: the ownership tags and every configured tag;
			// then the value when it differs, then UpdateSecret.
			o.Tags = maps.Clone(o.Tags)
			maps.Copy(o.Tags, st.Scope.Tags(op.Desired.Path))
			maps.Copy(o.Tags, meta.Tags)
			if op.Reason != vocab.ReasonValueEqual {
				*version++
				vid := fmt.Sprintf("w%d", *version)
				o.Versions = []plan.Version{{ID: vid, Stages: []string{"AWSCURRENT"}}}
				o.Current = written(vid, op.Desired)
			}
			if op.Metadata.KMSKeyID {
				o.KMSKeyID = meta.KMSKeyID
			}
			if op.Metadata.Description {
				o.Description = meta.Description
			}
		case op.Action == vocab.ActionUpdate:
			if op.Reason != vocab.ReasonMetadata {
				*version++
				vid := fmt.Sprintf("w%d", *version)
				o.Versions = []plan.Version{{ID: vid, Stages: []string{"AWSCURRENT"}}}
				o.Current = written(vid, op.Desired)
			}
			if op.Metadata.KMSKeyID {
				o.KMSKeyID = meta.KMSKeyID
			}
			if op.Metadata.Description {
				o.Description = meta.Description
			}
			o.Tags = maps.Clone(o.Tags)
			for _, k := range op.Metadata.Tags {
				o.Tags[k] = meta.Tags[k]
			}
		case op.Action == vocab.ActionRestore:
			o.Deleted = false
		case op.Action == vocab.ActionScheduleDelete:
			o.Deleted = true
		}
		w[op.Name] = o
	}
}

func TestProperty_MetadataConvergesAndLeavesOtherTagsAlone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		st, w, rules := genScenario(t, false)
		meta := model.Metadata{KMSKeyID: rapid.SampledFrom(kmsForms).Draw(t, "kms")}
		if rapid.Bool().Draw(t, "describe") {
			meta.Description = "from owner/repo"
		}
		for _, k := range rapid.SliceOfDistinct(rapid.SampledFrom([]string{"env", "team", "cost"}), rapid.ID[string]).Draw(t, "tags") {
			if meta.Tags == nil {
				meta.Tags = map[string]string{}
			}
			meta.Tags[k] = rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "tag-"+k)
		}
		// Observed metadata drawn freely, plus a tag set by someone else.
		existed := slices.Collect(maps.Keys(w))
		for name, o := range w {
			o.KMSKeyID = rapid.SampledFrom(kmsForms).Draw(t, "kms-"+name)
			o.Description = rapid.SampledFrom([]string{"", "old", "from owner/repo"}).Draw(t, "desc-"+name)
			o.Tags = maps.Clone(o.Tags)
			o.Tags["by-hand"] = "keep"
			if rapid.Bool().Draw(t, "team-"+name) {
				o.Tags["team"] = "a"
			}
			w[name] = o
		}
		rules.Metadata = meta
		policy := plan.Policy{Rules: rules, AllowEmpty: true}
		version := 0
		for round := 0; round < 3; round++ {
			p := plan.Build(st, observe(st, w, rules), policy)
			if len(p.Conflicts) > 0 {
				t.Fatalf("no conflict expected: %+v", p.Conflicts)
			}
			for _, op := range p.Ops {
				if op.Reason == vocab.ReasonMetadata && !op.Metadata.Any() {
					t.Fatalf("%s: reason metadata without a change", op.Name)
				}
			}
			if len(p.Ops) == 0 {
				break
			}
			applyWithMetadata(w, st, meta, p.Ops, &version)
		}
		final := plan.Build(st, observe(st, w, rules), policy)
		if len(final.Ops) != 0 {
			t.Fatalf("not converged after three rounds: %+v", final.Ops)
		}
		for _, name := range existed {
			if o := w[name]; o.Tags["by-hand"] != "keep" {
				t.Fatalf("%s: a tag set by someone else was changed", name)
			}
		}
	})
}

// TestForeignMetadata: a managed field that is neither configured nor what
// planning saw is another writer's; a field still showing what planning
// saw is lag; unmanaged fields never count.
func TestForeignMetadata(t *testing.T) {
	m := model.Metadata{Description: "ours", Tags: map[string]string{"env": "prod"}}
	before := owned("app/db", "secrets/db.sops.json", `{}`)
	before.Description = "old"
	seen := plan.SeenMetadata(m, before)
	if seen.Description != "old" || len(seen.Tags) != 0 {
		t.Fatalf("seen = %+v", seen)
	}
	with := func(desc string, tags map[string]string) plan.ObservedSecret {
		o := owned("app/db", "secrets/db.sops.json", `{}`)
		o.Description = desc
		for k, v := range tags {
			o.Tags[k] = v
		}
		return o
	}
	for name, c := range map[string]struct {
		obs     plan.ObservedSecret
		foreign bool
	}{
		"written":                  {with("ours", map[string]string{"env": "prod"}), false},
		"not visible yet":          {with("old", nil), false},
		"half visible":             {with("ours", nil), false},
		"description by another":   {with("theirs", map[string]string{"env": "prod"}), true},
		"tag by another":           {with("ours", map[string]string{"env": "dev"}), true},
		"unmanaged tag by another": {with("ours", map[string]string{"env": "prod", "team": "x"}), false},
	} {
		if got := plan.ForeignMetadata(m, c.obs, seen); got != c.foreign {
			t.Errorf("%s: ForeignMetadata = %v, want %v", name, got, c.foreign)
		}
	}
	if !plan.ForeignMetadata(m, with("theirs", nil)) {
		t.Errorf("with nothing seen, every difference is foreign")
	}
	if plan.ForeignMetadata(m, plan.ObservedSecret{}, seen) {
		t.Errorf("an absent secret shows no metadata")
	}
}

// TestForeignMetadata_KMSKey: a configured KMS key not visible yet (the
// secret still shows the key planning saw) is lag; a third key is another
// writer's.
func TestForeignMetadata_KMSKey(t *testing.T) {
	const key = "arn:aws:kms:eu-west-1:123456789012:key/"
	m := model.Metadata{KMSKeyID: key + "ours"}
	with := func(kms string) plan.ObservedSecret {
		o := owned("app/db", "secrets/db.sops.json", `{}`)
		o.KMSKeyID = kms
		return o
	}
	seen := plan.SeenMetadata(m, with(key+"old"))
	if seen.KMSKeyID != key+"old" {
		t.Fatalf("seen = %+v", seen)
	}
	for kms, foreign := range map[string]bool{key + "ours": false, key + "old": false, key + "theirs": true} {
		if got := plan.ForeignMetadata(m, with(kms), seen); got != foreign {
			t.Errorf("%s: ForeignMetadata = %v, want %v", kms, got, foreign)
		}
	}
}
