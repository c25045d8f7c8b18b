package model

import (
	"errors"
	"testing"
)

func TestAWSOwnedMatchesWithinOneSegment(t *testing.T) {
	e := AWSOwned{Secret: "db/*", Keys: []string{"/password"}}
	for name, want := range map[string]bool{"p/db/main": true, "p/db/a/b": false, "p/dbx/main": false, "q/db/main": false, "p/db": false} {
		if got := e.Matches("p", name); got != want {
			t.Errorf("Matches(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestValidateAWSOwnedState(t *testing.T) {
	st := State{Scope: Scope{Prefix: "p"}, Secrets: []Secret{{Name: "p/db/main"}, {Name: "p/cert", Kind: KindText}}}
	for _, c := range []struct {
		entries []AWSOwned
		n       int
		err     error
	}{
		{[]AWSOwned{{Secret: "db/*", Keys: []string{"/password"}}, {Secret: "cert", Keys: []string{""}}}, 0, nil},
		{[]AWSOwned{{Secret: "cache/*", Keys: []string{"/password"}}}, 1, ErrAWSOwnedNoMatch},
		{[]AWSOwned{{Secret: "cert", Keys: []string{"/k"}}}, 1, ErrAWSOwnedWholeKind},
		{[]AWSOwned{{Secret: "db/*", Keys: []string{"/a"}}, {Secret: "db/main", Keys: []string{"/b"}}}, 2, ErrAWSOwnedOverlap},
	} {
		n, err := ValidateAWSOwnedState(c.entries, st)
		if n != c.n || !errors.Is(err, c.err) {
			t.Errorf("%+v: %d %v, want %d %v", c.entries, n, err, c.n, c.err)
		}
	}
}
