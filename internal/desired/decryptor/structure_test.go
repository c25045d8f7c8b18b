package decryptor

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

func checkClass(t *testing.T, d *Decryptor, rel string) string {
	t.Helper()
	e := d.Check(fixture(t, rel), formatOf(t, rel))
	if e == nil {
		return ""
	}
	return e.Class
}

// TestCheckFindsEveryStructuralFailureWithoutAKey: the structural checks
// (validate --no-decrypt) give the classes Decrypt gives for the same
// documents, and pass documents whose defects only a key can see.
func TestCheckFindsEveryStructuralFailureWithoutAKey(t *testing.T) {
	t.Setenv("SOPS_AGE_KEY_FILE", filepath.Join(t.TempDir(), "absent"))
	d := New(context.Background(), Options{KeyServices: defaultAllow})
	for rel, want := range map[string]string{
		cur + "/good.sops.json":          "",
		cur + "/good.sops.yaml":          "",
		cur + "/good.sops.yml":           "",
		cur + "/good.sops.env":           "",
		cur + "/wrong-key.sops.json":     "", // only a key can tell
		cur + "/tampered.sops.json":      "", // only the data key can verify the MAC
		cur + "/bom.sops.env":            "", // a plaintext rule
		cur + "/not-encrypted.sops.json": diag.DecryptNotEncrypted,
		cur + "/not-encrypted.sops.yaml": diag.DecryptNotEncrypted,
		cur + "/not-encrypted.sops.env":  diag.DecryptNotEncrypted,
		cur + "/injected.sops.json":      diag.DecryptNotEncrypted,
		cur + "/truncated.sops.json":     diag.DecryptMalformed,
		cur + "/wrong-format.sops.json":  diag.DecryptMalformed,
		"whole/cert.sops.txt":            "",
		"whole/keystore.sops.bin":        "",
		"whole/cleartext.sops.bin":       diag.DecryptCleartextValue,
		"whole/empty.sops.bin":           diag.PlaintextEmpty,
		"deep/depth101.sops.json":        diag.PlaintextTooDeep,
		"deep/depth100.sops.yaml":        "",
		"sops-3.9.4/good.sops.yaml":      "",
	} {
		if got := checkClass(t, d, rel); got != want {
			t.Errorf("%s: Check class %q, want %q", rel, got, want)
		}
	}
	// A plain PEM or keystore committed under a whole-value suffix.
	for _, name := range []string{"cert.txt", "keystore.bin"} {
		suffix := ".sops.txt"
		if strings.HasSuffix(name, ".bin") {
			suffix = ".sops.bin"
		}
		f, _ := model.DocumentSuffix("x" + suffix)
		if e := d.Check(fixture(t, "whole/plain/"+name), f.Format); e == nil || e.Class != diag.DecryptNotEncrypted {
			t.Errorf("plain %s: %+v, want decrypt:not-encrypted", name, e)
		}
	}
}

// TestCheckAgreesWithDecrypt: on every committed fixture, a document Check
// refuses is refused by Decrypt (with the test key) with the same class,
// so validate --no-decrypt never reports what plan would not.
func TestCheckAgreesWithDecrypt(t *testing.T) {
	d := New(context.Background(), Options{KeyServices: defaultAllow})
	for _, dir := range []string{cur, "sops-" + oldSOPS, "whole", "deep"} {
		entries, err := os.ReadDir(filepath.Join(testdata, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, ent := range entries {
			s, ok := model.DocumentSuffix(ent.Name())
			if ent.IsDir() || !ok {
				continue
			}
			data := fixture(t, dir+"/"+ent.Name())
			ce := d.Check(data, s.Format)
			if ce == nil {
				continue
			}
			_, de := d.Decrypt(data, s.Format)
			if de == nil || de.Class != ce.Class {
				t.Errorf("%s/%s: Check %s, Decrypt %+v", dir, ent.Name(), ce.Class, de)
			}
		}
	}
}

// TestCheckRefusesKeysTheListForbids: a document whose only key is of a
// service the allow-list does not allow is decrypt:key-not-allowed
// without any key, as Decrypt reports it.
func TestCheckRefusesKeysTheListForbids(t *testing.T) {
	ageOnly, err := model.ParseKeyServices("age")
	if err != nil {
		t.Fatal(err)
	}
	d := New(context.Background(), Options{KeyServices: ageOnly})
	if got := checkClass(t, d, "kms/kms.sops.json"); got != diag.DecryptKeyNotAllowed {
		t.Fatalf("KMS document under age only: %q", got)
	}
	if got := checkClass(t, New(context.Background(), Options{KeyServices: defaultAllow}), "kms/kms.sops.json"); got != "" {
		t.Fatalf("KMS document under the default list: %q", got)
	}
}

// TestRegression_PlaintextLeafUnderTheFilesOwnRules: the leaf check reads
// the document's own rules. Under --unencrypted-suffix a clear value
// with the suffix is fine and one without it is not; under
// --encrypted-regex only the matching keys must be ciphertext. Written
// by the real sops CLI.
func TestRegression_PlaintextLeafUnderTheFilesOwnRules(t *testing.T) {
	bin, err := exec.LookPath("sops")
	if err != nil {
		t.Skip("sops CLI not on PATH")
	}
	key, err := filepath.Abs(filepath.Join(testdata, "keys", "age-test.txt"))
	if err != nil {
		t.Fatal(err)
	}
	recipient := "age1eepekhjxqh9v4g5c8uzah2q5qhqrdredw7jw395e0s73rc88r92qy36peg"
	encrypt := func(plain string, rule ...string) []byte {
		dir := t.TempDir()
		in := filepath.Join(dir, "doc.json")
		if err := os.WriteFile(in, []byte(plain), 0o600); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"--disable-version-check", "encrypt", "--age", recipient}, rule...)
		cmd := exec.Command(bin, append(args, in)...)
		cmd.Env = []string{"HOME=" + dir, "SOPS_AGE_KEY_FILE=" + key, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sops encrypt: %v", err)
		}
		return out
	}
	d := New(context.Background(), Options{KeyServices: defaultAllow})
	check := func(data []byte) string {
		if e := d.Check(data, formatOf(t, "x.sops.json")); e != nil {
			return e.Class
		}
		return ""
	}
	// cleartext replaces the value of key (a JSON member) with text.
	cleartext := func(data []byte, key, text string) []byte {
		re := regexp.MustCompile(`("` + key + `": )"ENC\[[^"]*"`)
		if !re.Match(data) {
			t.Fatalf("premise: %s is encrypted", key)
		}
		return re.ReplaceAll(data, []byte(`${1}"`+text+`"`))
	}

	suffix := encrypt(`{"user_unencrypted": "admin", "password": "s3cr3t-pw"}`, "--unencrypted-suffix", "_unencrypted")
	if !bytes.Contains(suffix, []byte(`"admin"`)) {
		t.Fatal("premise: the suffixed value stays in clear text")
	}
	if got := check(suffix); got != "" {
		t.Fatalf("valid document under unencrypted_suffix: %q", got)
	}
	if _, e := d.Decrypt(suffix, formatOf(t, "x.sops.json")); e != nil {
		t.Fatalf("premise: it decrypts: %+v", e)
	}
	if got := check(cleartext(suffix, "password", "hunter2")); got != diag.DecryptNotEncrypted {
		t.Fatalf("clear password under unencrypted_suffix: %q", got)
	}

	regex := encrypt(`{"user": "admin", "password": "s3cr3t-pw", "n": 5}`, "--encrypted-regex", "^(password|n)$")
	if got := check(regex); got != "" {
		t.Fatalf("valid document under encrypted_regex: %q", got)
	}
	if got := check(cleartext(regex, "password", "hunter2")); got != diag.DecryptNotEncrypted {
		t.Fatalf("clear password under encrypted_regex: %q", got)
	}
	// A number left in clear text where the rules say ciphertext.
	num := regexp.MustCompile(`"n": "ENC\[[^"]*"`).ReplaceAll(regex, []byte(`"n": 5`))
	if got := check(num); got != diag.DecryptNotEncrypted {
		t.Fatalf("clear number under encrypted_regex: %q", got)
	}
	// Decrypt reports the same class, without the value.
	_, e := d.Decrypt(num, formatOf(t, "x.sops.json"))
	if e == nil || e.Class != diag.DecryptNotEncrypted || strings.Contains(e.Error(), "hunter2") {
		t.Fatalf("Decrypt of the clear number: %+v", e)
	}
}
