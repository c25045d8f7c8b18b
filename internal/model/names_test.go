package model

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	ok := []string{"a", "prod/app/db", "A-Z_a+z=0.9@x-y", strings.Repeat("n", 512), "app-config"}
	for _, n := range ok {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v", n, err)
		}
	}
	bad := []string{"", strings.Repeat("n", 513), "a b", "rds!cluster", "é", "a\nb", "a*b", "a\\b", "a:b", "a#b", "a%b"}
	for _, n := range bad {
		err := ValidateName(n)
		if err == nil {
			t.Errorf("ValidateName(%q) = nil", n)
			continue
		}
		if n != "" && strings.Contains(err.Error(), n) {
			t.Errorf("error repeats the name: %v", err)
		}
	}
}

func TestSuffixLooksLikeARN(t *testing.T) {
	yes := []string{"app-config", "db-backup", "prod/app-a1b2c3", "-abcdef", "x/y-------"}
	no := []string{"app", "app-conf", "app-configs", "appconfig", "a-b/c", "config"}
	for _, n := range yes {
		if !SuffixLooksLikeARN(n) {
			t.Errorf("SuffixLooksLikeARN(%q) = false", n)
		}
	}
	for _, n := range no {
		if SuffixLooksLikeARN(n) {
			t.Errorf("SuffixLooksLikeARN(%q) = true", n)
		}
	}
}

// TestPrefixWithDotSegmentsRejected: "//a", ".", "a/../b" and the like were
// accepted as secret prefixes (issue 15); each names an unintended
// namespace, so the prefix rule rejects them without quoting the value.
func TestPrefixWithDotSegmentsRejected(t *testing.T) {
	for in, want := range map[string]string{"t1": "t1", "t1/": "t1", "/prod/app": "/prod/app", "/prod/app/": "/prod/app", "a.b/c": "a.b/c", "..a/b.": "..a/b."} {
		got, err := CleanPrefix(in)
		if err != nil || got != want {
			t.Errorf("CleanPrefix(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "/", "//", "//a", ".", "./", "..", "a/../b", "a/./b", "a//b", "t1//", "/./a", "a/.", "a b", "CANARY-x y"} {
		if _, err := CleanPrefix(in); err == nil {
			t.Errorf("CleanPrefix(%q) accepted", in)
		} else if in != "" && strings.Contains(err.Error(), in) && len(in) > 2 {
			t.Errorf("CleanPrefix(%q) error quotes the value: %v", in, err)
		}
	}
}

func TestSourceRootRule(t *testing.T) {
	for in, want := range map[string]string{".": ".", "": ".", "secrets": "secrets", "a/b/": "a/b"} {
		got, err := CleanSourceRoot(in)
		if err != nil || got != want {
			t.Errorf("CleanSourceRoot(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"/abs", "..", "a/..", "./a", "a//b", "a/./b", `a\b`, "C:x", "/"} {
		if _, err := CleanSourceRoot(in); err == nil {
			t.Errorf("CleanSourceRoot(%q) accepted", in)
		}
	}
}

func TestDocumentSuffixTable(t *testing.T) {
	for _, n := range []string{"a.sops.json", "a.sops.yaml", "a.sops.yml", "a.sops.env"} {
		if _, ok := DocumentSuffix(n); !ok {
			t.Errorf("%s not selected", n)
		}
	}
	for _, n := range []string{"a.json", "a.SOPS.json", "a.sops.toml", ".sops.yaml.bak", ".sops.yaml", ".sops.yml", "secrets/.sops.yaml", "a/b/.sops.yml"} {
		if _, ok := DocumentSuffix(n); ok {
			t.Errorf("%s selected", n)
		}
	}
}

func TestRedactionLabel(t *testing.T) {
	if got := (Redaction{}).Label(3, "prod/db"); got != "resource-0003" {
		t.Errorf("hidden: %q", got)
	}
	if got := (Redaction{ShowNames: true}).Label(3, "prod/db"); got != "prod/db" {
		t.Errorf("shown: %q", got)
	}
	if got := (Redaction{ShowNames: true}).Label(3, "a\nb"); got != `"a\nb"` {
		t.Errorf("control characters not quoted: %q", got)
	}
	if got := ResourceLabel(0); got != "resource-unknown" {
		t.Errorf("unknown: %q", got)
	}
}

func TestResourceFormat(t *testing.T) {
	if ResourceLabel(3) != "resource-0003" || ResourceLabel(12345) != "resource-12345" {
		t.Fatal(ResourceLabel(3), ResourceLabel(12345))
	}
}
