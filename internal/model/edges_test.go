package model

import (
	"errors"
	"strings"
	"testing"
)

// The tests of this file pin each documented limit and character class at
// its edge: the last value accepted and the first refused, so a rule that
// drifts by one (an operator's valid setting refused, or a bad one let
// through) fails here.

func TestSourceRootDriveLetterAloneIsAbsolute(t *testing.T) {
	for _, in := range []string{"C:", "c:"} {
		if _, err := CleanSourceRoot(in); !errors.Is(err, ErrSourceRootAbsolute) {
			t.Errorf("CleanSourceRoot(%q) = %v, want ErrSourceRootAbsolute", in, err)
		}
	}
}

func TestParseKeyServicesNamesTheFaultyEntry(t *testing.T) {
	for v, want := range map[string]string{
		"bogus":               "entry 1:",
		"age,bogus":           "entry 2:",
		"age, pgp, , aws-kms": "entry 3:",
	} {
		_, err := ParseKeyServices(v)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseKeyServices(%q) = %v, want a reason starting %q", v, err, want)
		}
	}
}

func TestParseKeyServicesSaysWhichSchemesAServiceTakes(t *testing.T) {
	_, err := ParseKeyServices("vault=ftp://h")
	if err == nil || !strings.Contains(err.Error(), "absolute http or https URL") {
		t.Errorf("vault: %v, want it to name http or https", err)
	}
	_, err = ParseKeyServices("azure-kv=http://h")
	if err == nil || !strings.Contains(err.Error(), "absolute https URL") || strings.Contains(err.Error(), "http or") {
		t.Errorf("azure-kv: %v, want it to name https only", err)
	}
}

func TestParseKeyServicesPutsEachOriginInItsList(t *testing.T) {
	k, err := ParseKeyServices("vault=https://v.example:8200,azure-kv=https://kv.vault.azure.net")
	if err != nil {
		t.Fatal(err)
	}
	if !k.AllowsVault("https://v.example:8200") || k.AllowsAzureKV("https://v.example:8200") {
		t.Error("the vault origin is not (only) a Vault server")
	}
	if !k.AllowsAzureKV("https://kv.vault.azure.net") || k.AllowsVault("https://kv.vault.azure.net") {
		t.Error("the azure-kv origin is not (only) a Key Vault")
	}
}

func TestKeyServicePatternLengthEdge(t *testing.T) {
	at := "arn:aws:kms:*:111122223333:key/" + strings.Repeat("k", 2048-len("arn:aws:kms:*:111122223333:key/"))
	if _, err := ParseKeyServices("aws-kms=" + at); err != nil {
		t.Errorf("a 2,048-byte pattern: %v", err)
	}
	if _, err := ParseKeyServices("aws-kms=" + at + "k"); err == nil {
		t.Error("a 2,049-byte pattern accepted")
	}
}

func TestServiceOriginPortAndHostEdges(t *testing.T) {
	for raw, want := range map[string]string{
		"https://v:1":     "https://v:1",
		"https://v:65535": "https://v:65535",
		"https://v:00443": "https://v:443",
		"http://v":        "http://v:80",
	} {
		k, err := ParseKeyServices("vault=" + raw)
		if err != nil || len(k.Vault) != 1 || k.Vault[0] != want {
			t.Errorf("vault=%s: %v, %v; want %q", raw, k.Vault, err, want)
		}
	}
	for _, raw := range []string{"https://v:0", "https://v:65536", "https://v:000443", "https://v:", "https://a b", "https://a\x7fb", "https://a:b:443", "https://[::1"} {
		if k, err := ParseKeyServices("vault=" + raw); err == nil {
			t.Errorf("vault=%q accepted as %v", raw, k.Vault)
		}
	}
	if k, err := ParseKeyServices("vault=https://[::1]:8200"); err != nil || !k.AllowsVault("https://[::1]:8200") {
		t.Errorf("IPv6 literal: %v, %v", k.Vault, err)
	}
}

func TestMatchPatternMiddlePartsAreConsumed(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"a*b*b", "ab", false},
		{"a*b*b", "abb", true},
		{"x*ab*c", "xabc", true},
		{"x*ab*c", "xab", false},
		{"*ab*ab", "ab", false},
	} {
		k, err := ParseKeyServices("gcp-kms=" + c.p)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.AllowsGCPKMS(c.s); got != c.want {
			t.Errorf("gcp-kms=%s allows %q: %v, want %v", c.p, c.s, got, c.want)
		}
	}
}

func TestVaultObjectLengthEdges(t *testing.T) {
	if !VaultObjectName(strings.Repeat("a", 127)) {
		t.Error("a 127-character Key Vault name refused")
	}
	if !VaultObjectVersion(strings.Repeat("a", 64)) {
		t.Error("a 64-character Key Vault version refused")
	}
}

func TestValidateTagsChecksEveryValue(t *testing.T) {
	for _, tags := range []map[string]string{
		{"team": "new\nline"},
		{"team": strings.Repeat("v", 257)},
	} {
		if err := ValidateTags(tags); err == nil {
			t.Errorf("ValidateTags(%q) accepted a bad value", tags)
		}
	}
	if err := ValidateTags(map[string]string{"team": "platform", "env": ""}); err != nil {
		t.Errorf("good tags: %v", err)
	}
}

func TestKMSAliasNameEdges(t *testing.T) {
	for _, id := range []string{
		"alias/" + strings.Repeat("a", 250),
		"alias/azAZ09",
		"alias/a", "alias/z", "alias/A", "alias/Z", "alias/0", "alias/9",
	} {
		if err := ValidateKMSKeyID(id); err != nil {
			t.Errorf("ValidateKMSKeyID(%q) = %v, want nil", id, err)
		}
	}
	for _, id := range []string{
		"alias/" + strings.Repeat("a", 251),
		"alias/a`", "alias/a{", "alias/a@", "alias/a[", "alias/a:", "alias/a.",
	} {
		if err := ValidateKMSKeyID(id); err == nil {
			t.Errorf("ValidateKMSKeyID(%q) accepted", id)
		}
	}
}

func TestAccountIDIsTwelveDigits(t *testing.T) {
	for _, acct := range []string{"11112222333a", "1111 2222333", "/11122223333", ":11122223333"} {
		if err := ValidateKMSKeyID("arn:aws:kms:us-east-1:" + acct + ":alias/app"); err == nil {
			t.Errorf("key ARN with account %q accepted", acct)
		}
		if err := ValidateRoleARN("arn:aws:iam::" + acct + ":role/app"); err == nil {
			t.Errorf("role ARN with account %q accepted", acct)
		}
	}
}

func TestResourceLabelFirstOrdinal(t *testing.T) {
	if got := ResourceLabel(1); got != "resource-0001" {
		t.Errorf("ResourceLabel(1) = %q", got)
	}
	if got := ResourceLabel(12345); got != "resource-12345" {
		t.Errorf("ResourceLabel(12345) = %q", got)
	}
}

func TestRoleARNEdges(t *testing.T) {
	head := "arn:aws:iam::111111111111:role/"
	long := head + strings.Repeat("p", 2048-len(head)-len("/x")) + "/x"
	for _, arn := range []string{
		long,
		head + "!~/x", // a path is any of U+0021..U+007E
		head + "+azAZ09=,.@_-",
		head + "a", head + "z", head + "A", head + "Z", head + "0", head + "9", head + "+",
	} {
		if err := ValidateRoleARN(arn); err != nil {
			t.Errorf("ValidateRoleARN(%.60q) = %v", arn, err)
		}
	}
	for _, arn := range []string{
		long + "x",
		head + "a b/x", head + "a\x7f/x",
		head + "a`", head + "a{", head + "a[", head + "a/", head + "a:", head + "a!", head + "a~",
	} {
		if err := ValidateRoleARN(arn); err == nil {
			t.Errorf("ValidateRoleARN(%.60q) accepted", arn)
		}
	}
}

// TestKMSKeyIDLengthCapIsExactlyTheMaximum: KmsKeyId is at most
// MaxKMSKeyIDChars characters (AWS API reference). The Region pattern has no
// length of its own, so a key ARN with a long Region word reaches the cap
// while every other rule holds: the cap itself decides.
func TestKMSKeyIDLengthCapIsExactlyTheMaximum(t *testing.T) {
	arn := func(n int) string {
		const head, tail = "arn:aws:kms:us-", "-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
		return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
	}
	if id := arn(MaxKMSKeyIDChars); len(id) != MaxKMSKeyIDChars || ValidateKMSKeyID(id) != nil {
		t.Fatalf("a key ARN of exactly %d characters refused: %v", MaxKMSKeyIDChars, ValidateKMSKeyID(id))
	}
	if err := ValidateKMSKeyID(arn(MaxKMSKeyIDChars + 1)); !errors.Is(err, ErrKMSKeyIDForm) {
		t.Fatalf("a key ARN of %d characters = %v, want ErrKMSKeyIDForm", MaxKMSKeyIDChars+1, err)
	}
}

// TestServiceOriginIPv6Literal: an IPv6 literal keeps its brackets, takes
// the port after "]" or the scheme's default, and refuses anything else
// after "]".
func TestServiceOriginIPv6Literal(t *testing.T) {
	for raw, want := range map[string]string{
		"https://[::1]:8200": "https://[::1]:8200",
		"https://[::1]":      "https://[::1]:443",
		"https://[FE80::1]/": "https://[fe80::1]:443",
	} {
		if got, ok := serviceOrigin(raw, false); !ok || got != want {
			t.Errorf("serviceOrigin(%q) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{"https://[::1]x", "https://[::1]8200", "https://[::1"} {
		if got, ok := serviceOrigin(raw, false); ok {
			t.Errorf("serviceOrigin(%q) = %q, accepted", raw, got)
		}
	}
}

// TestParameterNameCharacterEdges: the first and last letter and digit of
// each class are Parameter Store characters; the bytes just outside are not.
func TestParameterNameCharacterEdges(t *testing.T) {
	for _, c := range "azAZ09" {
		if err := ValidateParameterName("/app/x" + string(c)); err != nil {
			t.Errorf("character %q refused: %v", c, err)
		}
	}
	for _, c := range "`{@[/:" {
		if c == '/' {
			continue
		}
		if err := ValidateParameterName("/app/x" + string(c)); !errors.Is(err, ErrParameterCharacter) {
			t.Errorf("character %q = %v, want ErrParameterCharacter", c, err)
		}
	}
}
