package model

import (
	"errors"
	"sync"
	"testing"
)

// TestArrivalRules: the rules written on Arrival. The outline has no
// values and is never written; a value is Decrypted once published and
// is the very bytes the whole state holds; State returns, once Done is
// closed by Finish, the outline's secrets in order with their values; a
// rejection is State's error; Finish(nil) without every value fails
// closed (ErrIncomplete). Publish runs on many goroutines while others
// read (go test -race).
func TestArrivalRules(t *testing.T) {
	whole := State{Commit: "c", Secrets: []Secret{{Name: "a", Value: []byte("1")}, {Name: "b", Value: []byte("2")}, {Name: "c", Value: []byte{}}}}

	a := NewArrival(whole)
	for _, s := range a.Outline().Secrets {
		if s.Value != nil {
			t.Fatalf("outline secret %s has a value", s.Name)
		}
	}
	if whole.Secrets[0].Value == nil {
		t.Fatal("NewArrival wrote the caller's state")
	}
	if v := a.Decrypted("a"); v != nil {
		t.Fatalf("Decrypted before Publish = %q, want nil", v)
	}

	var wg sync.WaitGroup
	for i, s := range whole.Secrets {
		wg.Add(2)
		go func() { defer wg.Done(); a.Publish(i, s.Value) }()
		go func() { defer wg.Done(); _ = a.Decrypted(s.Name) }()
	}
	wg.Wait()
	select {
	case <-a.Done():
		t.Fatal("done before Finish")
	default:
	}
	if v := a.Decrypted("b"); &v[0] != &whole.Secrets[1].Value[0] {
		t.Fatal("Decrypted is not the published bytes")
	}
	if a.Decrypted("zz") != nil {
		t.Fatal("Decrypted of a name outside the outline is not nil")
	}
	a.Finish(nil)
	st, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	if st.Commit != "c" || len(st.Secrets) != 3 || &st.Secrets[0].Value[0] != &whole.Secrets[0].Value[0] || string(st.Secrets[1].Value) != "2" || st.Secrets[2].Value == nil {
		t.Fatalf("State = %+v, want the outline's secrets with their published values", st)
	}
	if a.Outline().Secrets[0].Value != nil {
		t.Fatal("State wrote the outline")
	}

	rejected := errors.New("rejected")
	r := NewArrival(whole)
	r.Publish(0, []byte("1"))
	r.Finish(rejected)
	if _, err := r.State(); err != rejected {
		t.Fatalf("State after a rejection = %v, want it", err)
	}

	hole := NewArrival(whole)
	hole.Publish(0, []byte("1"))
	hole.Finish(nil)
	if _, err := hole.State(); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("State after Finish(nil) with a value missing = %v, want ErrIncomplete", err)
	}

	if st, err := Arrived(whole).State(); err != nil || string(st.Secrets[1].Value) != "2" {
		t.Fatalf("Arrived = %+v, %v, want the whole state", st, err)
	}
}
