package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// An observed value equal to the desired one is held once: it then points
// at the desired value's bytes. A different value, or a name with no
// document, keeps its own bytes.
func TestShareEqualValue_EqualBytesShareTheDesiredValue(t *testing.T) {
	want := model.State{Secrets: []model.Secret{
		{Name: "app/a", Value: []byte(`{"k":"v"}`)},
		{Name: "app/b", Value: []byte{0, 1, 2}, Kind: model.Binary.Kind()},
	}}
	r := newRunner(Config{}, model.Arrived(want), nil, nil, nil)
	same := plan.CurrentValue{HasString: true, String: []byte(`{"k":"v"}`)}
	r.shareEqualValue("app/a", &same)
	if unsafe.SliceData(same.String) != unsafe.SliceData(want.Secrets[0].Value) {
		t.Fatal("an equal observed value kept its own copy")
	}
	bin := plan.CurrentValue{HasBinary: true, Binary: []byte{0, 1, 2}}
	r.shareEqualValue("app/b", &bin)
	if unsafe.SliceData(bin.Binary) != unsafe.SliceData(want.Secrets[1].Value) {
		t.Fatal("an equal observed binary kept its own copy")
	}
	for _, tc := range []struct {
		name string
		v    plan.CurrentValue
	}{
		{"app/a", plan.CurrentValue{HasString: true, String: []byte(`{"k":"w"}`)}},
		{"app/none", plan.CurrentValue{HasString: true, String: []byte(`{"k":"v"}`)}},
	} {
		before := unsafe.SliceData(tc.v.String)
		r.shareEqualValue(tc.name, &tc.v)
		if unsafe.SliceData(tc.v.String) != before || string(tc.v.String) == "" {
			t.Fatalf("%s: a value that is not the desired one was replaced", tc.name)
		}
	}
}

// A value the first observation read while the documents were still
// decrypting is shared with the desired value as soon as it arrives
// (runner.fill), not only when the observation ends.
func TestShareEqualValue_ValuesReadBeforeTheDesiredValuesAreSharedOnArrival(t *testing.T) {
	outline := model.State{Secrets: []model.Secret{{Name: "app/a"}}}
	arrival := model.NewArrival(outline)
	r := newRunner(Config{}, arrival, nil, nil, nil)
	o := &observer{r: r, out: observation{}}
	r.observing.Store(o)
	read := plan.CurrentValue{HasString: true, String: []byte(`{"k":"v"}`)}
	r.shareEqualValue("app/a", &read) // before the values: nothing to share with
	o.out["app/a"] = plan.ObservedSecret{Current: &read}

	value := []byte(`{"k":"v"}`)
	arrival.Publish(0, value)
	arrival.Finish(nil)
	whole, err := arrival.State()
	if err != nil {
		t.Fatal(err)
	}
	r.fill(whole)
	if unsafe.SliceData(o.out["app/a"].Current.String) != unsafe.SliceData(whole.Secrets[0].Value) {
		t.Fatal("a value read before the desired values arrived kept its own copy")
	}
}

// ownedPort answers for a scope whose every desired secret exists, owned
// and converged: Describe shows the scope's tags and one current version,
// GetCurrentValues the value values holds for the name (new bytes on each
// read), ListCandidates nothing. beforeRead, when set, runs at the start of
// each value read with its number (from 1). Other calls are not made.
type ownedPort struct {
	Port
	scope  model.Scope
	paths  map[string]string
	values map[string]string

	mu         sync.Mutex
	reads      int
	beforeRead func(n int)
}

func (p *ownedPort) ListCandidates(context.Context, string) ([]Candidate, error) { return nil, nil }

func (p *ownedPort) Describe(_ context.Context, id string) (plan.ObservedSecret, error) {
	return plan.ObservedSecret{Exists: true, ARN: "arn:aws:secretsmanager:us-east-1:123456789012:secret:" + id + "-AbCdEf", Name: id,
		Tags: p.scope.Tags(p.paths[id]), Versions: []plan.Version{{ID: "v1", Stages: []string{plan.StageCurrent}}}}, nil
}

func (p *ownedPort) GetCurrentValues(_ context.Context, reqs []ValueRequest) ([]plan.CurrentValue, error) {
	p.mu.Lock()
	p.reads++
	n, f := p.reads, p.beforeRead
	p.mu.Unlock()
	if f != nil {
		f(n)
	}
	vs := make([]plan.CurrentValue, len(reqs))
	for i, r := range reqs {
		vs[i] = plan.CurrentValue{VersionID: "v1", HasString: true, String: []byte(p.values[r.Name])}
	}
	return vs, nil
}

// The first observation, running while the documents decrypt, shares the
// values it has read with the desired values as soon as these arrive, not
// only when it ends: with MaxValueBatch+1 converged secrets and one call
// in flight at a time, the first value batch is read (and kept) before the
// values arrive, which is before the second batch starts; every value the
// observation returns then points at its desired value's bytes.
func TestFirstObservation_SharesValuesReadBeforeTheDesiredValuesArrive(t *testing.T) {
	scope := model.Scope{RepositoryID: "acme/app", SourceRoot: "secrets", Prefix: "app"}
	port := &ownedPort{scope: scope, paths: map[string]string{}, values: map[string]string{}}
	outline := model.State{Scope: scope}
	for i := range MaxValueBatch + 1 {
		name, path := fmt.Sprintf("app/s%02d", i), fmt.Sprintf("secrets/s%02d.sops.json", i)
		outline.Secrets = append(outline.Secrets, model.Secret{Name: name, Path: path, SourceDigest: model.SourceDigest(path), Ordinal: i + 1})
		port.paths[name], port.values[name] = path, fmt.Sprintf(`{"k":%d}`, i)
	}
	arrival := model.NewArrival(outline)
	desired := make([][]byte, len(outline.Secrets))
	for i, s := range outline.Secrets {
		desired[i] = []byte(port.values[s.Name])
	}
	r := newRunner(Config{Engine: config.Engine{Concurrency: 1}}, arrival, port, nil, nil)
	ctx := context.Background()
	arrived := r.awaitValues(ctx, func() {})
	port.beforeRead = func(n int) {
		if n != 2 {
			return
		}
		// The values arrive between the two batches (the first one's
		// values are kept: its read held the only slot until then).
		for i, v := range desired {
			arrival.Publish(i, v)
		}
		arrival.Finish(nil)
		<-arrived // the values are copied in (fill)
	}
	obs, _, err := r.observe(ctx, vocab.PhasePlan, nil, listManaged)
	if err != nil {
		t.Fatal(err)
	}
	if port.reads != 2 {
		t.Fatalf("%d value reads, want 2 (a full batch, then the one name left)", port.reads)
	}
	for i, s := range outline.Secrets {
		c := obs[s.Name].Current
		if c == nil || string(c.String) != string(desired[i]) {
			t.Fatalf("%s: observed value %+v, want %s", s.Name, c, desired[i])
		}
		if unsafe.SliceData(c.String) != unsafe.SliceData(desired[i]) {
			t.Errorf("%s: the value read kept its own copy after the desired values arrived", s.Name)
		}
	}
}

// While the values are still decrypting, a value read equal to an already
// decrypted document's is held once at once (model.Arrival.Decrypted); one whose
// document is not decrypted yet keeps its bytes until the values arrive.
func TestShareEqualValue_AlreadyDecryptedValueIsSharedBeforeTheStateArrives(t *testing.T) {
	arrival := model.NewArrival(model.State{Secrets: []model.Secret{{Name: "app/a"}, {Name: "app/b"}}})
	r := newRunner(Config{}, arrival, nil, nil, nil)
	decrypted := []byte(`{"k":"v"}`)
	arrival.Publish(0, decrypted)
	a := plan.CurrentValue{HasString: true, String: []byte(`{"k":"v"}`)}
	r.shareEqualValue("app/a", &a)
	if unsafe.SliceData(a.String) != unsafe.SliceData(decrypted) {
		t.Fatal("a value equal to an already decrypted document kept its own copy")
	}
	b := plan.CurrentValue{HasString: true, String: []byte(`{"k":"v"}`)}
	before := unsafe.SliceData(b.String)
	r.shareEqualValue("app/b", &b)
	if unsafe.SliceData(b.String) != before {
		t.Fatal("a value was shared with a document not decrypted yet")
	}
}
