package desired

import (
	"context"
	"reflect"
	"testing"
	"unsafe"
)

// The two steps give the whole state: the Arrival's outline is the state's
// secrets without values, in the same order; Decrypted knows a value only
// once its document is decrypted, and then it is the state's own bytes.
func TestLoading_OutlineThenDecryptIsLoad(t *testing.T) {
	dir := sharedRootRepo(t)
	o := baseOptions(dir)
	want, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	outline := l.Arrival().Outline()
	if outline.Commit != want.Commit || outline.Scope != want.Scope || len(outline.Secrets) != len(want.Secrets) {
		t.Fatalf("outline %+v is not the state's %+v", outline, want)
	}
	for i, s := range outline.Secrets {
		if s.Value != nil {
			t.Fatalf("outline secret %s has a value", s.Name)
		}
		w := want.Secrets[i]
		w.Value = nil
		if !reflect.DeepEqual(s, w) {
			t.Fatalf("outline secret %d = %+v, want %+v", i, s, w)
		}
		if l.Arrival().Decrypted(s.Name) != nil {
			t.Fatalf("%s: a value before Decrypt", s.Name)
		}
	}
	if err := l.Decrypt(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	got, err := l.Arrival().State()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decrypt = %+v, want the whole load's %+v", got, want)
	}
	for _, s := range got.Secrets {
		if v := l.Arrival().Decrypted(s.Name); unsafe.SliceData(v) != unsafe.SliceData(s.Value) || len(v) != len(s.Value) {
			t.Fatalf("%s: Decrypted is not the state's value", s.Name)
		}
	}
	if l.Arrival().Decrypted(o.SecretPrefix+"/none") != nil {
		t.Fatal("a name no document maps to has a value")
	}
}
