package core

import "testing"

func TestValidRegion(t *testing.T) {
	for r, want := range map[string]bool{
		"us-east-1": true, "eu-west-2": true, "us-gov-west-1": true, "ap-southeast-10": true,
		"": false, "us": false, "us-east": false, "US-east-1": false, "us--1": false, "us-east-1a": false, "-1": false,
	} {
		if got := ValidRegion(r); got != want {
			t.Errorf("ValidRegion(%q) = %v, want %v", r, got, want)
		}
	}
}

func TestParsePrincipalARN(t *testing.T) {
	for _, c := range []struct{ arn, account, kind string }{
		{"arn:aws:iam::123456789012:user/deploy", "123456789012", "user"},
		{"arn:aws:iam::210987654321:role/path/ci", "210987654321", "role"},
		{"arn:aws:iam::12345678901:user/x", "", ""},
		{"arn:aws:iam::123456789012:group/x", "", ""},
		{"arn:aws:sts::123456789012:assumed-role/r/s", "", ""},
	} {
		account, kind, ok := ParsePrincipalARN(c.arn)
		if ok != (c.kind != "") || account != c.account || kind != c.kind {
			t.Errorf("ParsePrincipalARN(%q) = %q %q %v, want %q %q", c.arn, account, kind, ok, c.account, c.kind)
		}
	}
	if !ValidAccount("123456789012") || ValidAccount("12345678901a") || ValidAccount("1234567890123") {
		t.Error("ValidAccount: 12 digits and nothing else")
	}
}

func TestStableIDIsStablePerInput(t *testing.T) {
	a, b := StableID("AIDA", "x"), StableID("AIDA", "y")
	if a != StableID("AIDA", "x") || a == b || len(a) != 20 || a[:4] != "AIDA" {
		t.Fatalf("StableID: %q %q", a, b)
	}
}
