package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// currentVersion returns the id of the AWSCURRENT version of s ("" if none).
func currentVersion(s emulator.SecretDump) string {
	for _, v := range s.Versions {
		if slices.Contains(v.Stages, plan.StageCurrent) {
			return v.VersionID
		}
	}
	return ""
}

// TestChanges_EachOperationThatTookEffect: a sync's Result lists every
// operation that took effect with the secret's ARN and the version it
// wrote (the AWSCURRENT version AWS now shows), ordered by name then
// phase; a restore and its follow-up update are two changes; plan mode
// and a converged re-run list none. The state digest is set only for a
// converged sync, equal across runs that change nothing, and different
// once a value changes.
func TestChanges_EachOperationThatTookEffect(t *testing.T) {
	e := newEnv(t)
	e.seedOwned(t, "equal", `{"v":1}`)
	e.seedOwned(t, "differs", `{"v":"old"}`)
	e.del(t, e.seedOwned(t, "restored", `{"v":"before"}`))
	goneARN := e.seedOwned(t, "gone", `{"v":1}`)
	st := state(doc{"new", `{"v":1}`}, doc{"equal", `{"v":1}`}, doc{"differs", `{"v":1}`}, doc{"restored", `{"v":1}`})

	planned := e.plan(t, 1, st)
	if planned.Changes != nil || planned.StateDigest != "" {
		t.Fatalf("plan mode must list no change and no digest: %+v %q", planned.Changes, planned.StateDigest)
	}

	res := e.sync(t, 4, st)
	wantResult(t, res, vocab.StatusConverged, vocab.VerificationConverged,
		vocab.Counts{Create: 1, Update: 2, Restore: 1, ScheduleDelete: 1, Unchanged: 1})
	want := []engine.Change{
		{Action: vocab.ActionUpdate, Name: nameOf("differs"), ARN: e.secret(t, nameOf("differs")).ARN, VersionID: currentVersion(e.secret(t, nameOf("differs")))},
		{Action: vocab.ActionScheduleDelete, Name: nameOf("gone"), ARN: goneARN},
		{Action: vocab.ActionCreate, Name: nameOf("new"), ARN: e.secret(t, nameOf("new")).ARN, VersionID: currentVersion(e.secret(t, nameOf("new")))},
		{Action: vocab.ActionRestore, Name: nameOf("restored"), ARN: e.secret(t, nameOf("restored")).ARN},
		{Action: vocab.ActionUpdate, Name: nameOf("restored"), ARN: e.secret(t, nameOf("restored")).ARN, VersionID: currentVersion(e.secret(t, nameOf("restored")))},
	}
	if !slices.Equal(res.Changes, want) {
		t.Fatalf("changes:\n got %+v\nwant %+v", res.Changes, want)
	}
	for _, c := range res.Changes {
		if c.ARN == "" || (c.Action == vocab.ActionCreate || c.Action == vocab.ActionUpdate) && c.VersionID == "" {
			t.Fatalf("change %+v lacks its ARN or version", c)
		}
	}
	if !strings.HasPrefix(res.StateDigest, changes.DigestPrefix) || len(res.StateDigest) != len(changes.DigestPrefix)+64 {
		t.Fatalf("state digest %q is not sha256:<64 hex>", res.StateDigest)
	}

	again := e.sync(t, 4, st)
	if again.Changes != nil {
		t.Fatalf("a converged re-run changed %+v", again.Changes)
	}
	if again.StateDigest != res.StateDigest {
		t.Fatalf("nothing changed but the digest did: %q → %q", res.StateDigest, again.StateDigest)
	}

	st2 := state(doc{"new", `{"v":2}`}, doc{"equal", `{"v":1}`}, doc{"differs", `{"v":1}`}, doc{"restored", `{"v":1}`})
	third := e.sync(t, 4, st2)
	if len(third.Changes) != 1 || third.Changes[0].Name != nameOf("new") || third.StateDigest == res.StateDigest || third.StateDigest == "" {
		t.Fatalf("a new value must be one change and a new digest: %+v %q", third.Changes, third.StateDigest)
	}
}

// TestStateDigestOf_IsValueFree: the digest depends on names, ARNs and
// version ids only: two states that differ only in their values digest
// alike, a new version id does not.
func TestStateDigestOf_IsValueFree(t *testing.T) {
	a := state(doc{"x", `{"v":1}`})
	b := state(doc{"x", `{"v":"another value"}`})
	obs := map[string]plan.ObservedSecret{nameOf("x"): {Exists: true, ARN: "arn:aws:secretsmanager:eu-west-1:111111111111:secret:app/x-AbCdEf",
		Name: nameOf("x"), Versions: []plan.Version{{ID: "v1", Stages: []string{plan.StageCurrent}}}}}
	if engine.StateDigestOf(a, obs) != engine.StateDigestOf(b, obs) {
		t.Fatal("the digest must not depend on values")
	}
	moved := map[string]plan.ObservedSecret{nameOf("x"): obs[nameOf("x")]}
	o := moved[nameOf("x")]
	o.Versions = []plan.Version{{ID: "v2", Stages: []string{plan.StageCurrent}}}
	moved[nameOf("x")] = o
	if engine.StateDigestOf(a, obs) == engine.StateDigestOf(a, moved) {
		t.Fatal("a new version id must change the digest")
	}
}
