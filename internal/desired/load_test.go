package desired

import (
	"context"
	"errors"
	"fmt"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

const cur = "sops-" + currentSOPS

// Canonical values of the "good" fixtures (testdata/plain/good.*).
const (
	wantGood    = `{"db":{"host":"db.internal","port":5432,"replicas":["a","b"],"tls":true},"none":null,"ratio":0.25,"spelled":1,"token":"t0k3n-FIXTURE","unicode":"é😀"}`
	wantGoodEnv = `{"DB_HOST":"db.internal","DB_PASSWORD":"pa=ss-FIXTURE","MULTI":"line1\nline2"}`
)

func assertClass(t *testing.T, err error, class string, ordinal int) *diag.Subject {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s", class)
	}
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 {
		t.Fatalf("error %T %v is not one diag.Diagnostics", err, err)
	}
	de := ds[0]
	if de.Class != class || de.Subject.Ordinal != ordinal {
		t.Fatalf("got %s (ordinal %d): %v; want %s (ordinal %d)", de.Class, de.Subject.Ordinal, err, class, ordinal)
	}
	if _, ok := diag.Lookup(de.Class); !ok {
		t.Fatalf("class %s is not registered", de.Class)
	}
	if !strings.HasPrefix(err.Error(), class+": ") || !strings.Contains(err.Error(), "; ") {
		t.Errorf("error text %q does not start with the class or lacks a next action", err)
	}
	return &de.Subject
}

// assertEvery checks that err reports exactly the documents ordinals, in
// order, each with class (every invalid document is reported, issue 13).
func assertEvery(t *testing.T, err error, class string, ordinals ...int) {
	t.Helper()
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != len(ordinals) {
		t.Fatalf("error %v: want %d diagnostics of %s", err, len(ordinals), class)
	}
	for i, d := range ds {
		if d.Class != class || d.Subject.Ordinal != ordinals[i] {
			t.Errorf("diagnostic %d is %s ordinal %d, want %s ordinal %d", i, d.Class, d.Subject.Ordinal, class, ordinals[i])
		}
	}
}

func TestLoadGoodFixturesCanonicalizeIdentically(t *testing.T) {
	dir, sha := newRepo(t, map[string][]byte{
		"secrets/json/good.sops.json": fixture(t, cur+"/good.sops.json"),
		"secrets/yaml/good.sops.yaml": fixture(t, cur+"/good.sops.yaml"),
		"secrets/yml/good.sops.yml":   fixture(t, cur+"/good.sops.yml"),
		"secrets/env/good.sops.env":   fixture(t, cur+"/good.sops.env"),
		"secrets/env/crlf.sops.env":   fixture(t, cur+"/crlf.sops.env"),
		"secrets/env/brace.sops.env":  fixture(t, cur+"/brace.sops.env"),
		"secrets/aliases.sops.yaml":   fixture(t, cur+"/aliases.sops.yaml"),
		"secrets/empty.sops.json":     fixture(t, cur+"/empty-object.sops.json"),
		"secrets/README.md":           []byte("not selected"),
		"secrets/plain.json":          []byte("{not selected"),
		"secrets/UPPER.SOPS.JSON":     []byte("suffixes are case-sensitive"),
		"other/outside.sops.json":     []byte("outside the source root"),
	})
	st, err := Load(context.Background(), baseOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if st.Commit != sha || len(st.Commit) != 40 {
		t.Errorf("Commit = %q, want %q", st.Commit, sha)
	}
	wantScope := model.Scope{RepositoryID: "acme/infra", SourceRoot: "secrets", Prefix: "prod/app"}
	if st.Scope != wantScope {
		t.Errorf("Scope = %+v, want %+v", st.Scope, wantScope)
	}
	want := []struct{ name, path, value string }{
		{"prod/app/aliases", "secrets/aliases.sops.yaml", `{"base":{"pass":"alias-FIXTURE","user":"app"},"copy":{"pass":"alias-FIXTURE","user":"app"}}`},
		{"prod/app/empty", "secrets/empty.sops.json", `{}`},
		{"prod/app/env/brace", "secrets/env/brace.sops.env", `{"J":"{\"value\": \"brace-FIXTURE\"}"}`},
		{"prod/app/env/crlf", "secrets/env/crlf.sops.env", `{"DB_HOST":"db.internal","DB_PASSWORD":"crlf-FIXTURE"}`},
		{"prod/app/env/good", "secrets/env/good.sops.env", wantGoodEnv},
		{"prod/app/json/good", "secrets/json/good.sops.json", wantGood},
		{"prod/app/yaml/good", "secrets/yaml/good.sops.yaml", wantGood},
		{"prod/app/yml/good", "secrets/yml/good.sops.yml", `{"api_key":"yml-FIXTURE"}`},
	}
	if len(st.Secrets) != len(want) {
		t.Fatalf("got %d secrets, want %d: %+v", len(st.Secrets), len(want), st.Secrets)
	}
	// Ordinals follow repo-path order.
	paths := []string{}
	for _, w := range want {
		paths = append(paths, w.path)
	}
	ordinal := map[string]int{}
	sortedPaths := append([]string(nil), paths...)
	sortStrings(sortedPaths)
	for i, p := range sortedPaths {
		ordinal[p] = i + 1
	}
	for i, w := range want {
		s := st.Secrets[i]
		if s.Name != w.name || s.Path != w.path || string(s.Value) != w.value {
			t.Errorf("secret %d = {%s %s %s}, want {%s %s %s}", i, s.Name, s.Path, s.Value, w.name, w.path, w.value)
		}
		if s.SourceDigest != model.SourceDigest(w.path) {
			t.Errorf("%s: source digest %s", w.path, s.SourceDigest)
		}
		if s.Ordinal != ordinal[w.path] {
			t.Errorf("%s: ordinal %d, want %d", w.path, s.Ordinal, ordinal[w.path])
		}
	}
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

// TestLoadRejectsBadFixtures is layer (a) of the bad-input table: documents
// the real sops CLI v3.13.3 encrypted (or that start from its output and
// were damaged the way hand edits and bad merges damage them), decrypted
// end to end. Layer (b), for what sops refuses to encrypt, is in
// internal/canonical (TestCanonicalizeRejects).
func TestLoadRejectsBadFixtures(t *testing.T) {
	cases := []struct {
		fixture, class string
		marker         string // plaintext that must not appear in the error
	}{
		{"bom.sops.env", diag.PlaintextBOM, "bom-FIXTURE"},
		{"dup.sops.json", diag.PlaintextDuplicateKey, "dup-FIXTURE"},
		{"dup-nested.sops.json", diag.PlaintextDuplicateKey, "dup-FIXTURE"},
		{"dup.sops.env", diag.PlaintextDuplicateKey, "dup-FIXTURE"},
		{"empty-key.sops.env", diag.PlaintextSyntax, "empty-key-FIXTURE"},
		{"comments.sops.env", diag.PlaintextEmpty, "FIXTURE"},
		{"big-int.sops.json", diag.PlaintextNumberPrecision, "bigint-FIXTURE"},
		{"int-2p53.sops.json", diag.PlaintextNumberPrecision, "p53-FIXTURE"},
		{"big-int.sops.yaml", diag.PlaintextNumberPrecision, "bigint-FIXTURE"},
		{"date.sops.yaml", diag.PlaintextUnsupportedScalar, "date-FIXTURE"},
		{"merge.sops.yaml", diag.PlaintextAnchorOrAlias, "merge-FIXTURE"},
		{"multi.sops.yaml", diag.PlaintextMultiDocument, "multi-FIXTURE"},
		{"nan.sops.yaml", diag.PlaintextNonFiniteNumber, "nan-FIXTURE"},
		{"too-large.sops.json", diag.PlaintextTooLarge, "large-FIXTURE"},
		{"wrong-key.sops.json", diag.DecryptNoKey, "wrong-key-FIXTURE"},
		{"mac-mismatch.sops.json", diag.DecryptMACMismatch, "t0k3n-FIXTURE"},
		{"tampered.sops.json", diag.DecryptMACMismatch, "t0k3n-FIXTURE"},
		{"injected.sops.json", diag.DecryptNotEncrypted, "injected-FIXTURE"},
		{"truncated.sops.json", diag.DecryptMalformed, "t0k3n-FIXTURE"},
		{"wrong-format.sops.json", diag.DecryptMalformed, "t0k3n-FIXTURE"},
		{"not-encrypted.sops.json", diag.DecryptNotEncrypted, "t0k3n-FIXTURE"},
		{"not-encrypted.sops.yaml", diag.DecryptNotEncrypted, "t0k3n-FIXTURE"},
		{"not-encrypted.sops.env", diag.DecryptNotEncrypted, "pa=ss-FIXTURE"},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			t.Parallel()
			// Two good documents around the bad one: its ordinal is 2.
			dir, _ := newRepo(t, map[string][]byte{
				"secrets/a.sops.json":    fixture(t, cur+"/good.sops.json"),
				"secrets/b-" + c.fixture: fixture(t, cur+"/"+c.fixture),
				"secrets/c.sops.env":     fixture(t, cur+"/good.sops.env"),
			})
			for _, show := range []bool{false, true} {
				opts := baseOptions(dir)
				opts.ShowResourceNames = show
				_, err := Load(context.Background(), opts)
				de := assertClass(t, err, c.class, 2)
				msg := err.Error()
				if strings.Contains(msg, c.marker) || strings.Contains(msg, "ENC[") {
					t.Errorf("error text leaks content: %q", msg)
				}
				if show {
					if de.Path != "secrets/b-"+c.fixture || !strings.Contains(msg, "document secrets/b-"+c.fixture+": ") {
						t.Errorf("with resource names the error must name the path: %q", msg)
					}
				} else if de.Path != "" || strings.Contains(msg, "b-") || !strings.Contains(msg, "document resource-0002: ") {
					t.Errorf("without resource names the error must use the ordinal only: %q", msg)
				}
			}
		})
	}
}

// Fixtures written by an older sops release still load, so a library
// regression on files the CLI handles would show up here.
func TestLoadFixturesFromOlderSOPS(t *testing.T) {
	old := "sops-" + oldSOPS
	if _, err := os.Stat(filepath.Join("testdata", old)); err != nil {
		t.Skipf("no fixtures from sops %s (see docs/desired-state.md)", oldSOPS)
	}
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/json.sops.json":    fixture(t, old+"/good.sops.json"),
		"secrets/yaml.sops.yaml":    fixture(t, old+"/good.sops.yaml"),
		"secrets/env.sops.env":      fixture(t, old+"/good.sops.env"),
		"secrets/crlf.sops.env":     fixture(t, old+"/crlf.sops.env"),
		"secrets/aliases.sops.yaml": fixture(t, old+"/aliases.sops.yaml"),
	})
	st, err := Load(context.Background(), baseOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range st.Secrets {
		got[s.Name] = string(s.Value)
	}
	want := map[string]string{
		"prod/app/json":    wantGood,
		"prod/app/yaml":    wantGood,
		"prod/app/env":     wantGoodEnv,
		"prod/app/crlf":    `{"DB_HOST":"db.internal","DB_PASSWORD":"crlf-FIXTURE"}`,
		"prod/app/aliases": `{"base":{"pass":"alias-FIXTURE","user":"app"},"copy":{"pass":"alias-FIXTURE","user":"app"}}`,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
	for f, class := range map[string]string{"merge.sops.yaml": diag.PlaintextAnchorOrAlias} {
		dir, _ := newRepo(t, map[string][]byte{"secrets/x.sops.yaml": fixture(t, old+"/"+f)})
		_, err := Load(context.Background(), baseOptions(dir))
		assertClass(t, err, class, 1)
	}
}

var errorShape = regexp.MustCompile(`^[a-z]+(:[a-z0-9-]+)?: (document resource-[0-9]{4}: )?[^;]+; .+$`)

func TestErrorTextShape(t *testing.T) {
	e := diag.Diagnostic{Class: diag.DecryptNoKey, Subject: diag.Subject{Ordinal: 3}, Summary: "no key", Next: "add one"}
	if e.Error() != "decrypt:no-key: document resource-0003: no key; add one" {
		t.Fatalf("Error() = %q", e.Error())
	}
	if !errorShape.MatchString(e.Error()) {
		t.Fatal("shape regexp does not match the reference text")
	}
	e.Subject.Path = "secrets/a\nb.sops.json"
	if got := e.Error(); !strings.Contains(got, `document "secrets/a\nb.sops.json": `) {
		t.Fatalf("a path with control characters must be quoted: %q", got)
	}
	if (diag.Diagnostic{Class: diag.GitRevision, Summary: "x", Next: "y"}).Error() != "git:revision: x; y" {
		t.Fatal("scope errors have no document part")
	}
}

// With a readable key file the document is not encrypted to, every age
// document is decrypt:no-key; the other key opens the document encrypted
// to it.
func TestLoadWithoutTheRightKeyIsNoKey(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": fixture(t, cur+"/good.sops.json")})
	other, _ := filepath.Abs("testdata/keys/age-other.txt")
	t.Setenv("SOPS_AGE_KEY_FILE", other)
	_, err := Load(context.Background(), baseOptions(dir))
	assertClass(t, err, diag.DecryptNoKey, 1)
	dir2, _ := newRepo(t, map[string][]byte{"secrets/w.sops.json": fixture(t, cur+"/wrong-key.sops.json")})
	if got := loadValues(t, baseOptions(dir2)); got["prod/app/w"] != `{"token":"wrong-key-FIXTURE"}` {
		t.Fatalf("other key: %v", got)
	}
}

// TestAgeKeyFileMissingUnreadableOrDirectoryIsKeyFile (issue 15, finding
// 6): a SOPS_AGE_KEY_FILE that names no readable file is its own diagnosis,
// naming the variable and never its value; it read as "no key" before.
func TestAgeKeyFileMissingUnreadableOrDirectoryIsKeyFile(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": fixture(t, cur+"/good.sops.json")})
	tmp := t.TempDir()
	cases := map[string]string{
		"missing":   filepath.Join(tmp, "missing-CANARYPATH.txt"),
		"directory": tmp,
		"empty":     "",
	}
	if os.Geteuid() != 0 { // root reads a mode-0000 file
		unreadable := filepath.Join(tmp, "unreadable.txt")
		os.WriteFile(unreadable, fixture(t, "keys/age-test.txt"), 0o000)
		cases["unreadable"] = unreadable
	}
	for name, keyFile := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("SOPS_AGE_KEY_FILE", keyFile)
			_, err := Load(context.Background(), baseOptions(dir))
			assertClass(t, err, diag.DecryptKeyFile, 1)
			if !strings.Contains(err.Error(), "SOPS_AGE_KEY_FILE") || (keyFile != "" && strings.Contains(err.Error(), keyFile)) {
				t.Fatalf("must name the variable, not its value: %v", err)
			}
		})
	}
	// A document another key opens is not failed by a broken variable: the
	// diagnosis is made only when an age document cannot be decrypted.
	t.Setenv("SOPS_AGE_KEY_FILE", filepath.Join(tmp, "missing.txt"))
	t.Setenv("SOPS_AGE_KEY", string(fixture(t, "keys/age-test.txt")))
	if got := loadValues(t, baseOptions(dir)); len(got) != 1 {
		t.Fatalf("SOPS_AGE_KEY must still open the document: %v", got)
	}
}

// TestLoadSecretPrefixNotRetrimmed: the prefix is trimmed once, by the
// configuration (model.CleanPrefix); Load uses it exactly as given for the
// names and the scope digest.
func TestLoadSecretPrefixNotRetrimmed(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
	opts := baseOptions(dir)
	opts.SecretPrefix = "t1"
	st, err := Load(context.Background(), opts)
	if err != nil || st.Scope.Prefix != "t1" || len(st.Secrets) != 1 || st.Secrets[0].Name != "t1/a" {
		t.Fatalf("prefix t1: %v %+v", err, st.Scope)
	}
}

// TestLoadReportsEveryInvalidDocument: three invalid documents of three
// classes among good ones are three diagnostics, in ordinal order, each
// with its class and ordinal (path only with names shown), none quoting
// content (issue 13 item 5: a team fixes them in one CI run).
func TestLoadReportsEveryInvalidDocument(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json": fixture(t, cur+"/good.sops.json"),
		"secrets/b.sops.json": fixture(t, cur+"/not-encrypted.sops.json"),
		"secrets/c.sops.yaml": fixture(t, cur+"/good.sops.yaml"),
		"secrets/d.sops.json": fixture(t, cur+"/dup.sops.json"),
		"secrets/e.sops.yaml": fixture(t, cur+"/date.sops.yaml"),
	})
	for _, show := range []bool{false, true} {
		opts := baseOptions(dir)
		opts.ShowResourceNames = show
		_, err := Load(context.Background(), opts)
		var ds diag.Diagnostics
		if !errors.As(err, &ds) {
			t.Fatalf("want diagnostics, got %v", err)
		}
		type got struct {
			class   string
			ordinal int
			path    string
		}
		want := []got{{diag.DecryptNotEncrypted, 2, ""}, {diag.PlaintextDuplicateKey, 4, ""}, {diag.PlaintextUnsupportedScalar, 5, ""}}
		if show {
			want[0].path, want[1].path, want[2].path = "secrets/b.sops.json", "secrets/d.sops.json", "secrets/e.sops.yaml"
		}
		var have []got
		for _, d := range ds {
			have = append(have, got{d.Class, d.Subject.Ordinal, d.Subject.Path})
		}
		if fmt.Sprint(have) != fmt.Sprint(want) {
			t.Errorf("show=%v: diagnostics %v, want %v", show, have, want)
		}
		if msg := err.Error(); strings.Contains(msg, "FIXTURE") || strings.Contains(msg, "ENC[") {
			t.Errorf("error text leaks content: %q", msg)
		}
	}
}

// TestCappedListsAtMostFiftyThenCounts: past MaxReportedDocuments invalid
// documents, one desired:more-invalid diagnostic counts the rest.
func TestCappedListsAtMostFiftyThenCounts(t *testing.T) {
	var invalid []*diag.Diagnostic
	for i := 1; i <= MaxReportedDocuments+7; i++ {
		d := diag.New(diag.DecryptNoKey, diag.Document(i, "", false))
		invalid = append(invalid, &d)
	}
	ds := capped(invalid)
	if len(ds) != MaxReportedDocuments+1 {
		t.Fatalf("%d diagnostics, want %d", len(ds), MaxReportedDocuments+1)
	}
	last := ds[len(ds)-1]
	if last.Class != diag.DesiredMoreInvalid || !strings.Contains(last.Summary, "and 7 more invalid documents") {
		t.Errorf("last diagnostic %v", last)
	}
	if ds[MaxReportedDocuments-1].Subject.Ordinal != MaxReportedDocuments {
		t.Errorf("the first 50 by ordinal are listed")
	}
	if got := capped(invalid[:3]); len(got) != 3 {
		t.Errorf("under the cap every document is listed, got %d", len(got))
	}
}

// When several documents fail, every one is reported in ordinal order,
// whatever the concurrency (issue 13 item 5).
func TestLoadReportsEveryFailingOrdinalInOrder(t *testing.T) {
	files := map[string][]byte{}
	for i := 0; i < 12; i++ {
		files[filepath.ToSlash(filepath.Join("secrets", string(rune('a'+i))+".sops.json"))] = good(t)
	}
	files["secrets/f.sops.json"] = fixture(t, cur+"/dup.sops.json")
	files["secrets/h.sops.json"] = fixture(t, cur+"/wrong-key.sops.json")
	files["secrets/k.sops.json"] = fixture(t, cur+"/not-encrypted.sops.json")
	dir, _ := newRepo(t, files)
	for _, c := range []int{1, 2, 8, 64} {
		opts := baseOptions(dir)
		opts.Concurrency = c
		_, err := Load(context.Background(), opts)
		var ds diag.Diagnostics
		if !errors.As(err, &ds) || len(ds) != 3 {
			t.Fatalf("concurrency %d: want 3 diagnostics, got %v", c, err)
		}
		for i, w := range []struct {
			class   string
			ordinal int
		}{{diag.PlaintextDuplicateKey, 6}, {diag.DecryptNoKey, 8}, {diag.DecryptNotEncrypted, 11}} {
			if ds[i].Class != w.class || ds[i].Subject.Ordinal != w.ordinal {
				t.Errorf("concurrency %d: diagnostic %d is %s ordinal %d, want %s ordinal %d", c, i, ds[i].Class, ds[i].Subject.Ordinal, w.class, w.ordinal)
			}
		}
	}
}

// TestLoadReportsEveryStructuralError: every structurally invalid document
// is reported before anything is decrypted — here a suffix-only file name
// and a name collision, while the undecryptable document between them is
// not reached (structure first, SPEC §3.1).
func TestLoadReportsEveryStructuralError(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json":  fixture(t, cur+"/good.sops.json"),
		"secrets/a.sops.yaml":  fixture(t, cur+"/good.sops.yaml"),
		"secrets/b.sops.json":  fixture(t, cur+"/not-encrypted.sops.json"),
		"secrets/c/.sops.json": fixture(t, cur+"/good.sops.json"),
		"secrets/d.sops.json":  fixture(t, cur+"/good.sops.json"),
	})
	_, err := Load(context.Background(), baseOptions(dir))
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 2 {
		t.Fatalf("want 2 diagnostics, got %v", err)
	}
	if ds[0].Class != diag.NameCollision || ds[0].Subject.Ordinal != 2 || ds[1].Class != diag.NameInvalid || ds[1].Subject.Ordinal != 4 {
		t.Errorf("got %v", err)
	}
}

// TestCheckFindsWhatNeedsNoKeyAndPublishesNothing: Loading.Check over a
// commit with a plaintext document and a valid one reports the plaintext
// one (its ordinal) without any key in the environment, and a valid
// commit passes with no value published.
func TestCheckFindsWhatNeedsNoKeyAndPublishesNothing(t *testing.T) {
	t.Setenv("SOPS_AGE_KEY_FILE", filepath.Join(t.TempDir(), "absent"))
	good := encryptWithLibrary(t, []byte(`{"a":"b"}`))
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json": good,
		"secrets/b.sops.json": []byte(`{"a":"plain"}`),
	})
	l, err := Open(context.Background(), baseOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	err = l.Check(context.Background(), nil)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 || ds[0].Class != diag.DecryptNotEncrypted || ds[0].Subject.Ordinal != 2 {
		t.Fatalf("got %v", err)
	}
	dir, _ = newRepo(t, map[string][]byte{"secrets/a.sops.json": good})
	l, err = Open(context.Background(), baseOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Check(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	a := l.Arrival()
	if a.Decrypted(a.Outline().Secrets[0].Name) != nil {
		t.Fatal("Check published a value")
	}
}
