package plan_test

import (
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

var testScope = model.Scope{RepositoryID: "acme/app", SourceRoot: "secrets", Prefix: "app"}

// ours are the classification rules of testScope with no metadata managed.
var ours = plan.Rules{ScopeDigest: testScope.Digest()}

func want(name, path, value string) *model.Secret {
	return &model.Secret{Name: name, Value: []byte(value), SourceDigest: model.SourceDigest(path), Path: path, Ordinal: 1}
}

// owned returns an active owned secret whose one current version holds a
// string value (already read).
func owned(name, path, value string) plan.ObservedSecret {
	return plan.ObservedSecret{
		Exists: true, ARN: "arn:aws:secretsmanager:us-east-1:1:secret:" + name + "-AbCdEf", Name: name,
		Tags:     testScope.Tags(path),
		Versions: []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT"}}},
		Current:  &plan.CurrentValue{VersionID: "v1", HasString: true, String: []byte(value)},
	}
}

func TestClassify_DecisionRows(t *testing.T) {
	d := testScope.Digest()
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	mod := func(o plan.ObservedSecret, f func(*plan.ObservedSecret)) plan.ObservedSecret {
		if o.Current != nil {
			c := *o.Current
			o.Current = &c
		}
		f(&o)
		return o
	}
	base := owned("app/db", "secrets/db.sops.json", `{"a":1}`)
	cases := []struct {
		name   string
		want   *model.Secret
		obs    plan.ObservedSecret
		action vocab.Action
		reason vocab.Reason
		class  vocab.ConflictClass
	}{
		{"desired absent → create", w, plan.ObservedSecret{}, vocab.ActionCreate, vocab.ReasonAbsent, ""},
		{"desired equal → unchanged", w, base, vocab.ActionUnchanged, vocab.ReasonValueEqual, ""},
		{"desired differs → update", w, mod(base, func(o *plan.ObservedSecret) { o.Current.String = []byte(`{"a":2}`) }), vocab.ActionUpdate, vocab.ReasonValueDiffers, ""},
		{"desired binary → update", w, mod(base, func(o *plan.ObservedSecret) {
			o.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte(`{"a":1}`)}
		}), vocab.ActionUpdate, vocab.ReasonStoredValueBinary, ""},
		{"desired no AWSCURRENT → update", w, mod(base, func(o *plan.ObservedSecret) {
			o.Versions = []plan.Version{{ID: "v0", Stages: []string{"AWSPREVIOUS"}}}
			o.Current = nil
		}), vocab.ActionUpdate, vocab.ReasonNoCurrentVersion, ""},
		{"desired read found none → update", w, mod(base, func(o *plan.ObservedSecret) { o.Current = &plan.CurrentValue{Missing: true} }), vocab.ActionUpdate, vocab.ReasonNoCurrentVersion, ""},
		{"desired scheduled → restore", w, mod(base, func(o *plan.ObservedSecret) { o.Deleted = true; o.Current = nil }), vocab.ActionRestore, vocab.ReasonScheduledForDeletion, ""},
		{"not desired active → schedule-delete", nil, mod(base, func(o *plan.ObservedSecret) { o.Current = nil }), vocab.ActionScheduleDelete, vocab.ReasonNotDesired, ""},
		{"not desired scheduled → unchanged", nil, mod(base, func(o *plan.ObservedSecret) { o.Deleted = true; o.Current = nil }), vocab.ActionUnchanged, vocab.ReasonScheduledForDeletion, ""},
		{"not desired absent → none", nil, plan.ObservedSecret{}, vocab.ActionNone, "", ""},
		{"not desired foreign → none", nil, mod(base, func(o *plan.ObservedSecret) { o.Tags = map[string]string{} }), vocab.ActionNone, "", ""},

		{"ownership: no tags", w, mod(base, func(o *plan.ObservedSecret) { o.Tags = nil }), vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"ownership: other scope", w, mod(base, func(o *plan.ObservedSecret) {
			o.Tags = model.Scope{RepositoryID: "acme/other", SourceRoot: "secrets", Prefix: "app"}.Tags("secrets/db.sops.json")
		}), vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"ownership: managed-by differs", w, mod(base, func(o *plan.ObservedSecret) {
			o.Tags = map[string]string{model.TagManagedBy: "someone", model.TagScope: d, model.TagSource: w.SourceDigest}
		}), vocab.ActionConflict, vocab.ConflictOwnership.Reason(), vocab.ConflictOwnership},
		{"source: another document's", w, mod(base, func(o *plan.ObservedSecret) { o.Tags = testScope.Tags("secrets/other.sops.json") }), vocab.ActionConflict, vocab.ConflictSource.Reason(), vocab.ConflictSource},
		{"source-tag: not a digest", w, mod(base, func(o *plan.ObservedSecret) {
			o.Tags = map[string]string{model.TagManagedBy: model.ManagedByValue, model.TagScope: d, model.TagSource: "NOT-HEX"}
		}), vocab.ActionConflict, vocab.ConflictSourceTag.Reason(), vocab.ConflictSourceTag},
		{"source-tag: missing, not desired", nil, mod(base, func(o *plan.ObservedSecret) {
			o.Tags = map[string]string{model.TagManagedBy: model.ManagedByValue, model.TagScope: d}
		}), vocab.ActionConflict, vocab.ConflictSourceTag.Reason(), vocab.ConflictSourceTag},
		{"service-owned", w, mod(base, func(o *plan.ObservedSecret) { o.OwningService = "rds" }), vocab.ActionConflict, vocab.ConflictServiceOwned.Reason(), vocab.ConflictServiceOwned},
		{"rotation: enabled", w, mod(base, func(o *plan.ObservedSecret) { o.RotationEnabled = true }), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation},
		{"rotation: AWSPENDING, not desired", nil, mod(base, func(o *plan.ObservedSecret) {
			o.Versions = []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT"}}, {ID: "v2", Stages: []string{"AWSPENDING"}}}
		}), vocab.ActionConflict, vocab.ConflictRotation.Reason(), vocab.ConflictRotation},
		{"replication", w, mod(base, func(o *plan.ObservedSecret) { o.ReplicaRegions = []string{"eu-west-1"} }), vocab.ActionConflict, vocab.ConflictReplication.Reason(), vocab.ConflictReplication},
		{"staging: two AWSCURRENT", w, mod(base, func(o *plan.ObservedSecret) {
			o.Versions = []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT"}}, {ID: "v2", Stages: []string{"AWSCURRENT"}}}
		}), vocab.ActionConflict, vocab.ConflictStaging.Reason(), vocab.ConflictStaging},
		{"staging: fetched version disagrees", w, mod(base, func(o *plan.ObservedSecret) { o.Current.VersionID = "v9" }), vocab.ActionConflict, vocab.ConflictStaging.Reason(), vocab.ConflictStaging},
		{"staging: read flagged mismatch", w, mod(base, func(o *plan.ObservedSecret) { o.Current.StageMismatch = true }), vocab.ActionConflict, vocab.ConflictStaging.Reason(), vocab.ConflictStaging},
		{"payload: both", w, mod(base, func(o *plan.ObservedSecret) { o.Current.HasBinary = true; o.Current.Binary = []byte{1} }), vocab.ActionConflict, vocab.ConflictPayload.Reason(), vocab.ConflictPayload},
		{"payload: neither", w, mod(base, func(o *plan.ObservedSecret) { o.Current = &plan.CurrentValue{VersionID: "v1"} }), vocab.ActionConflict, vocab.ConflictPayload.Reason(), vocab.ConflictPayload},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := plan.Classify(plan.Rules{ScopeDigest: d}, tc.want, tc.obs)
			if got.Action != tc.action || got.Reason != tc.reason || got.Conflict != tc.class {
				t.Fatalf("Classify = %+v, want {%s %s %s}", got, tc.action, tc.reason, tc.class)
			}
		})
	}
}

func TestNeedsValue_OnlyOwnedActiveConflictFreeDesired(t *testing.T) {
	d := testScope.Digest()
	w := want("app/db", "secrets/db.sops.json", `{}`)
	o := owned("app/db", "secrets/db.sops.json", `{}`)
	if !plan.NeedsValue(plan.Rules{ScopeDigest: d}, w, o) {
		t.Fatal("owned active desired must need a value")
	}
	del := o
	del.Deleted = true
	rot := o
	rot.RotationEnabled = true
	for name, c := range map[string]struct {
		w *model.Secret
		o plan.ObservedSecret
	}{"not desired": {nil, o}, "deleted": {w, del}, "rotation": {w, rot}, "absent": {w, plan.ObservedSecret{}}} {
		if plan.NeedsValue(plan.Rules{ScopeDigest: d}, c.w, c.o) {
			t.Errorf("%s: must not need a value", name)
		}
	}
}

func TestBuild_EmptyScopeGate(t *testing.T) {
	st := model.State{Scope: testScope}
	obs := map[string]plan.ObservedSecret{"app/a": owned("app/a", "secrets/a.sops.json", `{}`)}
	p := plan.Build(st, obs, plan.Policy{Rules: ours})
	if !p.EmptyScopeGate || p.Counts().ScheduleDelete != 1 {
		t.Fatalf("gate must block deleting the whole scope: %+v", p)
	}
	if p := plan.Build(st, obs, plan.Policy{Rules: ours, AllowEmpty: true}); p.EmptyScopeGate {
		t.Fatal("--allow-empty must lift the gate")
	}
	st.Secrets = []model.Secret{*want("app/b", "secrets/b.sops.json", `{}`)}
	if p := plan.Build(st, obs, plan.Policy{Rules: ours}); p.EmptyScopeGate {
		t.Fatal("gate applies only to an empty desired set")
	}
	if p := plan.Build(model.State{Scope: testScope}, nil, plan.Policy{Rules: ours}); p.EmptyScopeGate || len(p.Ops) != 0 {
		t.Fatal("empty desired and empty scope is a converged no-op")
	}
}

func TestBuild_ConflictEmptiesOps(t *testing.T) {
	st := model.State{Scope: testScope, Secrets: []model.Secret{*want("app/a", "secrets/a.sops.json", `{}`), *want("app/b", "secrets/b.sops.json", `{}`)}}
	foreign := owned("app/b", "secrets/b.sops.json", `{}`)
	foreign.Tags = nil
	p := plan.Build(st, map[string]plan.ObservedSecret{"app/b": foreign}, plan.Policy{Rules: ours})
	if len(p.Ops) != 0 || len(p.Conflicts) != 1 || p.Conflicts[0].Class != vocab.ConflictOwnership {
		t.Fatalf("plan = %+v", p)
	}
	if c := p.Counts(); c.Conflicts != 1 || c.Operations() != 0 {
		t.Fatalf("counts = %+v", c)
	}
}

func TestFingerprint_ChangesWithValueVersionAndDecision(t *testing.T) {
	d := testScope.Digest()
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	a := owned("app/db", "secrets/db.sops.json", `{"a":2}`)
	fa := plan.FingerprintOf("app/db", a, plan.Classify(plan.Rules{ScopeDigest: d}, w, a))
	b := owned("app/db", "secrets/db.sops.json", `{"a":3}`)
	if fb := plan.FingerprintOf("app/db", b, plan.Classify(plan.Rules{ScopeDigest: d}, w, b)); fb.Equal(fa) {
		t.Fatal("a different value must change the fingerprint")
	}
	c := owned("app/db", "secrets/db.sops.json", `{"a":2}`)
	c.Versions = []plan.Version{{ID: "v2", Stages: []string{"AWSCURRENT"}}}
	c.Current.VersionID = "v2"
	if fc := plan.FingerprintOf("app/db", c, plan.Classify(plan.Rules{ScopeDigest: d}, w, c)); fc.Equal(fa) {
		t.Fatal("a new current version must change the fingerprint")
	}
	same := owned("app/db", "secrets/db.sops.json", `{"a":2}`)
	if fs := plan.FingerprintOf("app/db", same, plan.Classify(plan.Rules{ScopeDigest: d}, w, same)); !fs.Equal(fa) {
		t.Fatal("an identical observation must give an identical fingerprint")
	}
}

// TestClassify_WholeValueRows: whole values (.sops.txt, .sops.bin) are
// compared byte for byte in the payload field their kind stores to; a
// change of payload kind is an update (SPEC §3.1); both or neither field is
// still the payload conflict.
func TestClassify_WholeValueRows(t *testing.T) {
	pem := "-----BEGIN CERTIFICATE-----\r\nMIIB\r\n-----END CERTIFICATE-----\r\n"
	text := want("app/tls", "secrets/tls.sops.txt", pem)
	text.Kind = model.KindText
	bin := want("app/tls", "secrets/tls.sops.bin", "\x00\xfe\xed\xfe keystore")
	bin.Kind = model.KindBinary
	str := func(v string) plan.ObservedSecret { return owned("app/tls", "secrets/tls.sops.json", v) }
	binary := func(v string) plan.ObservedSecret {
		o := str("")
		o.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte(v)}
		return o
	}
	cases := []struct {
		name   string
		want   *model.Secret
		obs    plan.ObservedSecret
		action vocab.Action
		reason vocab.Reason
	}{
		{"text equal", text, str(pem), vocab.ActionUnchanged, vocab.ReasonValueEqual},
		{"text: a trailing newline more differs", text, str(pem + "\n"), vocab.ActionUpdate, vocab.ReasonValueDiffers},
		{"text: LF instead of CRLF differs", text, str(strings.ReplaceAll(pem, "\r\n", "\n")), vocab.ActionUpdate, vocab.ReasonValueDiffers},
		{"text over the same bytes as binary", text, binary(pem), vocab.ActionUpdate, vocab.ReasonStoredValueBinary},
		{"binary equal", bin, binary(string(bin.Value)), vocab.ActionUnchanged, vocab.ReasonValueEqual},
		{"binary differs", bin, binary(string(bin.Value) + "\x00"), vocab.ActionUpdate, vocab.ReasonValueDiffers},
		{"binary over the same bytes as a string", bin, str(string(bin.Value)), vocab.ActionUpdate, vocab.ReasonStoredValueString},
		{"binary absent", bin, plan.ObservedSecret{}, vocab.ActionCreate, vocab.ReasonAbsent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := plan.Classify(plan.Rules{ScopeDigest: testScope.Digest()}, c.want, c.obs)
			if got.Action != c.action || got.Reason != c.reason {
				t.Fatalf("got %s/%s, want %s/%s", got.Action, got.Reason, c.action, c.reason)
			}
			if !got.Action.IsOperation() {
				return
			}
			k := plan.KeysOf(vocab.Action(got.Action), c.want, c.obs)
			if k == nil || k.Unavailable != vocab.KeysWholeValue || len(k.Added)+len(k.Removed)+len(k.Changed) != 0 {
				t.Fatalf("a whole value has no key-level summary: %+v", k)
			}
		})
	}
	both := binary("x")
	both.Current.HasString = true
	if got := plan.Classify(plan.Rules{ScopeDigest: testScope.Digest()}, bin, both); got.Conflict != vocab.ConflictPayload {
		t.Fatalf("both payloads: got %+v, want the payload conflict", got)
	}
}
