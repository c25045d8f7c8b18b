package decryptor

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getsops/sops/v3"
	"github.com/getsops/sops/v3/decrypt"
	"github.com/getsops/sops/v3/logging"
	"github.com/sirupsen/logrus"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

func formatOf(t testing.TB, name string) canonical.Format {
	s, ok := model.DocumentSuffix(name)
	if !ok {
		panic("no format for " + name)
	}
	return s.Format
}

// decryptSOPS must produce exactly what the SOPS library's stable entry
// point decrypt.DataWithFormat produces, for every fixture both accept, and
// must fail exactly where it fails.
// With identities reused across documents (ageIdentities shared by all
// fixtures, as within one Load) the results must be the same.
func TestDecryptSOPSMatchesDataWithFormat(t *testing.T) {
	t.Run("fresh-identities", func(t *testing.T) { matchDataWithFormat(t, nil) })
	t.Run("reused-identities", func(t *testing.T) { matchDataWithFormat(t, &ageIdentities{}) })
}

func matchDataWithFormat(t *testing.T, ages *ageIdentities) {
	for _, dir := range []string{cur, "sops-" + oldSOPS} {
		entries, err := os.ReadDir(filepath.Join(testdata, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			data := fixture(t, filepath.Join(dir, name))
			f := formatOf(t, name)
			ours, fail := decryptSOPS(data, f, &keySources{ages: ages, allow: defaultAllow})
			theirs, err := decrypt.DataWithFormat(data, sopsFormat(f))
			if (fail == nil) != (err == nil) {
				t.Errorf("%s/%s: ours failed=%v (%v), DataWithFormat err=%v", dir, name, fail != nil, fail, err != nil)
				continue
			}
			if fail == nil && !bytes.Equal(ours, theirs) {
				t.Errorf("%s/%s: plaintext differs from DataWithFormat", dir, name)
			}
		}
	}
}

// The SOPS library's own error for a plaintext value inside an encrypted
// file echoes that value; ours carries only a class.
func TestDecryptFailureNeverCarriesLibraryText(t *testing.T) {
	data := fixture(t, cur+"/injected.sops.json")
	_, err := decrypt.DataWithFormat(data, sopsFormat(canonical.JSON))
	if err == nil || !strings.Contains(err.Error(), "injected-FIXTURE") {
		t.Fatalf("premise: SOPS's error should echo the plaintext, got %v", err)
	}
	_, fail := decryptSOPS(data, canonical.JSON, nil)
	if fail == nil || fail.class != diag.DecryptNotEncrypted {
		t.Fatalf("got %+v", fail)
	}
	for _, s := range []string{fail.what, fail.next} {
		if strings.Contains(s, "injected") || strings.Contains(s, "ENC[") {
			t.Fatalf("failure text leaks: %q", s)
		}
	}
}

// The one place that reads SOPS error text: pinned on real fixtures so a
// wording change in SOPS fails here instead of misclassifying quietly. A
// clear-text value where the document's rules say ciphertext is found
// before (structure.go) and is decrypt:not-encrypted (SPEC §15: rotate).
func TestClassifyTreeErrorOnRealFixtures(t *testing.T) {
	for name, class := range map[string]string{
		"tampered.sops.json": diag.DecryptMACMismatch,
		"injected.sops.json": diag.DecryptNotEncrypted,
	} {
		_, fail := decryptSOPS(fixture(t, cur+"/"+name), canonical.JSON, nil)
		if fail == nil || fail.class != class {
			t.Errorf("%s: %+v, want %s", name, fail, class)
		}
	}
}

func TestSOPSLoggingIsSilenced(t *testing.T) {
	if len(logging.Loggers) == 0 {
		t.Fatal("premise: SOPS registers its loggers at init")
	}
	decryptSOPS(fixture(t, cur+"/good.sops.yaml"), canonical.YAML, nil)
	for name, l := range logging.Loggers {
		if l.Out != io.Discard || l.GetLevel() != logrus.PanicLevel {
			t.Errorf("SOPS logger %s still writes (out %T, level %v)", name, l.Out, l.GetLevel())
		}
	}
}

func TestDecryptPanicBecomesMalformed(t *testing.T) {
	out, fail := recoverAs(failPanic, func() ([]byte, *decryptFailure) { panic("library bug echoing s3cr3t") })
	if out != nil || fail != failPanic || fail.class != diag.DecryptMalformed {
		t.Fatalf("got %q %+v", out, fail)
	}
	// Odd inputs are classified, never a crash.
	for _, in := range [][]byte{nil, {}, []byte("sops:"), []byte(`{"sops":{}}`), []byte(`{"sops":1}`), []byte("sops_version=1\n")} {
		for _, f := range []canonical.Format{canonical.JSON, canonical.YAML, canonical.Dotenv} {
			if _, fail := decryptSOPS(in, f, nil); fail == nil {
				t.Errorf("%q as %v decrypted", in, f)
			}
		}
	}
}

// FuzzDecryptSOPS: arbitrary committed bytes never crash the process and
// always yield a known class.
func FuzzDecryptSOPS(f *testing.F) {
	for _, name := range []string{"good.sops.json", "good.sops.yaml", "good.sops.env", "mac-mismatch.sops.json"} {
		f.Add(fixture(f, cur+"/"+name), uint8(formatOf(nil, name)))
	}
	known := map[string]bool{diag.DecryptNotEncrypted: true, diag.DecryptMalformed: true, diag.DecryptNoKey: true,
		diag.DecryptMACMismatch: true, diag.DecryptKeyService: true, diag.DecryptKeyNotAllowed: true}
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		fm := canonical.Format(format%3 + 1)
		_, fail := decryptSOPS(data, fm, nil)
		if fail != nil && !known[fail.class] {
			t.Fatalf("unknown class %s", fail.class)
		}
	})
}

// TestSizeCapIsInclusive: a document of exactly --max-encrypted-bytes is
// decrypted, one byte more is source:too-large (not parsed), and 0 sets no
// bound; Check (validate --no-decrypt) draws the same line.
func TestSizeCapIsInclusive(t *testing.T) {
	doc := fixture(t, cur+"/good.sops.json")
	for _, c := range []struct {
		max  int64
		want string // "" for decrypted
	}{
		{int64(len(doc)), ""},
		{int64(len(doc)) - 1, diag.SourceTooLarge},
		{0, ""},
	} {
		d := New(t.Context(), Options{MaxEncryptedBytes: c.max, KeyServices: defaultAllow})
		if e := d.Check(doc, model.JSON); (c.want == "") != (e == nil) || e != nil && e.Class != c.want {
			t.Errorf("Check, max %d for %d bytes: %v, want %q", c.max, len(doc), e, c.want)
		}
		plain, e := d.Decrypt(doc, model.JSON)
		switch {
		case c.want == "" && (e != nil || len(plain) == 0):
			t.Errorf("max %d for %d bytes: %v, want the plaintext", c.max, len(doc), e)
		case c.want != "" && (e == nil || e.Class != c.want || plain != nil):
			t.Errorf("max %d for %d bytes: %v, want %s", c.max, len(doc), e, c.want)
		}
	}
}

// TestDepthLimitIsInclusive: a document nested exactly canonical.MaxDepth
// deep decrypts; one level more is plaintext:too-deep before any key is
// asked for, in objects and in arrays alike.
func TestDepthLimitIsInclusive(t *testing.T) {
	d := New(t.Context(), Options{KeyServices: defaultAllow})
	for name, want := range map[string]string{
		"deep/depth100.sops.json": "", "deep/depth100.sops.yaml": "",
		"deep/depth101.sops.json": diag.PlaintextTooDeep, "deep/depth101.sops.yaml": diag.PlaintextTooDeep,
	} {
		_, e := d.Decrypt(fixture(t, name), formatOf(t, name))
		if got := ""; e != nil {
			got = e.Class
			if got != want {
				t.Errorf("%s: %s, want %q", name, got, want)
			}
		} else if want != "" {
			t.Errorf("%s decrypted, want %s", name, want)
		}
	}
	// The root object is depth 1, so depth−1 arrays inside it reach depth.
	nest := func(depth int) sops.TreeBranches {
		var v any = "leaf"
		for range depth - 1 {
			v = []any{v}
		}
		return sops.TreeBranches{{{Key: "a", Value: v}}}
	}
	if branchesTooDeep(nest(canonical.MaxDepth)) {
		t.Error("arrays nested to exactly MaxDepth are refused")
	}
	if !branchesTooDeep(nest(canonical.MaxDepth + 1)) {
		t.Error("arrays nested one level past MaxDepth are accepted")
	}
}
