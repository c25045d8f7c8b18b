package importer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

func TestDocumentStem(t *testing.T) {
	for _, c := range []struct {
		prefix, root, name, want string
		err                      error
	}{
		{"app", "secrets", "app/db", "secrets/db", nil},
		{"app", ".", "app/a/b", "a/b", nil},
		{"/prod/app", "secrets", "/prod/app/db", "secrets/db", nil},
		{"app", "secrets", "app", "", ErrOutsidePrefix},
		{"app", "secrets", "apple/db", "", ErrOutsidePrefix},
		{"app", "secrets", "other/db", "", ErrOutsidePrefix},
		{"app", "secrets", "app/a//b", "", ErrSegment},
		{"app", "secrets", "app/a/", "", ErrSegment},
		{"app", "secrets", "app/./b", "", ErrSegment},
		{"app", "secrets", "app/../b", "", ErrSegment},
		{"app", ".", "app/.git/config", "", ErrReservedPath},
		{"app", ".", "app/.GIT/x", "", ErrReservedPath},
		{"app", "secrets", "app/a b", "", ErrNameRule},
		{"app", "secrets", "app/" + strings.Repeat("x", 250), "", ErrSegment},
		// The longest file name a segment makes is itself + ".sops.json":
		// 245 + 10 = 255 bytes fit, 256 do not.
		{"app", "secrets", "app/" + strings.Repeat("x", 245), "secrets/" + strings.Repeat("x", 245), nil},
		{"app", "secrets", "app/" + strings.Repeat("x", 246), "", ErrSegment},
	} {
		got, err := DocumentStem(c.prefix, c.root, c.name)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("DocumentStem(%q, %q, %q) = %q, %v; want %q, %v", c.prefix, c.root, c.name, got, err, c.want, c.err)
		}
		if err == nil {
			for _, s := range model.Suffixes {
				rel := strings.TrimPrefix(got, c.root+"/") + s.Suffix
				if n := model.SecretName(c.prefix, rel, s.Suffix); n != c.name {
					t.Errorf("%s%s maps to %q, not %q", got, s.Suffix, n, c.name)
				}
			}
		}
	}
}

// FuzzDocumentStem: a stem, when there is one, maps back to the name
// under every suffix, stays below the source root and never holds an
// empty, "." or ".." segment.
func FuzzDocumentStem(f *testing.F) {
	f.Add("app", "secrets", "app/db")
	f.Add("/p", ".", "/p/a//b")
	f.Add("app", "secrets", "app/.git/x")
	f.Fuzz(func(t *testing.T, prefix, root, name string) {
		if p, err := model.CleanPrefix(prefix); err != nil || p != prefix {
			return
		}
		if r, err := model.CleanSourceRoot(root); err != nil || r != root {
			return
		}
		stem, err := DocumentStem(prefix, root, name)
		if err != nil {
			return
		}
		rel := stem
		if root != "." {
			if !strings.HasPrefix(stem, root+"/") {
				t.Fatalf("stem %q is not below %q", stem, root)
			}
			rel = strings.TrimPrefix(stem, root+"/")
		}
		for _, seg := range strings.Split(stem, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("stem %q holds segment %q", stem, seg)
			}
		}
		for _, s := range model.Suffixes {
			if n := model.SecretName(prefix, rel+s.Suffix, s.Suffix); n != name {
				t.Fatalf("%q maps back to %q, not %q", stem+s.Suffix, n, name)
			}
		}
	})
}

func TestClassify(t *testing.T) {
	str := func(s string) plan.CurrentValue { return plan.CurrentValue{HasString: true, String: []byte(s)} }
	bin := func(b []byte) plan.CurrentValue { return plan.CurrentValue{HasBinary: true, Binary: b} }
	for _, c := range []struct {
		name   string
		v      plan.CurrentValue
		binary bool
		want   model.Format
		ok     bool
	}{
		{"canonical object", str(`{"a":1,"b":"x"}`), true, model.JSON, true},
		{"object spelled by hand", str(`{"b": "x", "a": 1}`), true, model.Text, true},
		{"object with a sops key", str(`{"sops":"x"}`), true, model.Text, true},
		{"array", str(`[1]`), true, model.Text, true},
		{"pem", str("-----BEGIN X-----\nabc\n-----END X-----\n"), true, model.Text, true},
		{"bom", str("\xef\xbb\xbfx"), true, 0, false},
		{"not utf-8", str("\xff"), true, 0, false},
		{"empty string", str(""), true, 0, false},
		{"binary", bin([]byte{0, 1}), true, model.Binary, true},
		{"binary for a text-only target", bin([]byte{0, 1}), false, 0, false},
		{"empty binary", bin(nil), true, 0, false},
		{"both", plan.CurrentValue{HasString: true, HasBinary: true}, true, 0, false},
		{"neither", plan.CurrentValue{}, true, 0, false},
		{"too large", str(strings.Repeat("x", model.MaxValueBytes+1)), true, 0, false},
	} {
		got, ok := Classify(c.v, c.binary)
		if ok != c.ok || got.Format != c.want {
			t.Errorf("%s: Classify = %v, %v; want %v, %v", c.name, got.Format, ok, c.want, c.ok)
		}
	}
}

func TestWithoutOwned(t *testing.T) {
	v := Value{Format: model.JSON, Plain: []byte(`{"db":{"password":"p","user":"u"},"host":"h","password":"q"}`)}
	req := Request{}
	got, ok := req.withoutOwned(v, model.AWSOwned{Keys: []string{"/password", "/db/password"}})
	if !ok || string(got.Plain) != `{"db":{"user":"u"},"host":"h"}` {
		t.Fatalf("withoutOwned = %s, %v", got.Plain, ok)
	}
	if _, ok := req.withoutOwned(v, model.AWSOwned{Keys: []string{"/missing"}}); ok {
		t.Fatal("a listed key missing from the live value was accepted")
	}
	req.CopyRotated = true
	if got, ok := req.withoutOwned(v, model.AWSOwned{Keys: []string{"/password"}}); !ok || string(got.Plain) != string(v.Plain) {
		t.Fatalf("with CopyRotated the live value is kept: %s, %v", got.Plain, ok)
	}
	if _, ok := (Request{}).withoutOwned(Value{Format: model.Text, Plain: []byte("x")}, model.AWSOwned{Keys: []string{""}}); ok {
		t.Fatal("a whole value AWS owns was imported without CopyRotated")
	}
}

func TestCheckEncrypted(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want error
	}{
		{`{"a":"ENC[AES256_GCM,data:x]","b":"","c":null,"d":[],"e":{"f":"ENC[AES256_GCM,data:y]"},"sops":{"mac":"m"}}`, nil},
		{`{"data":"ENC[AES256_GCM,data:x]","sops":{}}`, nil},
		{`{"a_unencrypted":"clear","sops":{}}`, ErrInClear},
		{`{"a":["ENC[AES256_GCM,data:x]","clear"],"sops":{}}`, ErrInClear},
		{`{"a":1,"sops":{}}`, ErrInClear},
		{`{"a":"ENC[AES256_GCM,data:x]"}`, ErrEncrypt},
		{`not json`, ErrEncrypt},
	} {
		if err := CheckEncrypted([]byte(c.doc)); !errors.Is(err, c.want) {
			t.Errorf("CheckEncrypted(%s) = %v, want %v", c.doc, err, c.want)
		}
	}
}

// FuzzCheckEncrypted: a document that passes holds no string leaf outside
// "sops" but encrypted or empty ones, whatever the bytes.
func FuzzCheckEncrypted(f *testing.F) {
	f.Add([]byte(`{"a":"ENC[AES256_GCM,data:x]","sops":{}}`))
	f.Add([]byte(`{"a":"x","sops":{}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if CheckEncrypted(doc) != nil {
			return
		}
		if strings.Contains(string(doc), `"clear-canary"`) && !strings.Contains(string(doc), `"sops"`) {
			t.Fatalf("passed a document with a clear value: %s", doc)
		}
	})
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string][2]int{"sops 3.13.3\n": {3, 13}, "sops 3.10.0 (latest)\n": {3, 10}, "sops 4.0.1": {4, 0}} {
		if got, ok := ParseVersion(in); !ok || got != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "sops", "3.13.3", "sops x.y.z"} {
		if _, ok := ParseVersion(in); ok {
			t.Errorf("ParseVersion(%q) read a version", in)
		}
	}
}

func FuzzParseVersion(f *testing.F) {
	f.Add("sops 3.13.3\n")
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseVersion(s)
		if ok && (v[0] < 0 || v[1] < 0) {
			t.Fatalf("negative version %v from %q", v, s)
		}
	})
}

func TestCreationRule(t *testing.T) {
	top := t.TempDir()
	sub := filepath.Join(top, "team")
	if err := os.MkdirAll(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	const recip = "age1y2vz30jw397p7jk4f406p38a79jh3e4t4n92v0fh492wwlnn3ylsvtjvxm"
	write := func(p, body string) {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := CreationRule(top, filepath.Join(top, "secrets", "a.sops.json")); !errors.Is(err, ErrNoConfig) {
		t.Fatalf("no .sops.yaml: %v", err)
	}
	write(filepath.Join(top, ".sops.yaml"), "creation_rules:\n  - path_regex: ^secrets/\n    age: "+recip+"\n")
	if p, err := CreationRule(top, filepath.Join(top, "secrets", "x", "a.sops.json")); err != nil || p != filepath.Join(top, ".sops.yaml") {
		t.Fatalf("root rule: %q, %v", p, err)
	}
	if _, err := CreationRule(top, filepath.Join(top, "other", "a.sops.json")); !errors.Is(err, ErrNoRule) {
		t.Fatalf("no matching rule: %v", err)
	}
	// The nearest .sops.yaml wins, its path_regex relative to its own
	// directory.
	write(filepath.Join(sub, ".sops.yaml"), "creation_rules:\n  - path_regex: ^only/\n    age: "+recip+"\n")
	if p, err := CreationRule(top, filepath.Join(sub, "only", "a.sops.txt")); err != nil || p != filepath.Join(sub, ".sops.yaml") {
		t.Fatalf("nearest rule: %q, %v", p, err)
	}
	if _, err := CreationRule(top, filepath.Join(sub, "secrets", "a.sops.txt")); !errors.Is(err, ErrNoRule) {
		t.Fatalf("the nearest file decides: %v", err)
	}
}

func TestWriteDocumentNeverReplacesAndLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b.sops.json")
	if err := writeDocument(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := writeDocument(p, []byte("two")); !errors.Is(err, ErrExists) {
		t.Fatalf("second write: %v", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "one" {
		t.Fatalf("replaced: %q", b)
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Fatalf("leftovers: %v", ents)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	leftover := filepath.Join(dir, "a", ".c.sops.json.123"+tempSuffix)
	if err := os.WriteFile(leftover, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := removeLeftovers(dir); n != 1 {
		t.Fatalf("removed %d leftovers", n)
	}
}

// TestWriteDocumentWithoutHardLinks: where link(2) fails for another
// reason than a taken name (a file system without hard links), the
// document is renamed into place when its path is free, and a taken path
// is refused (ErrExists) with the file there untouched; no temporary file
// is left either way.
func TestWriteDocumentWithoutHardLinks(t *testing.T) {
	link = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }
	t.Cleanup(func() { link = os.Link })
	dir := t.TempDir()
	p := filepath.Join(dir, "d.sops.txt")
	if err := writeDocument(p, []byte("one")); err != nil {
		t.Fatalf("free path: %v", err)
	}
	if err := writeDocument(p, []byte("two")); !errors.Is(err, ErrExists) {
		t.Fatalf("taken path: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("the document holds %q, want %q", b, "one")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("leftovers: %v", ents)
	}
}

func TestMatching(t *testing.T) {
	names := []string{"app/a", "app/b/c", "app/bd"}
	got := matching(names, "app", []string{"b*"})
	if strings.Join(got, ",") != "app/bd" {
		t.Fatalf("matching = %v", got)
	}
	if len(matching(names, "app", nil)) != 3 {
		t.Fatal("no glob keeps every name")
	}
}

// TestRegression_DryRunPromisedADocumentWithoutACreationRule: the dry run,
// which reads no value, checks the creation rule of every suffix the value
// could give the document (.sops.bin only where the target stores binary):
// a rule for one suffix only, or none, is import:no-creation-rule (as the
// real run says once the value decides); a rule for every suffix, none.
func TestRegression_DryRunPromisedADocumentWithoutACreationRule(t *testing.T) {
	top := t.TempDir()
	const recip = "age1y2vz30jw397p7jk4f406p38a79jh3e4t4n92v0fh492wwlnn3ylsvtjvxm"
	rule := "creation_rules:\n  - path_regex: ^secrets/all/\n    age: " + recip + "\n" +
		"  - path_regex: ^secrets/json/.*\\.sops\\.json$\n    age: " + recip + "\n" +
		"  - path_regex: ^secrets/text/.*\\.sops\\.(json|txt)$\n    age: " + recip + "\n"
	if err := os.WriteFile(filepath.Join(top, ".sops.yaml"), []byte(rule), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target model.Target
		stem   string
		want   bool // refused
	}{
		{model.TargetSecretsManager, "secrets/all/a", false},
		{model.TargetSecretsManager, "secrets/none/a", true},
		{model.TargetSecretsManager, "secrets/json/a", true},
		{model.TargetSecretsManager, "secrets/text/a", true},
		{model.TargetParameterStore, "secrets/text/a", false},
		{model.TargetParameterStore, "secrets/json/a", true},
	} {
		var opts config.Options
		sc := config.Scope{}
		sc.Desired.Target = c.target
		opts.Scopes = []config.Scope{sc}
		req := Request{Options: opts, Git: &Git{Top: top}}
		ds := req.dryRules([]candidate{{ordinal: 1, name: "p/a", stem: c.stem}}, false)
		if got := len(ds) == 1 && ds[0].Class == diag.ImportNoCreationRule; got != c.want || len(ds) > 1 {
			t.Errorf("%s %s: %v, want refused %t", c.target, c.stem, ds, c.want)
		}
	}
}
