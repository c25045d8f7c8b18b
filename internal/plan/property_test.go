package plan_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// world is an in-memory model of one account's secrets, keyed by name; it
// is what the planner would observe directly.
type world map[string]plan.ObservedSecret

var values = []string{`{"a":1}`, `{"a":2}`, `{"b":"x"}`}

// genRules draws the classification rules: replicas managed or not
// (replica-regions, SPEC §12).
func genRules(t *rapid.T) plan.Rules {
	r := plan.Rules{ScopeDigest: testScope.Digest(), Region: "us-east-1"}
	for _, region := range []string{"eu-west-1", "us-west-2"} {
		if rapid.Bool().Draw(t, "replica-"+region) {
			r.Replicas = append(r.Replicas, model.Replica{Region: region})
		}
	}
	return r
}

// genScenario draws a desired state, a world and the rules to plan with:
// rules[0] (or ours) plus an adopt list (SPEC §11). A hand-made secret (no
// tags) of a desired name is drawn listed in adopt when conflicts are not
// allowed; with conflicts it may be unlisted (an ownership conflict).
// Owned desired names are listed now and then too (the entry is then a
// no-op).
func genScenario(t *rapid.T, allowConflicts bool, rules ...plan.Rules) (model.State, world, plan.Rules) {
	r := plan.Rules{ScopeDigest: testScope.Digest(), Region: "us-east-1"}
	if len(rules) > 0 {
		r = rules[0]
	}
	var adopt []string
	names := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"app/a", "app/b", "app/c-config", "app/d", "app/e", "app/f"}), 0, 6, rapid.ID[string]).Draw(t, "names")
	slices.Sort(names)
	st := model.State{Scope: testScope}
	w := world{}
	for i, name := range names {
		path := "secrets/" + name[len("app/"):] + ".sops.json"
		isDesired := rapid.Bool().Draw(t, "desired-"+name)
		if isDesired {
			// The value kind (SPEC §3.1): the same bytes as JSON, whole text
			// or whole binary, so that equal bytes in the other payload
			// field are drawn too.
			vk := rapid.SampledFrom([]model.ValueKind{model.KindJSON, model.KindText, model.KindBinary}).Draw(t, "value-kind-"+name)
			st.Secrets = append(st.Secrets, model.Secret{Name: name, Value: []byte(rapid.SampledFrom(values).Draw(t, "value-"+name)), Kind: vk, SourceDigest: model.SourceDigest(path), Path: path, Ordinal: i + 1})
		}
		listed := isDesired && rapid.Bool().Draw(t, "adopt-"+name)
		if listed {
			adopt = append(adopt, name)
		}
		kinds := []string{"absent", "string", "binary", "no-current", "deleted"}
		if listed || allowConflicts {
			kinds = append(kinds, "hand-made", "hand-made-binary")
		}
		if allowConflicts {
			kinds = append(kinds, "hand-made-deleted", "hand-made-replicated")
		}
		if allowConflicts {
			kinds = append(kinds, "foreign", "rotation", "staging", "replication", "wrong-source")
		}
		if len(rules) > 0 && len(rules[0].Replicas) > 0 {
			kinds = append(kinds, "replicated", "replica-elsewhere")
		}
		kind := rapid.SampledFrom(kinds).Draw(t, "kind-"+name)
		if kind == "absent" {
			continue
		}
		o := owned(name, path, rapid.SampledFrom(values).Draw(t, "stored-"+name))
		switch kind {
		case "hand-made", "hand-made-binary", "hand-made-deleted", "hand-made-replicated":
			o.Tags = map[string]string{"team": "other"}
			if kind == "hand-made-binary" {
				o.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte(rapid.SampledFrom(append(values, "\x00\x01")).Draw(t, "stored-binary-"+name))}
			}
			o.Deleted = kind == "hand-made-deleted"
			if kind == "hand-made-replicated" {
				o = withReplicas(o, "us-east-1", "eu-west-1")
			}
		}
		switch kind {
		case "binary":
			o.Current = &plan.CurrentValue{VersionID: "v1", HasBinary: true, Binary: []byte(rapid.SampledFrom(append(values, "\x00\x01")).Draw(t, "stored-binary-"+name))}
		case "no-current":
			o.Versions = []plan.Version{}
			o.Current = nil
		case "deleted":
			o.Deleted = true
		case "foreign":
			o.Tags = map[string]string{"team": "other"}
		case "rotation":
			o.RotationEnabled = true
		case "staging":
			o.Versions = []plan.Version{{ID: "v1", Stages: []string{"AWSCURRENT"}}, {ID: "v2", Stages: []string{"AWSCURRENT"}}}
		case "replication":
			o.ReplicaRegions = []string{"eu-west-1"}
		case "wrong-source":
			o.Tags = testScope.Tags("secrets/elsewhere.sops.json")
		case "replicated":
			regions := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"ap-south-1", "eu-west-1", "us-west-2"}), 1, 3, rapid.ID[string]).Draw(t, "replicas-"+name)
			slices.Sort(regions)
			o = withReplicas(o, "us-east-1", regions...)
		case "replica-elsewhere":
			// This scope's secret replicated here from another Region: it
			// is written only through its primary, so the model keeps it.
			o = withReplicas(o, "eu-central-1")
			o.Tags = testScope.Tags(path)
		}
		w[name] = o
	}
	r.Adopt = plan.AdoptSet(adopt)
	return st, w, r
}

// observe is what a reconciler's observation returns: values only where
// the planner needs them (SPEC §4).
func observe(st model.State, w world, rules ...plan.Rules) map[string]plan.ObservedSecret {
	r := plan.Rules{ScopeDigest: st.Scope.Digest(), Region: "us-east-1"}
	if len(rules) > 0 {
		r = rules[0]
	}
	byName := map[string]*model.Secret{}
	for i := range st.Secrets {
		byName[st.Secrets[i].Name] = &st.Secrets[i]
	}
	out := map[string]plan.ObservedSecret{}
	for name, o := range w {
		if !plan.NeedsValue(r, byName[name], o) {
			o.Current = nil
		}
		out[name] = o
	}
	return out
}

// apply executes a plan's operations on the model the way AWS would.
func apply(w world, st model.State, ops []plan.Operation, version *int) {
	for _, op := range ops {
		*version++
		vid := fmt.Sprintf("w%d", *version)
		o := w[op.Name]
		if o.PrimaryRegion != "" && o.PrimaryRegion != "us-east-1" {
			panic("a plan wrote to a replica of another Region's secret: " + op.Name)
		}
		switch op.Action {
		case vocab.ActionAdopt:
			// TagResource adds the ownership tags to the ones there; the
			// value is written only when it differs.
			tags := maps.Clone(o.Tags)
			maps.Copy(tags, st.Scope.Tags(op.Desired.Path))
			o.Tags = tags
			if op.Reason != vocab.ReasonValueEqual {
				o.Versions = []plan.Version{{ID: vid, Stages: []string{"AWSCURRENT"}}}
				o.Current = written(vid, op.Desired)
			}
		case vocab.ActionCreate:
			o = plan.ObservedSecret{Exists: true, Name: op.Name, ARN: "arn:new:" + op.Name, Tags: st.Scope.Tags(op.Desired.Path)}
			fallthrough
		case vocab.ActionUpdate:
			if op.Reason != vocab.ReasonReplicas {
				o.Versions = []plan.Version{{ID: vid, Stages: []string{"AWSCURRENT"}}}
				o.Current = written(vid, op.Desired)
			}
		case vocab.ActionRestore:
			o.Deleted = false
		case vocab.ActionScheduleDelete:
			o.Deleted = true
		}
		// Replicas: removed at once, added InSync (the model has no lag).
		var regions []string
		for _, r := range o.ReplicaRegions {
			if !slices.Contains(op.Replicas.Remove, r) {
				regions = append(regions, r)
			}
		}
		for _, r := range op.Replicas.Add {
			regions = append(regions, r.Region)
		}
		slices.Sort(regions)
		primary := ""
		if len(regions) > 0 {
			primary = "us-east-1"
		}
		o = withReplicas(o, primary, regions...)
		if op.Action == vocab.ActionScheduleDelete && len(regions) > 0 {
			panic("a schedule-delete left replicas: AWS refuses it")
		}
		w[op.Name] = o
	}
}

// written is the value a create or update of want leaves as version vid:
// in SecretBinary for a binary document, else in SecretString (awssm's
// payload).
func written(vid string, want *model.Secret) *plan.CurrentValue {
	if want.Kind.Binary() {
		return &plan.CurrentValue{VersionID: vid, HasBinary: true, Binary: want.Value}
	}
	return &plan.CurrentValue{VersionID: vid, HasString: true, String: want.Value}
}

func TestProperty_OrderDeterminismAndCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		st, w, ours := genScenario(t, true)
		obs := observe(st, w, ours)
		p := plan.Build(st, obs, plan.Policy{Rules: ours, AllowEmpty: rapid.Bool().Draw(t, "allowEmpty")})
		for i := 1; i < len(p.Ops); i++ {
			a, b := p.Ops[i-1], p.Ops[i]
			if slices.Index(vocab.Phases, a.Action) > slices.Index(vocab.Phases, b.Action) || (a.Action == b.Action && a.Name >= b.Name) {
				t.Fatalf("ops out of order: %s %s before %s %s", a.Action, a.Name, b.Action, b.Name)
			}
		}
		for _, op := range p.Ops {
			if !op.Action.IsOperation() || !slices.Contains(op.Action.Reasons(), op.Reason) {
				t.Fatalf("operation %s %s has a reason its action does not allow: %s", op.Action, op.Name, op.Reason)
			}
		}
		for _, u := range p.Unchanged {
			if !slices.Contains(vocab.ActionUnchanged.Reasons(), u.Reason) {
				t.Fatalf("unchanged %s has a reason unchanged does not allow: %s", u.Name, u.Reason)
			}
		}
		if len(p.Conflicts) > 0 && len(p.Ops) > 0 {
			t.Fatalf("a conflict must leave no operation: %+v", p)
		}
		// Every name that is desired or ours is accounted for exactly once.
		seen := map[string]int{}
		for _, op := range p.Ops {
			seen[op.Name]++
		}
		for _, u := range p.Unchanged {
			seen[u.Name]++
		}
		for _, c := range p.Conflicts {
			seen[c.Name]++
		}
		for _, s := range st.Secrets {
			if len(p.Conflicts) == 0 && seen[s.Name] != 1 {
				t.Fatalf("desired %s accounted %d times", s.Name, seen[s.Name])
			}
		}
		again := plan.Build(st, maps.Clone(obs), plan.Policy{Rules: ours})
		if !reflect.DeepEqual(again.Ops, plan.Build(st, obs, plan.Policy{Rules: ours}).Ops) {
			t.Fatal("Build is not deterministic")
		}
		c := p.Counts()
		if c.Operations() != len(p.Ops) || c.Unchanged != len(p.Unchanged) || c.Conflicts != len(p.Conflicts) {
			t.Fatalf("counts %+v do not match the plan", c)
		}
	})
}

func TestProperty_ApplyingAPlanConverges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		st, w, ours := genScenario(t, false, genRules(t))
		p := plan.Build(st, observe(st, w, ours), plan.Policy{Rules: ours, AllowEmpty: true})
		if len(p.Conflicts) > 0 {
			t.Fatalf("no conflict expected: %+v", p.Conflicts)
		}
		version := 0
		apply(w, st, p.Ops, &version)
		restored := map[string]bool{}
		for _, op := range p.Ops {
			if op.Action == vocab.ActionRestore {
				restored[op.Name] = true
			}
		}
		// After restores, at most one follow-up update per restored name.
		follow := plan.Build(st, observe(st, w, ours), plan.Policy{Rules: ours, AllowEmpty: true})
		for _, op := range follow.Ops {
			if op.Action != vocab.ActionUpdate || !restored[op.Name] {
				t.Fatalf("second plan may hold only follow-up updates of restored names, got %s %s", op.Action, op.Name)
			}
		}
		apply(w, st, follow.Ops, &version)
		final := plan.Build(st, observe(st, w, ours), plan.Policy{Rules: ours, AllowEmpty: true})
		if len(final.Ops) != 0 || len(final.Conflicts) != 0 {
			t.Fatalf("not converged after apply: %+v", final)
		}
		if final.Counts().Unchanged != len(final.Unchanged) {
			t.Fatal("counts drift")
		}
	})
}
