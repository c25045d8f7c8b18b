package engine

import (
	"testing"
	"unsafe"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// An observed value equal to the desired one is held once: it then points
// at the desired value's bytes. A different value, or a name with no
// document, keeps its own bytes.
func TestShareEqualValue_EqualBytesShareTheDesiredValue(t *testing.T) {
	want := model.State{Secrets: []model.Secret{
		{Name: "app/a", Value: []byte(`{"k":"v"}`)},
		{Name: "app/b", Value: []byte{0, 1, 2}, Kind: model.Binary.Kind()},
	}}
	r := &runner{}
	r.byName = map[string]*model.Secret{}
	for i := range want.Secrets {
		r.byName[want.Secrets[i].Name] = &want.Secrets[i]
	}
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
	r := newRunner(Config{}, model.State{}, arrival, nil, nil, nil)
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

// While the values are still decrypting, a value read equal to an already
// decrypted document's is held once at once (model.Arrival.Decrypted); one whose
// document is not decrypted yet keeps its bytes until the values arrive.
func TestShareEqualValue_AlreadyDecryptedValueIsSharedBeforeTheStateArrives(t *testing.T) {
	arrival := model.NewArrival(model.State{Secrets: []model.Secret{{Name: "app/a"}, {Name: "app/b"}}})
	r := newRunner(Config{}, model.State{}, arrival, nil, nil, nil)
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
