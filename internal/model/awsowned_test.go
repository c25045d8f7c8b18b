package model

import (
	"errors"
	"strings"
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

// TestValidateAWSOwned: the rules of the aws-owned setting that need no
// document (SPEC §13), each at its edge: the pattern's segments, the
// pointers (RFC 6901: "~" only as "~0" or "~1"; "" only alone), the
// generate length (16 and 4,096 accepted, 15 and 4,097 not), generate with
// the whole value, a pattern given twice; the error names the entry.
func TestValidateAWSOwned(t *testing.T) {
	entry := func(secret string, gen int, keys ...string) AWSOwned {
		return AWSOwned{Secret: secret, Keys: keys, Generate: gen}
	}
	for _, e := range []AWSOwned{
		entry("db/*", 0, "/password"),
		entry("cert", 0, ""),
		entry("api", GenerateMin, "/a", "/b~0c~1d", "/~0", "/~1"),
		entry("api", 16, "/token"),
		entry("api", 4096, "/token"),
		entry("a.b/c-d_e", 0, "/x/y"),
	} {
		if err := ValidateAWSOwned([]AWSOwned{e}); err != nil {
			t.Errorf("%+v: %v, want valid", e, err)
		}
	}
	for _, c := range []struct {
		e    AWSOwned
		want error
	}{
		{entry("", 0, "/a"), ErrAWSOwnedSecret},
		{entry("/db", 0, "/a"), ErrAWSOwnedSecret},
		{entry("db//x", 0, "/a"), ErrAWSOwnedSecret},
		{entry("db/", 0, "/a"), ErrAWSOwnedSecret},
		{entry("db/./x", 0, "/a"), ErrAWSOwnedSecret},
		{entry("db/..", 0, "/a"), ErrAWSOwnedSecret},
		{entry(".", 0, "/a"), ErrAWSOwnedSecret},
		{entry("db x", 0, "/a"), ErrAWSOwnedSecret},
		{entry("db", 0), ErrAWSOwnedKeys},
		{entry("db", 0, "/a", "/a"), ErrAWSOwnedKeys},
		{entry("db", 0, "", "/a"), ErrAWSOwnedKeys},
		{entry("db", 0, "/a", ""), ErrAWSOwnedKeys},
		{entry("db", 0, "a"), ErrAWSOwnedKeys},
		{entry("db", 0, "/a~"), ErrAWSOwnedKeys},
		{entry("db", 0, "/a~2"), ErrAWSOwnedKeys},
		{entry("db", 0, "/~0~"), ErrAWSOwnedKeys},
		{entry("db", 0, "/~x/b"), ErrAWSOwnedKeys},
		{entry("db", 15, "/a"), ErrAWSOwnedGenerate},
		{entry("db", 4097, "/a"), ErrAWSOwnedGenerate},
		{entry("db", -16, "/a"), ErrAWSOwnedGenerate},
		{entry("db", 16, ""), ErrAWSOwnedNoFill},
	} {
		err := ValidateAWSOwned([]AWSOwned{entry("ok", 0, "/k"), c.e})
		if !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), "entry 2: ") {
			t.Errorf("%+v: %v, want entry 2: %v", c.e, err, c.want)
		}
	}
	twice := []AWSOwned{entry("db/*", 0, "/a"), entry("api", 0, "/b"), entry("db/*", 0, "/c")}
	if err := ValidateAWSOwned(twice); !errors.Is(err, ErrAWSOwnedTwice) || !strings.HasPrefix(err.Error(), "entry 3: ") {
		t.Errorf("a pattern given twice: %v, want entry 3: %v", err, ErrAWSOwnedTwice)
	}
	if err := ValidateAWSOwned([]AWSOwned{entry("", 0, "/a")}); err == nil || !strings.HasPrefix(err.Error(), "entry 1: ") {
		t.Errorf("the first entry: %v, want it named entry 1", err)
	}
}
