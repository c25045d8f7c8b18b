package desired

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getsops/sops/v3/decrypt"
	"github.com/getsops/sops/v3/logging"
	"github.com/sirupsen/logrus"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
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
		entries, err := os.ReadDir(filepath.Join("testdata", dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			data := fixture(t, filepath.Join(dir, name))
			f := formatOf(t, name)
			ours, fail := decryptSOPS(data, f, &keySources{ages: ages})
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
	if fail == nil || fail.class != ClassDecryptMalformed {
		t.Fatalf("got %+v", fail)
	}
	for _, s := range []string{fail.what, fail.next} {
		if strings.Contains(s, "injected") || strings.Contains(s, "ENC[") {
			t.Fatalf("failure text leaks: %q", s)
		}
	}
}

// The one place that reads SOPS error text: pinned on real fixtures so a
// wording change in SOPS fails here instead of misclassifying quietly.
func TestClassifyTreeErrorOnRealFixtures(t *testing.T) {
	for name, class := range map[string]string{
		"tampered.sops.json": ClassDecryptMACMismatch,
		"injected.sops.json": ClassDecryptMalformed,
	} {
		_, fail := decryptSOPS(fixture(t, cur+"/"+name), canonical.JSON, nil)
		if fail == nil || fail.class != class {
			t.Errorf("%s: %+v, want %s", name, fail, class)
		}
	}
}

// TestAgeIdentitiesLoadedOncePerLoad: SOPS's local key service re-reads
// the age identities for every document (the age key command runs once per
// document); a Load reads them once per recipient and reuses them, and the
// next Load reads them again.
func TestAgeIdentitiesLoadedOncePerLoad(t *testing.T) {
	dir := benchRepo(t, 12)
	tmp := t.TempDir()
	counter := filepath.Join(tmp, "runs")
	key, err := filepath.Abs(filepath.Join("testdata", "keys", "age-test.txt"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(tmp, "age-key-cmd")
	body := "#!/bin/sh\necho run >> '" + counter + "'\ncat '" + key + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOPS_AGE_KEY_FILE", "")
	os.Unsetenv("SOPS_AGE_KEY_FILE")
	t.Setenv("SOPS_AGE_KEY_CMD", script)
	runs := func() int {
		b, _ := os.ReadFile(counter)
		return strings.Count(string(b), "run")
	}
	opts := baseOptions(dir)
	opts.Concurrency = 1
	st, err := Load(context.Background(), opts)
	if err != nil || len(st.Secrets) != 12 {
		t.Fatalf("%v, %d secrets", err, len(st.Secrets))
	}
	if got := runs(); got != 1 {
		t.Fatalf("the age key command ran %d times for 12 documents, want 1", got)
	}
	opts.Concurrency = 4
	if _, err := Load(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	// Up to 4 decryptions may start before the first one has loaded the
	// identities; a fresh Load never reuses the previous Load's identities.
	if got := runs() - 1; got < 1 || got > 4 {
		t.Fatalf("second Load ran the age key command %d times, want 1..4", got)
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
	if out != nil || fail != failPanic || fail.class != ClassDecryptMalformed {
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
	known := map[string]bool{ClassDecryptNotEncrypted: true, ClassDecryptMalformed: true, ClassDecryptNoKey: true,
		ClassDecryptMACMismatch: true, ClassDecryptKeyService: true}
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		fm := canonical.Format(format%3 + 1)
		_, fail := decryptSOPS(data, fm, nil)
		if fail != nil && !known[fail.class] {
			t.Fatalf("unknown class %s", fail.class)
		}
	})
}
