package model

import (
	"errors"
	"strings"
	"testing"
)

func TestParameterName(t *testing.T) {
	for in, want := range map[string]string{"team/app/db": "/team/app/db", "/team/app/db": "/team/app/db", "x": "/x"} {
		if got := ParameterName(in); got != want {
			t.Errorf("ParameterName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValidateParameterName(t *testing.T) {
	ok := []string{"/a", "/team/app-1/db_2.x", "/" + strings.Repeat("l/", 14) + "x", "/" + strings.Repeat("n", MaxParameterNameBytes-1), "/awx", "/sm/x"}
	for _, n := range ok {
		if err := ValidateParameterName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	bad := map[string]error{
		"/a+b": ErrParameterCharacter, "/a=b": ErrParameterCharacter, "/a@b": ErrParameterCharacter, "/a b": ErrParameterCharacter,
		"/aws/x": ErrParameterReserved, "/AWSx": ErrParameterReserved, "/ssm-1/x": ErrParameterReserved, "/SsM": ErrParameterReserved,
		"/" + strings.Repeat("l/", 15) + "x":             ErrParameterDepth,
		"/" + strings.Repeat("n", MaxParameterNameBytes): ErrParameterTooLong,
		"a": ErrParameterEmpty, "/": ErrParameterEmpty, "/a//b": ErrParameterEmpty, "/a/": ErrParameterEmpty,
	}
	for n, want := range bad {
		if err := ValidateParameterName(n); !errors.Is(err, want) {
			t.Errorf("%q: %v, want %v", n, err, want)
		} else if strings.Contains(err.Error(), n) && len(n) > 3 {
			t.Errorf("%q: the reason quotes the name", n)
		}
	}
}

func TestTierThatFits(t *testing.T) {
	for size, want := range map[int]string{1: TierStandard, 4096: TierStandard, 4097: TierAdvanced, 8192: TierAdvanced, 8193: ""} {
		if got := TierThatFits(size); got != want {
			t.Errorf("TierThatFits(%d) = %q, want %q", size, got, want)
		}
	}
}

// TestValueLimit: Secrets Manager's 65,536 bytes for any target but
// parameter-store; a parameter's tier limit otherwise ("" = standard).
func TestValueLimit(t *testing.T) {
	for _, c := range []struct {
		target Target
		tier   string
		want   int
	}{
		{"", "", MaxValueBytes}, {TargetSecretsManager, TierAdvanced, MaxValueBytes},
		{TargetParameterStore, "", MaxStandardValueBytes}, {TargetParameterStore, TierStandard, MaxStandardValueBytes},
		{TargetParameterStore, TierAdvanced, MaxAdvancedValueBytes},
	} {
		if got := ValueLimit(c.target, c.tier); got != c.want {
			t.Errorf("ValueLimit(%q, %q) = %d, want %d", c.target, c.tier, got, c.want)
		}
	}
}

// A Secrets Manager scope's digest never changes with the second target;
// the same scope in Parameter Store is another identity.
func TestScopeDigestTarget(t *testing.T) {
	s := Scope{RepositoryID: "acme/infra", SourceRoot: "secrets", Prefix: "prod/app"}
	sm := s
	sm.Target = TargetSecretsManager
	ps := s
	ps.Target = TargetParameterStore
	if s.Digest() != sm.Digest() {
		t.Error("an explicit secrets-manager target changed the digest")
	}
	if ps.Digest() == s.Digest() {
		t.Error("a parameter-store scope must have its own digest")
	}
}

func FuzzValidateParameterName(f *testing.F) {
	for _, s := range []string{"/a/b", "/aws", "/a//b", "/é", "/" + strings.Repeat("a/", 16)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateParameterName(name) != nil {
			return
		}
		// An accepted name is what Parameter Store takes.
		if !strings.HasPrefix(name, "/") || strings.Count(name, "/") > MaxParameterLevels || len(name) > MaxParameterNameBytes || strings.Contains(name, "//") {
			t.Fatalf("accepted %q", name)
		}
		if ParameterName(name) != name {
			t.Fatalf("ParameterName is not idempotent on %q", name)
		}
	})
}

// TestMaxParameterNameBytesIsTheDocumentedFigure: 949 bytes, derived in
// MaxParameterNameBytes' comment from PutParameter's limit of 1,011
// characters on a name with its full ARN (AWS API reference, PutParameter,
// Name): a name of 949 bytes is valid, one of 950 too long.
func TestMaxParameterNameBytesIsTheDocumentedFigure(t *testing.T) {
	if MaxParameterNameBytes != 949 {
		t.Fatalf("MaxParameterNameBytes = %d, want 949", MaxParameterNameBytes)
	}
	if err := ValidateParameterName("/" + strings.Repeat("n", 948)); err != nil {
		t.Errorf("a 949-byte name: %v", err)
	}
	if err := ValidateParameterName("/" + strings.Repeat("n", 949)); !errors.Is(err, ErrParameterTooLong) {
		t.Errorf("a 950-byte name: %v, want %v", err, ErrParameterTooLong)
	}
}
