package plan_test

import (
	"fmt"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// handMade is a secret made outside this tool: no tags, one current
// version holding value (already read), in us-east-1.
func handMade(name, value string) plan.ObservedSecret {
	return plan.ObservedSecret{
		Exists: true, ARN: "arn:aws:secretsmanager:us-east-1:1:secret:" + name + "-AbCdEf", Name: name,
		Tags:     map[string]string{"team": "payments"},
		Versions: []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT"}}},
		Current:  &plan.CurrentValue{VersionID: "v1", HasString: true, String: []byte(value)},
	}
}

// TestClassify_AdoptRows is the decision table of SPEC §11: a desired
// secret without our tags, named in adopt.
func TestClassify_AdoptRows(t *testing.T) {
	d := testScope.Digest()
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	wBin := want("app/db", "secrets/db.sops.bin", "\x00\x01")
	wBin.Kind = model.KindBinary
	base := handMade("app/db", `{"a":1}`)
	mod := func(f func(*plan.ObservedSecret)) plan.ObservedSecret {
		o := base
		c := *o.Current
		o.Current = &c
		o.Tags = map[string]string{"team": "payments"}
		f(&o)
		return o
	}
	adopt := plan.Rules{ScopeDigest: d, Adopt: plan.AdoptSet([]string{"app/db"})}
	strict := adopt
	strict.AdoptRequireMatch = true
	cases := []struct {
		name   string
		rules  plan.Rules
		want   *model.Secret
		obs    plan.ObservedSecret
		action vocab.Action
		reason vocab.Reason
		class  vocab.ConflictClass
	}{
		{"not listed: ownership as before", plan.Rules{ScopeDigest: d}, w, base, vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"listed, other name: ownership", plan.Rules{ScopeDigest: d, Adopt: plan.AdoptSet([]string{"app/other"})}, w, base, vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"equal → adopt value-equal", adopt, w, base, vocab.ActionAdopt, vocab.ReasonValueEqual, ""},
		{"differs → adopt value-differs", adopt, w, mod(func(o *plan.ObservedSecret) { o.Current.String = []byte(`{"a":2,"b":3}`) }), vocab.ActionAdopt, vocab.ReasonValueDiffers, ""},
		{"equal with require-match → adopt", strict, w, base, vocab.ActionAdopt, vocab.ReasonValueEqual, ""},
		{"differs with require-match → adopt-mismatch", strict, w, mod(func(o *plan.ObservedSecret) { o.Current.String = []byte(`{"a":2}`) }), vocab.ActionConflict, vocab.ConflictAdoptMismatch.Reason(), vocab.ConflictAdoptMismatch},
		{"binary live, string document → adopt stored-value-binary", adopt, w, mod(func(o *plan.ObservedSecret) {
			o.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte(`{"a":1}`)}
		}), vocab.ActionAdopt, vocab.ReasonStoredValueBinary, ""},
		{"string live, binary document, require-match → adopt-mismatch", strict, wBin, base, vocab.ActionConflict, vocab.ConflictAdoptMismatch.Reason(), vocab.ConflictAdoptMismatch},
		{"binary equal → adopt value-equal", adopt, wBin, mod(func(o *plan.ObservedSecret) {
			o.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte("\x00\x01")}
		}), vocab.ActionAdopt, vocab.ReasonValueEqual, ""},
		{"managed-by tag alone: ownership", adopt, w, mod(func(o *plan.ObservedSecret) { o.Tags[model.TagManagedBy] = model.ManagedByValue }), vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"another scope's tags: ownership", adopt, w, mod(func(o *plan.ObservedSecret) {
			o.Tags = model.Scope{RepositoryID: "acme/other", SourceRoot: "secrets", Prefix: "app"}.Tags("secrets/db.sops.json")
		}), vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"our prefix in other case: ownership", adopt, w, mod(func(o *plan.ObservedSecret) { o.Tags["SOPS-AWS-SYNC:source"] = "x" }), vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"service-owned", adopt, w, mod(func(o *plan.ObservedSecret) { o.OwningService = "rds" }), vocab.ActionConflict, vocab.ConflictServiceOwned.Reason(), vocab.ConflictServiceOwned},
		{"rotation enabled", adopt, w, mod(func(o *plan.ObservedSecret) { o.RotationEnabled = true }), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation},
		{"rotation: AWSPENDING", adopt, w, mod(func(o *plan.ObservedSecret) {
			o.Versions = []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT"}}, {ID: "v2", Stages: []string{"AWSPENDING"}}}
		}), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation},
		{"replica of another Region's primary", adopt, w, mod(func(o *plan.ObservedSecret) { o.PrimaryRegion = "eu-west-1" }), vocab.ActionConflict, vocab.ConflictReplication.Reason(), vocab.ConflictReplication},
		{"primary with replicas", adopt, w, mod(func(o *plan.ObservedSecret) { o.PrimaryRegion = "us-east-1"; o.ReplicaRegions = []string{"eu-west-1"} }), vocab.ActionConflict, vocab.ConflictReplication.Reason(), vocab.ConflictReplication},
		{"PrimaryRegion its own Region, no replicas → adopt", adopt, w, mod(func(o *plan.ObservedSecret) { o.PrimaryRegion = "us-east-1" }), vocab.ActionAdopt, vocab.ReasonValueEqual, ""},
		{"scheduled for deletion → adopt-deleted", adopt, w, mod(func(o *plan.ObservedSecret) { o.Deleted = true; o.Current = nil }), vocab.ActionConflict, vocab.ConflictAdoptDeleted.Reason(), vocab.ConflictAdoptDeleted},
		{"two AWSCURRENT → staging", adopt, w, mod(func(o *plan.ObservedSecret) {
			o.Versions = []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT"}}, {ID: "v2", Stages: []string{"AWSCURRENT"}}}
		}), vocab.ActionConflict, vocab.ConflictStaging.Reason(), vocab.ConflictStaging},
		{"no AWSCURRENT → payload", adopt, w, mod(func(o *plan.ObservedSecret) { o.Versions = nil; o.Current = nil }), vocab.ActionConflict, vocab.ConflictPayload.Reason(), vocab.ConflictPayload},
		{"read found none → payload", adopt, w, mod(func(o *plan.ObservedSecret) { o.Current = &plan.CurrentValue{Missing: true} }), vocab.ActionConflict, vocab.ConflictPayload.Reason(), vocab.ConflictPayload},
		{"both payloads → payload", adopt, w, mod(func(o *plan.ObservedSecret) { o.Current.HasBinary = true; o.Current.Binary = []byte{1} }), vocab.ActionConflict, vocab.ConflictPayload.Reason(), vocab.ConflictPayload},
		{"neither payload → payload", adopt, w, mod(func(o *plan.ObservedSecret) { o.Current = &plan.CurrentValue{VersionID: "v1"} }), vocab.ActionConflict, vocab.ConflictPayload.Reason(), vocab.ConflictPayload},
		{"fetched version disagrees → staging", adopt, w, mod(func(o *plan.ObservedSecret) { o.Current.VersionID = "v9" }), vocab.ActionConflict, vocab.ConflictStaging.Reason(), vocab.ConflictStaging},
		{"already owned, listed → owned rules (unchanged)", adopt, w, owned("app/db", "secrets/db.sops.json", `{"a":1}`), vocab.ActionUnchanged, vocab.ReasonValueEqual, ""},
		{"absent, listed → create", adopt, w, plan.ObservedSecret{}, vocab.ActionCreate, vocab.ReasonAbsent, ""},
		{"listed, not desired → none", adopt, nil, base, vocab.ActionNone, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := plan.Classify(tc.rules, tc.want, tc.obs)
			if got.Action != tc.action || got.Reason != tc.reason || got.Conflict != tc.class {
				t.Fatalf("Classify = %+v, want {%s %s %s}", got, tc.action, tc.reason, tc.class)
			}
		})
	}
}

// TestNeedsValue_AdoptReadsOnlyWhatItMayAdopt: the value of a listed
// hand-made secret is read only when metadata does not already refuse it,
// and never for a secret that is not listed.
func TestNeedsValue_AdoptReadsOnlyWhatItMayAdopt(t *testing.T) {
	d := testScope.Digest()
	w := want("app/db", "secrets/db.sops.json", `{}`)
	o := handMade("app/db", `{}`)
	o.Current = nil
	adopt := plan.Rules{ScopeDigest: d, Adopt: plan.AdoptSet([]string{"app/db"})}
	if !plan.NeedsValue(adopt, w, o) {
		t.Fatal("a listed hand-made secret must need its value")
	}
	if plan.NeedsValue(plan.Rules{ScopeDigest: d}, w, o) {
		t.Fatal("an unlisted foreign secret's value must never be read")
	}
	rot := o
	rot.RotationEnabled = true
	if plan.NeedsValue(adopt, w, rot) {
		t.Fatal("a refused adoption must not read the value")
	}
}

// TestBuild_AdoptOperation: an adoption is an operation in its phase
// (after create, before update) with the key-level diff against the live
// value, live-only keys on the removed side only.
func TestBuild_AdoptOperation(t *testing.T) {
	st := model.State{Scope: testScope, Secrets: []model.Secret{
		*want("app/a", "secrets/a.sops.json", `{"k":1}`),
		*want("app/b", "secrets/b.sops.json", `{"k":1}`),
		*want("app/c", "secrets/c.sops.json", `{"k":2}`),
	}}
	obs := map[string]plan.ObservedSecret{
		"app/b": handMade("app/b", `{"k":1,"live-only":"x"}`),
		"app/c": owned("app/c", "secrets/c.sops.json", `{"k":1}`),
	}
	p := plan.Build(st, obs, plan.Policy{Rules: plan.Rules{ScopeDigest: testScope.Digest(), Adopt: plan.AdoptSet([]string{"app/b"})}})
	if len(p.Ops) != 3 || p.Ops[0].Action != vocab.ActionCreate || p.Ops[1].Action != vocab.ActionAdopt || p.Ops[2].Action != vocab.ActionUpdate {
		t.Fatalf("ops = %+v, want create, adopt, update", p.Ops)
	}
	k := p.Ops[1].Keys
	if k == nil || len(k.Removed) != 1 || k.Removed[0].InDesired || len(k.Added)+len(k.Changed) != 0 {
		t.Fatalf("adopt keys = %+v, want one live-only removed key", k)
	}
	if c := p.Counts(); c.Adopt != 1 || c.Create != 1 || c.Update != 1 || c.Report().Update != 2 {
		t.Fatalf("counts = %+v", c)
	}
}

func TestNotDesiredAndAlreadyOwned(t *testing.T) {
	st := model.State{Scope: testScope, Secrets: []model.Secret{*want("app/a", "secrets/a.sops.json", `{}`), *want("app/b", "secrets/b.sops.json", `{}`)}}
	if got := plan.NotDesired(st, []string{"app/b", "app/zz", "app/a", "app/y"}); len(got) != 2 || got[0] != "app/y" || got[1] != "app/zz" {
		t.Fatalf("NotDesired = %v", got)
	}
	rules := plan.Rules{ScopeDigest: testScope.Digest(), Adopt: plan.AdoptSet([]string{"app/a", "app/b"})}
	obs := map[string]plan.ObservedSecret{"app/a": owned("app/a", "secrets/a.sops.json", `{}`), "app/b": handMade("app/b", `{}`)}
	if got := plan.AlreadyOwned(rules, obs); len(got) != 1 || got[0] != "app/a" {
		t.Fatalf("AlreadyOwned = %v", got)
	}
}

// TestRegression_AdoptRequireMatchRefusesReorderedJSON: a secret made by
// hand holds its JSON in its own key order and spacing (the console, the
// AWS CLI), which is never byte-equal to the document's RFC 8785 form; the
// migration guide's reviewed path (adopt-require-match until the plan
// shows no mismatch) refused every such secret although its content is
// the document's. The same object spelled otherwise is adopted (the value
// rewritten in canonical form); a different value, a duplicate member, a
// number that would round, a whole-value document or the other payload
// field is still adopt-mismatch.
func TestRegression_AdoptRequireMatchRefusesReorderedJSON(t *testing.T) {
	d := testScope.Digest()
	strict := plan.Rules{ScopeDigest: d, Adopt: plan.AdoptSet([]string{"app/db"}), AdoptRequireMatch: true, Canonical: canonical.FromJSON}
	w := want("app/db", "secrets/db.sops.json", `{"password":"p","port":5432,"user":"u"}`)
	wText := want("app/db", "secrets/db.sops.txt", `{"password":"p","port":5432,"user":"u"}`)
	wText.Kind = model.KindText
	cases := []struct {
		name   string
		want   *model.Secret
		live   string
		action vocab.Action
		reason vocab.Reason
	}{
		{"other key order and spaces → adopt value-differs", w, "{\"user\": \"u\", \"password\": \"p\", \"port\": 5432.0}\n", vocab.ActionAdopt, vocab.ReasonValueDiffers},
		{"byte-equal → adopt value-equal", w, `{"password":"p","port":5432,"user":"u"}`, vocab.ActionAdopt, vocab.ReasonValueEqual},
		{"other value → adopt-mismatch", w, `{"user": "u", "password": "q", "port": 5432}`, vocab.ActionConflict, vocab.ConflictAdoptMismatch.Reason()},
		{"duplicate member → adopt-mismatch", w, `{"user":"u","password":"evil","password":"p","port":5432}`, vocab.ActionConflict, vocab.ConflictAdoptMismatch.Reason()},
		{"a number that would round → adopt-mismatch", w, `{"user":"u","password":"p","port":5432.00000000000000000001}`, vocab.ActionConflict, vocab.ConflictAdoptMismatch.Reason()},
		{"whole value spelled otherwise → adopt-mismatch", wText, `{"user":"u","password":"p","port":5432}`, vocab.ActionConflict, vocab.ConflictAdoptMismatch.Reason()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := plan.Classify(strict, tc.want, handMade("app/db", tc.live))
			if got.Action != tc.action || got.Reason != tc.reason {
				t.Fatalf("Classify = %+v, want {%s %s}", got, tc.action, tc.reason)
			}
		})
	}
	bin := handMade("app/db", "")
	bin.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte(`{"user":"u","password":"p","port":5432}`)}
	if got := plan.Classify(strict, w, bin); got.Conflict != vocab.ConflictAdoptMismatch {
		t.Fatalf("live SecretBinary with the same JSON: Classify = %+v, want adopt-mismatch", got)
	}
}

// manyTags returns n tags made by hand (team-0 … team-(n-1)) plus two
// aws: tags, which AWS does not count against its 50.
func manyTags(n int) map[string]string {
	tags := map[string]string{"aws:cloudformation:stack-name": "s", "aws:cloudformation:logical-id": "l"}
	for i := range n {
		tags[fmt.Sprintf("team-%d", i)] = "x"
	}
	return tags
}

// TestRegression_TagLimitIsAConflictAtPlanning: a write that would leave a
// secret with more than AWS's 50 tags (aws: tags not counted) is conflict
// tag-limit when planned, so nothing is written in any scope (SPEC §4.1
// all or nothing), instead of a TagResource that fails after other writes
// (exit 5). An adoption adds the three ownership tags; a configured tag
// missing from an owned or adopted secret adds one more. Exactly 50 is
// fine. It was adopt / update, then an apply failure.
func TestRegression_TagLimitIsAConflictAtPlanning(t *testing.T) {
	d := testScope.Digest()
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	hand := func(n int) plan.ObservedSecret {
		o := handMade("app/db", `{"a":1}`)
		o.Tags = manyTags(n)
		return o
	}
	ownedWith := func(n int) plan.ObservedSecret {
		o := owned("app/db", "secrets/db.sops.json", `{"a":1}`)
		for k, v := range manyTags(n) {
			o.Tags[k] = v
		}
		return o
	}
	adopt := plan.Rules{ScopeDigest: d, Adopt: plan.AdoptSet([]string{"app/db"})}
	tagged := adopt
	tagged.Metadata = model.Metadata{Tags: map[string]string{"cost-center": "42"}}
	ownedTagged := plan.Rules{ScopeDigest: d, Metadata: tagged.Metadata}
	for _, c := range []struct {
		name   string
		rules  plan.Rules
		obs    plan.ObservedSecret
		action vocab.Action
	}{
		{"adopt, 47 tags + 3 = 50", adopt, hand(47), vocab.ActionAdopt},
		{"adopt, 48 tags + 3 = 51", adopt, hand(48), vocab.ActionConflict},
		{"adopt, 50 tags", adopt, hand(50), vocab.ActionConflict},
		{"adopt with a configured tag, 46 + 3 + 1 = 50", tagged, hand(46), vocab.ActionAdopt},
		{"adopt with a configured tag, 47 + 3 + 1 = 51", tagged, hand(47), vocab.ActionConflict},
		{"adopt with a configured tag it already has, 47 + 3", tagged, func() plan.ObservedSecret { o := hand(46); o.Tags["cost-center"] = "old"; return o }(), vocab.ActionAdopt},
		{"owned, 3 + 46 + 1 configured = 50", ownedTagged, ownedWith(46), vocab.ActionUpdate},
		{"owned, 3 + 47 + 1 configured = 51", ownedTagged, ownedWith(47), vocab.ActionConflict},
		{"owned, 3 + 47, nothing to add", plan.Rules{ScopeDigest: d}, ownedWith(47), vocab.ActionUnchanged},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := plan.Classify(c.rules, w, c.obs)
			if got.Action != c.action {
				t.Fatalf("Classify = %+v, want %s", got, c.action)
			}
			if c.action == vocab.ActionConflict && (got.Conflict != vocab.ConflictTagLimit || got.Reason != vocab.ConflictTagLimit.Reason()) {
				t.Fatalf("Classify = %+v, want conflict tag-limit", got)
			}
		})
	}
}

// TestRegression_ReplicatedHandMadeSecretCanBeAdopted: a hand-made
// secret whose replica Regions are all listed in replica-regions is
// adopted (its replicas are managed from then on, the missing ones
// added); a replica in a Region not listed stays conflict replication
// (issue 30 item 1: it was refused although replica-regions listed it).
func TestRegression_ReplicatedHandMadeSecretCanBeAdopted(t *testing.T) {
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	rules := replicaRules() // eu-west-1, us-west-2
	rules.Adopt = plan.AdoptSet([]string{"app/db"})
	cases := []struct {
		name     string
		rules    plan.Rules
		replicas []string
		action   vocab.Action
		add      []string
		class    vocab.ConflictClass
	}{
		{"every replica listed, all there → adopt, nothing to add", rules, []string{"eu-west-1", "us-west-2"}, vocab.ActionAdopt, nil, ""},
		{"listed replica there, one missing → adopt adding it", rules, []string{"eu-west-1"}, vocab.ActionAdopt, []string{"us-west-2"}, ""},
		{"a replica in an unlisted Region → replication", rules, []string{"eu-west-1", "ap-south-1"}, vocab.ActionConflict, nil, vocab.ConflictReplication},
		{"no replica-regions → replication", plan.Rules{ScopeDigest: testScope.Digest(), Region: "us-east-1", Adopt: rules.Adopt}, []string{"eu-west-1"}, vocab.ActionConflict, nil, vocab.ConflictReplication},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obs := withReplicas(handMade("app/db", `{"a":1}`), "us-east-1", tc.replicas...)
			got := plan.Classify(tc.rules, w, obs)
			if got.Action != tc.action || got.Conflict != tc.class {
				t.Fatalf("Classify = %+v, want %s %s", got, tc.action, tc.class)
			}
			if fmt.Sprint(regionsOf(got.Replicas.Add)) != fmt.Sprint(tc.add) || len(got.Replicas.Remove) != 0 {
				t.Fatalf("replicas = %+v, want add %v and nothing removed", got.Replicas, tc.add)
			}
		})
	}
}
