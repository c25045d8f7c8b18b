package model

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func sum(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// The digests are stable identities of already-created secrets: these are
// computed independently from the SPEC §4 definition.
func TestScopeDigestMatchesSpecDefinition(t *testing.T) {
	s := Scope{RepositoryID: "acme/infra", SourceRoot: "secrets/", Prefix: "prod/app"}
	want := sum("sops-aws-sync:scope:v1\x00acme/infra\x00secrets\x00prod/app")
	if got := s.Digest(); got != want {
		t.Fatalf("Digest() = %s, want %s", got, want)
	}
	// Cleaning: "./secrets" and "secrets" are the same scope; "" is ".".
	if (Scope{RepositoryID: "acme/infra", SourceRoot: "./secrets", Prefix: "prod/app"}).Digest() != want {
		t.Errorf("source root must be cleaned before hashing")
	}
	if (Scope{RepositoryID: "r", SourceRoot: "", Prefix: "p"}).Digest() != (Scope{RepositoryID: "r", SourceRoot: ".", Prefix: "p"}).Digest() {
		t.Errorf(`empty source root must equal "."`)
	}
	// The prefix is hashed verbatim: trimming is internal/config's job.
	if (Scope{RepositoryID: "r", SourceRoot: ".", Prefix: "p/"}).Digest() == (Scope{RepositoryID: "r", SourceRoot: ".", Prefix: "p"}).Digest() {
		t.Errorf("Digest must hash the prefix as given, not trim it")
	}
	if !IsDigest(want) {
		t.Errorf("scope digest must be 64 lower-hex characters")
	}
}

func TestSourceDigestKeepsIdentityAcrossEncodings(t *testing.T) {
	want := sum("secrets/db.sops.json")
	for _, p := range []string{"secrets/db.sops.json", "secrets/db.sops.yaml", "secrets/db.sops.yml", "secrets/db.sops.env", "secrets/db.sops.txt", "secrets/db.sops.bin"} {
		if got := SourceDigest(p); got != want {
			t.Errorf("SourceDigest(%q) = %s, want %s", p, got, want)
		}
	}
	if SourceDigest("secrets/other.sops.json") == want {
		t.Errorf("different documents must have different digests")
	}
}

func TestIsDigestRejectsMalformedSourceTags(t *testing.T) {
	for _, s := range []string{"", "abc", sum("x")[:63], sum("x") + "0", "G" + sum("x")[1:], "A" + sum("x")[1:]} {
		if IsDigest(s) {
			t.Errorf("IsDigest(%q) = true, want false", s)
		}
	}
}

func TestTagsCarryAllThreeReservedKeys(t *testing.T) {
	s := Scope{RepositoryID: "r", SourceRoot: "secrets", Prefix: "p"}
	tags := s.Tags("secrets/a.sops.yaml")
	if tags[TagManagedBy] != "sops-aws-sync" || tags[TagScope] != s.Digest() || tags[TagSource] != SourceDigest("secrets/a.sops.json") || len(tags) != 3 {
		t.Fatalf("unexpected tags %v", tags)
	}
}

func TestWholeValueSuffixesSelectTheirKinds(t *testing.T) {
	for p, want := range map[string]ValueKind{
		"secrets/tls.sops.txt": KindText, "secrets/ks.sops.bin": KindBinary,
		"secrets/db.sops.json": KindJSON, "secrets/db.sops.env": KindJSON,
	} {
		s, ok := DocumentSuffix(p)
		if !ok || s.Format.Kind() != want || s.Format.Whole() != want.Whole() {
			t.Errorf("DocumentSuffix(%q) = %+v, %v; want kind %v", p, s, ok, want)
		}
	}
	for _, p := range []string{"secrets/x.txt", "secrets/x.sops.TXT", "secrets/x.bin", "secrets/x.sops.txt.bak"} {
		if _, ok := DocumentSuffix(p); ok {
			t.Errorf("DocumentSuffix(%q) selected a document", p)
		}
	}
	if !KindBinary.Binary() || KindText.Binary() || KindJSON.Binary() || KindJSON.Whole() {
		t.Errorf("kind predicates wrong")
	}
}
