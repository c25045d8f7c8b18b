package model

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestValidateScopeName(t *testing.T) {
	for _, ok := range []string{"a", "prod-eu", "default", "0", strings.Repeat("a", 32), "-"} {
		if err := ValidateScopeName(ok); err != nil {
			t.Errorf("ValidateScopeName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("a", 33), "Prod", "prod_eu", "prod eu", "prod.eu", "prod/eu", "é", "a\n"} {
		if err := ValidateScopeName(bad); err != ErrScopeName {
			t.Errorf("ValidateScopeName(%q) = %v, want ErrScopeName", bad, err)
		}
	}
}

// The STS session name sops-aws-sync-<scope> of every valid scope name is
// within STS's RoleSessionName rule ([\w+=,.@-]{2,64}).
func TestScopeNameMakesAValidSessionName(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.StringMatching(`[a-z0-9-]{1,32}`).Draw(t, "name")
		if ValidateScopeName(name) != nil {
			t.Fatalf("%q is drawn from the rule but refused", name)
		}
		s := "sops-aws-sync-" + name
		if len(s) < 2 || len(s) > 64 || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			t.Fatalf("session name %q breaks STS's RoleSessionName rule", s)
		}
	})
}

func TestValidateRoleARN(t *testing.T) {
	for arn, acct := range map[string]string{
		"arn:aws:iam::111111111111:role/secrets-sync":               "111111111111",
		"arn:aws:iam::222222222222:role/ci/deploy/secrets-sync":     "222222222222",
		"arn:aws-cn:iam::333333333333:role/x":                       "333333333333",
		"arn:aws-us-gov:iam::444444444444:role/A+=,.@_-z":           "444444444444",
		"arn:aws:iam::555555555555:role/" + strings.Repeat("r", 64): "555555555555",
	} {
		if err := ValidateRoleARN(arn); err != nil {
			t.Errorf("ValidateRoleARN(%q) = %v", arn, err)
		}
		if got := RoleARNAccount(arn); got != acct {
			t.Errorf("RoleARNAccount(%q) = %q, want %q", arn, got, acct)
		}
	}
	for _, bad := range []string{
		"", "secrets-sync", "arn:aws:iam::111111111111:user/bob", "arn:aws:iam::11111111111:role/x",
		"arn:aws:iam::1111111111112:role/x", "arn:aws:iam:eu-west-1:111111111111:role/x", "arn:aws:sts::111111111111:role/x",
		"arn:nope:iam::111111111111:role/x", "arn:aws:iam::111111111111:role/", "arn:aws:iam::111111111111:role//x",
		"arn:aws:iam::111111111111:role/a//x", "arn:aws:iam::111111111111:role/x y", "arn:aws:iam::111111111111:role/" + strings.Repeat("r", 65),
		"arn:aws:iam::111111111111:role/p q/x", "arn:aws:iam::111111111111:role/x\n", "arn:aws:iam::111111111111:role/" + strings.Repeat("p/", 1100) + "x",
	} {
		if err := ValidateRoleARN(bad); err != ErrRoleARN {
			t.Errorf("ValidateRoleARN(%q) = %v, want ErrRoleARN", bad, err)
		}
		if got := RoleARNAccount(bad); got != "" {
			t.Errorf("RoleARNAccount(%q) = %q, want empty", bad, got)
		}
	}
}

func TestPrefixesOverlapExamples(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"prod/app", "prod/app", true},
		{"prod/app", "prod/app/eu", true},
		{"prod", "prod/app/eu", true},
		{"/prod", "/prod/app", true},
		{"prod/app", "prod/apps", false},
		{"prod/app", "/prod/app", false},
		{"prod/app", "staging/app", false},
		{"prod/app-eu", "prod/app", false},
	} {
		if got := PrefixesOverlap(c.a, c.b); got != c.want {
			t.Errorf("PrefixesOverlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// prefixGen draws clean prefixes (CleanPrefix) from a small alphabet, so
// that shared segments are frequent.
func prefixGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		segs := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "ab", "a-b", "A"}), 1, 4).Draw(t, "segments")
		p := strings.Join(segs, "/")
		if rapid.Bool().Draw(t, "leading-slash") {
			p = "/" + p
		}
		if _, err := CleanPrefix(p); err != nil {
			t.Fatalf("drawn prefix %q is not clean", p)
		}
		return p
	})
}

// PrefixesOverlap holds exactly when some secret name lies under both
// prefixes: it is symmetric, reflexive, and agrees with the name rule
// (SecretName) on every name drawn under either prefix.
func TestPrefixesOverlapIsSharedNames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := prefixGen().Draw(t, "a"), prefixGen().Draw(t, "b")
		got := PrefixesOverlap(a, b)
		if got != PrefixesOverlap(b, a) {
			t.Fatalf("not symmetric for %q, %q", a, b)
		}
		if !PrefixesOverlap(a, a) {
			t.Fatalf("%q does not overlap itself", a)
		}
		// A name of a's scope under b's prefix proves an overlap.
		rel := strings.Join(rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "x", "ab"}), 1, 4).Draw(t, "rel"), "/")
		name := SecretName(a, rel+".sops.json", ".sops.json")
		if strings.HasPrefix(name, b+"/") && !got {
			t.Fatalf("%q is under both %q and %q, but they do not overlap", name, a, b)
		}
		// An overlap has a witness: the longer prefix's own names.
		if got {
			long := a
			if len(b) > len(a) {
				long = b
			}
			w := long + "/x"
			if !strings.HasPrefix(w, a+"/") || !strings.HasPrefix(w, b+"/") {
				t.Fatalf("%q and %q overlap but %q is not under both", a, b, w)
			}
		}
	})
}
