package model

import "testing"

func TestHexRule(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	for s, want := range map[string]bool{
		rev:       true,
		rev[:39]:  false,
		rev + "0": false,
		"0123456789ABCDEF0123456789abcdef01234567": false,
		"0123456789abcdeg0123456789abcdef01234567": false,
		"": false,
	} {
		if got := IsRevision(s); got != want {
			t.Errorf("IsRevision(%q) = %v, want %v", s, got, want)
		}
	}
	if !IsDigest(SourceDigest("secrets/a.sops.json")) || IsDigest(rev) {
		t.Error("IsDigest is the 64-digit form of the same rule")
	}
}
