package model

import (
	"strings"
	"testing"
)

func TestDefaultKeyServicesContactNoDocumentChosenAddress(t *testing.T) {
	k, err := ParseKeyServices(DefaultKeyServices)
	if err != nil {
		t.Fatal(err)
	}
	if !k.Age || !k.PGP {
		t.Fatal("the default must allow age and PGP")
	}
	arn := "arn:aws:kms:eu-west-1:111122223333:key/6a3c1d52-4c8e-4a51-9d0e-2f7b8e1c5a90"
	if !k.AllowsKMS(arn, "", "") {
		t.Fatal("the default must allow a KMS key without role or profile")
	}
	for name, allowed := range map[string]bool{
		"kms with a role":    k.AllowsKMS(arn, "arn:aws:iam::999999999999:role/attacker", ""),
		"kms with a profile": k.AllowsKMS(arn, "", "admin"),
		"vault":              k.AllowsVault("https://vault.internal:8200"),
		"azure":              k.AllowsAzureKV("https://x.vault.azure.net"),
		"gcp":                k.AllowsGCPKMS("projects/p/locations/global/keyRings/r/cryptoKeys/k"),
		"hckms":              k.AllowsHCKMS("tr-west-1:0f3b"),
	} {
		if allowed {
			t.Errorf("the default allows %s", name)
		}
	}
}

func TestKeyServicesMatching(t *testing.T) {
	k, err := ParseKeyServices(" age , aws-kms=arn:aws:kms:*:111122223333:key/*, aws-kms-role=arn:aws:iam::111122223333:role/sops-*," +
		"aws-kms-profile=ci, vault=HTTPS://Vault.Internal:8200/, azure-kv=https://kv1.vault.azure.net, gcp-kms=projects/p/*, hckms")
	if err != nil {
		t.Fatal(err)
	}
	if k.PGP {
		t.Error("pgp was not named")
	}
	own := "arn:aws:kms:eu-west-1:111122223333:key/abc"
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"own key", k.AllowsKMS(own, "", ""), true},
		{"other account", k.AllowsKMS("arn:aws:kms:eu-west-1:999999999999:key/abc", "", ""), false},
		{"own key, allowed role", k.AllowsKMS(own, "arn:aws:iam::111122223333:role/sops-reader", ""), true},
		{"own key, other role", k.AllowsKMS(own, "arn:aws:iam::999999999999:role/sops-reader", ""), false},
		{"own key, allowed profile", k.AllowsKMS(own, "", "ci"), true},
		{"own key, other profile", k.AllowsKMS(own, "", "cix"), false},
		{"vault same origin", k.AllowsVault("https://vault.internal:8200"), true},
		{"vault case and slash", k.AllowsVault("https://VAULT.internal:8200/"), true},
		{"vault other port", k.AllowsVault("https://vault.internal:8201"), false},
		{"vault http", k.AllowsVault("http://vault.internal:8200"), false},
		{"vault with a path", k.AllowsVault("https://vault.internal:8200/x"), false},
		{"vault with user", k.AllowsVault("https://u@vault.internal:8200"), false},
		{"vault other host", k.AllowsVault("https://vault.internal.evil:8200"), false},
		{"azure default port", k.AllowsAzureKV("https://kv1.vault.azure.net:443"), true},
		{"azure other", k.AllowsAzureKV("https://kv2.vault.azure.net"), false},
		{"gcp", k.AllowsGCPKMS("projects/p/locations/l/keyRings/r/cryptoKeys/k"), true},
		{"gcp other project", k.AllowsGCPKMS("projects/q/locations/l/keyRings/r/cryptoKeys/k"), false},
		{"hckms any", k.AllowsHCKMS("tr-west-1:x"), true},
	} {
		if c.got != c.want {
			t.Errorf("%s: allowed=%v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestParseKeyServicesRefusesWithoutEchoingTheValue(t *testing.T) {
	for _, v := range []string{"", " ", "age,", "agex", "age=1", "vault", "vault=", "vault=ftp://secret-host", "vault=https://secret-host/path",
		"vault=https://user:pw@secret-host", "azure-kv=http://secret-host", "aws-kms-role", "aws-kms=a b", "vault=secret-host:8200"} {
		_, err := ParseKeyServices(v)
		if err == nil {
			t.Errorf("%q accepted", v)
			continue
		}
		if strings.Contains(err.Error(), "secret-host") || strings.Contains(err.Error(), "agex") {
			t.Errorf("%q: the reason echoes the value: %v", v, err)
		}
	}
}

func TestMatchPattern(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*", "abc", true}, {"*c", "abc", true}, {"a*c", "abc", true},
		{"a*c", "ab", false}, {"a*b*c", "axbyc", true}, {"a*b*c", "axcyb", false}, {"abc", "abc", true}, {"abc", "abcd", false},
		{"a*a", "a", false}, {"**", "x", true},
	} {
		if got := matchPattern(c.p, c.s); got != c.want {
			t.Errorf("matchPattern(%q, %q) = %v", c.p, c.s, got)
		}
	}
}

// FuzzParseKeyServices: the parser never panics, and an accepted value's
// Vault origins are themselves accepted origins (normalisation is a fixed
// point).
func FuzzParseKeyServices(f *testing.F) {
	for _, s := range []string{DefaultKeyServices, "vault=https://v:8200", "aws-kms=arn:*,aws-kms-role=*", "azure-kv=https://a.vault.azure.net/", "x=,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKeyServices(s)
		if err != nil {
			return
		}
		for _, o := range k.Vault {
			if !k.AllowsVault(o) {
				t.Fatalf("vault origin %q does not allow itself", o)
			}
		}
	})
}

func TestVaultTransitPath(t *testing.T) {
	for _, c := range []struct {
		engine, key string
		want        bool
	}{
		{"transit", "k", true},
		{"sops/transit", "app-key.v2", true},
		{"transit", "../../secret/data/app", false},
		{"transit", "..", false},
		{"transit", ".k", false},
		{"transit", "k-", false},
		{"transit", "a/b", false},
		{"transit/../sys", "k", false},
		{"transit/./x", "k", false},
		{"transit//x", "k", false},
		{"/transit", "k", false},
		{"transit/", "k", false},
		{"", "k", false},
		{"transit", "", false},
		{"tran sit", "k", false},
		{"transit", "k%2e", false},
		{"transit", "é", false},
	} {
		if got := VaultTransitPath(c.engine, c.key); got != c.want {
			t.Errorf("VaultTransitPath(%q, %q) = %v, want %v", c.engine, c.key, got, c.want)
		}
	}
	k, err := ParseKeyServices("vault=https://vault.internal:8200")
	if err != nil {
		t.Fatal(err)
	}
	if !k.AllowsVaultKey("https://vault.internal:8200", "transit", "k") || k.AllowsVaultKey("https://vault.internal:8200", "transit", "../x") ||
		k.AllowsVaultKey("https://other:8200", "transit", "k") {
		t.Fatal("AllowsVaultKey is the address rule and the path rule together")
	}
}

func TestVaultObjectNameAndVersion(t *testing.T) {
	for s, want := range map[string]bool{"k": true, "sops-key-1": true, "": false, ".": false, "..": false, "a/b": false, "a_b": false, strings.Repeat("a", 128): false} {
		if VaultObjectName(s) != want {
			t.Errorf("VaultObjectName(%q) = %v", s, !want)
		}
	}
	for s, want := range map[string]bool{"": true, "0123456789abcdef0123456789abcdef": true, ".": false, "..": false, "a/b": false, strings.Repeat("a", 65): false} {
		if VaultObjectVersion(s) != want {
			t.Errorf("VaultObjectVersion(%q) = %v", s, !want)
		}
	}
}

// TestRegression_KMSPatternStarCrossesARNFields: in an aws-kms or
// aws-kms-role pattern, "*" matched any run of characters, ":" included, so
// a pattern pinning the account (arn:aws:kms:*:111122223333:key/*) was met
// by an ARN whose real account field is another one, with the pinned
// account text further on. "*" now stays within one ARN field.
func TestRegression_KMSPatternStarCrossesARNFields(t *testing.T) {
	k, err := ParseKeyServices("aws-kms=arn:aws:kms:*:111122223333:key/*,aws-kms-role=arn:aws:iam::111122223333:role/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		arn, role string
		want      bool
	}{
		{"own account, any Region", "arn:aws:kms:eu-west-1:111122223333:key/abc", "", true},
		{"own account, allowed role", "arn:aws:kms:us-east-1:111122223333:key/abc", "arn:aws:iam::111122223333:role/sops", true},
		{"another account", "arn:aws:kms:eu-west-1:999999999999:key/abc", "", false},
		{"pinned account spanned by the Region's star", "arn:aws:kms:eu-west-1:999999999999:x:111122223333:key/abc", "", false},
		{"role of another account spanning fields", "arn:aws:kms:eu-west-1:111122223333:key/abc", "arn:aws:iam::999999999999:x::111122223333:role/r", false},
	} {
		if got := k.AllowsKMS(c.arn, c.role, ""); got != c.want {
			t.Errorf("%s: AllowsKMS = %v, want %v", c.name, got, c.want)
		}
	}
	anyKey, err := ParseKeyServices("aws-kms")
	if err != nil {
		t.Fatal(err)
	}
	if !anyKey.AllowsKMS("arn:aws:kms:eu-west-1:999999999999:key/abc", "", "") {
		t.Error("a lone * must still match any key ARN")
	}
}
