package plan_test

import (
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// replicaRules manage two replicas (SPEC §12) for a scope in us-east-1.
func replicaRules() plan.Rules {
	return plan.Rules{ScopeDigest: testScope.Digest(), Region: "us-east-1",
		Replicas: []model.Replica{{Region: "eu-west-1"}, {Region: "us-west-2", KMSKeyID: "alias/dr"}}}
}

func withReplicas(o plan.ObservedSecret, primary string, regions ...string) plan.ObservedSecret {
	o.PrimaryRegion = primary
	o.ReplicaRegions = regions
	o.Replicas = nil
	for _, r := range regions {
		o.Replicas = append(o.Replicas, plan.ObservedReplica{Region: r, Status: model.ReplicaInSync})
	}
	return o
}

func regionsOf(rs []model.Replica) []string { return model.ReplicaRegionsOf(rs) }

// TestClassify_ReplicaRows is the decision table of replica-regions
// (SPEC §12, docs/reconciliation.md "Replica Regions").
func TestClassify_ReplicaRows(t *testing.T) {
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	base := owned("app/db", "secrets/db.sops.json", `{"a":1}`)
	deleted := base
	deleted.Deleted, deleted.Current = true, nil
	notDesired := base
	notDesired.Current = nil
	foreign := withReplicas(base, "eu-central-1")
	foreign.Tags = map[string]string{}
	clash := plan.ObservedSecret{Clashes: []string{"us-west-2"}}
	partial := withReplicas(base, "us-east-1", "eu-west-1")
	partial.Clashes = []string{"us-west-2"}
	differs := withReplicas(base, "us-east-1", "eu-west-1")
	differs.Current = &plan.CurrentValue{VersionID: "v1", HasString: true, String: []byte(`{"a":2}`)}

	cases := []struct {
		name         string
		rules        plan.Rules
		want         *model.Secret
		obs          plan.ObservedSecret
		action       vocab.Action
		reason       vocab.Reason
		add, removed []string
	}{
		{"no setting: a replica is conflict replication", plan.Rules{ScopeDigest: testScope.Digest(), Region: "us-east-1"}, w,
			withReplicas(base, "us-east-1", "eu-west-1"), vocab.ActionConflict, vocab.ConflictReplication.Reason(), nil, nil},
		{"absent → create with every replica", replicaRules(), w, plan.ObservedSecret{}, vocab.ActionCreate, vocab.ReasonAbsent, []string{"eu-west-1", "us-west-2"}, nil},
		{"absent, a target Region holds the name → replica-clash", replicaRules(), w, clash, vocab.ActionConflict, vocab.ConflictReplicaClash.Reason(), nil, nil},
		{"every replica there → unchanged", replicaRules(), w, withReplicas(base, "us-east-1", "eu-west-1", "us-west-2"), vocab.ActionUnchanged, vocab.ReasonValueEqual, nil, nil},
		{"one missing → update replicas", replicaRules(), w, withReplicas(base, "us-east-1", "eu-west-1"), vocab.ActionUpdate, vocab.ReasonReplicas, []string{"us-west-2"}, nil},
		{"none yet → update replicas", replicaRules(), w, base, vocab.ActionUpdate, vocab.ReasonReplicas, []string{"eu-west-1", "us-west-2"}, nil},
		{"missing one clashes → replica-clash", replicaRules(), w, partial, vocab.ActionConflict, vocab.ConflictReplicaClash.Reason(), nil, nil},
		{"a dropped Region → update removing it", replicaRules(), w, withReplicas(base, "us-east-1", "ap-south-1", "eu-west-1", "us-west-2"), vocab.ActionUpdate, vocab.ReasonReplicas, nil, []string{"ap-south-1"}},
		{"value differs and a replica missing → update value-differs carrying it", replicaRules(), w, differs, vocab.ActionUpdate, vocab.ReasonValueDiffers, []string{"us-west-2"}, nil},
		{"not desired with replicas → schedule-delete removing them first", replicaRules(), nil, withReplicas(notDesired, "us-east-1", "eu-west-1"), vocab.ActionScheduleDelete, vocab.ReasonNotDesired, nil, []string{"eu-west-1"}},
		{"scheduled for deletion → restore (replicas after it)", replicaRules(), w, deleted, vocab.ActionRestore, vocab.ReasonScheduledForDeletion, nil, nil},
		{"replica of this scope's secret in another Region, desired → unchanged replica", replicaRules(), w, withReplicas(base, "eu-central-1"), vocab.ActionUnchanged, vocab.ReasonReplica, nil, nil},
		{"replica of another Region, not desired → none", replicaRules(), nil, withReplicas(notDesired, "eu-central-1"), vocab.ActionNone, "", nil, nil},
		{"replica of another Region, not desired, setting absent → none", plan.Rules{ScopeDigest: testScope.Digest(), Region: "us-east-1"}, nil, withReplicas(notDesired, "eu-central-1"), vocab.ActionNone, "", nil, nil},
		{"foreign replica holding a desired name → ownership", replicaRules(), w, foreign, vocab.ActionConflict, vocab.ConflictOwnership.Reason(), nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plan.Classify(tc.rules, tc.want, tc.obs)
			if d.Action != tc.action || d.Reason != tc.reason {
				t.Fatalf("Classify = %s %s, want %s %s", d.Action, d.Reason, tc.action, tc.reason)
			}
			if got := regionsOf(d.Replicas.Add); !slices.Equal(got, tc.add) {
				t.Errorf("adds %v, want %v", got, tc.add)
			}
			if !slices.Equal(d.Replicas.Remove, tc.removed) {
				t.Errorf("removes %v, want %v", d.Replicas.Remove, tc.removed)
			}
		})
	}
}

// TestBuild_ReplicaRemovalsCountAsDeletions: --max-deletions bounds
// schedule-deletes and replica removals together (SPEC §12).
func TestBuild_ReplicaRemovalsCountAsDeletions(t *testing.T) {
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	st := model.State{Scope: testScope, Secrets: []model.Secret{*w}}
	obs := map[string]plan.ObservedSecret{
		"app/db":  withReplicas(owned("app/db", "secrets/db.sops.json", `{"a":1}`), "us-east-1", "ap-south-1", "eu-west-1", "us-west-2"),
		"app/old": withReplicas(owned("app/old", "secrets/old.sops.json", ""), "us-east-1", "eu-west-1"),
	}
	for _, tc := range []struct {
		limit int
		gated bool
	}{{0, true}, {2, true}, {3, false}} {
		limit := tc.limit
		p := plan.Build(st, obs, plan.Policy{Rules: replicaRules(), MaxDeletions: &limit})
		if p.Deletions() != 3 {
			t.Fatalf("Deletions = %d, want 3 (one removal, one schedule-delete with one removal)", p.Deletions())
		}
		if p.DeletionLimitGate != tc.gated {
			t.Errorf("max-deletions %d: gated %v, want %v", limit, p.DeletionLimitGate, tc.gated)
		}
	}
}

// TestBuild_ReplicaWaits: configured replicas that are not InSync are
// listed for verification; InSync ones and unconfigured ones are not.
func TestBuild_ReplicaWaits(t *testing.T) {
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	st := model.State{Scope: testScope, Secrets: []model.Secret{*w}}
	o := withReplicas(owned("app/db", "secrets/db.sops.json", `{"a":1}`), "us-east-1", "eu-west-1", "us-west-2")
	o.Replicas[0].Status = model.ReplicaFailed
	o.Replicas[1].Status = model.ReplicaInProgress
	p := plan.Build(st, map[string]plan.ObservedSecret{"app/db": o}, plan.Policy{Rules: replicaRules()})
	if len(p.Ops) != 0 {
		t.Fatalf("ops %v, want none", p.Ops)
	}
	want := []plan.ReplicaWait{{Name: "app/db", Region: "eu-west-1", Status: model.ReplicaFailed}, {Name: "app/db", Region: "us-west-2", Status: model.ReplicaInProgress}}
	if !slices.Equal(p.Waiting, want) {
		t.Fatalf("Waiting = %v, want %v", p.Waiting, want)
	}
}

// TestReplicaTargets: the Regions the observer must look in before the
// plan may add a replica there.
func TestReplicaTargets(t *testing.T) {
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	base := owned("app/db", "secrets/db.sops.json", `{"a":1}`)
	if got := plan.ReplicaTargets(replicaRules(), w, plan.ObservedSecret{}); !slices.Equal(got, []string{"eu-west-1", "us-west-2"}) {
		t.Errorf("absent: %v", got)
	}
	if got := plan.ReplicaTargets(replicaRules(), w, withReplicas(base, "us-east-1", "eu-west-1")); !slices.Equal(got, []string{"us-west-2"}) {
		t.Errorf("one missing: %v", got)
	}
	if got := plan.ReplicaTargets(replicaRules(), w, withReplicas(base, "us-east-1", "eu-west-1", "us-west-2")); got != nil {
		t.Errorf("all there: %v", got)
	}
	if got := plan.ReplicaTargets(plan.Rules{ScopeDigest: testScope.Digest()}, w, plan.ObservedSecret{}); got != nil {
		t.Errorf("not managed: %v", got)
	}
	if got := plan.ReplicaTargets(replicaRules(), nil, plan.ObservedSecret{}); got != nil {
		t.Errorf("not desired: %v", got)
	}
}

// TestBuild_NoReplicaWaitForASecretBeingDeleted: Waiting lists only the
// replicas of desired secrets (plan.Plan.Waiting); an owned secret no
// document maps to is scheduled for deletion with its replicas removed,
// so a failed or in-progress replica of it is not waited for.
func TestBuild_NoReplicaWaitForASecretBeingDeleted(t *testing.T) {
	w := want("app/db", "secrets/db.sops.json", `{"a":1}`)
	st := model.State{Scope: testScope, Secrets: []model.Secret{*w}}
	db := withReplicas(owned("app/db", "secrets/db.sops.json", `{"a":1}`), "us-east-1", "eu-west-1", "us-west-2")
	old := withReplicas(owned("app/old", "secrets/old.sops.json", ""), "us-east-1", "eu-west-1", "us-west-2")
	old.Replicas[0].Status = model.ReplicaFailed
	old.Replicas[1].Status = model.ReplicaInProgress
	p := plan.Build(st, map[string]plan.ObservedSecret{"app/db": db, "app/old": old}, plan.Policy{Rules: replicaRules()})
	if len(p.Ops) != 1 || p.Ops[0].Name != "app/old" || p.Ops[0].Action != vocab.ActionScheduleDelete {
		t.Fatalf("ops %v, want one schedule-delete of app/old", p.Ops)
	}
	if len(p.Waiting) != 0 {
		t.Fatalf("Waiting = %v, want none (app/old is being deleted, app/db's replicas are in sync)", p.Waiting)
	}
}
