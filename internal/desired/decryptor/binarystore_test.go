package decryptor

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getsops/sops/v3/decrypt"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// The whole-value fixtures are internal/desired's testdata/whole (written
// by the real sops CLI: go test ./internal/desired -run
// TestGenerateWholeFixtures -regen-fixtures), with their plaintexts in
// testdata/whole/plain.

const wholeClear = "cleartext-canary-value\n"

// TestWholeValueFixturesDecryptToTheFileBytes: the decrypted value is the
// file byte for byte (CRLF, a trailing newline, NUL, bytes that are not
// UTF-8), as SOPS's own DataWithFormat gives it.
func TestWholeValueFixturesDecryptToTheFileBytes(t *testing.T) {
	for name, want := range map[string][]byte{"cert.sops.txt": fixture(t, "whole/plain/cert.txt"), "keystore.sops.bin": fixture(t, "whole/plain/keystore.bin")} {
		data := fixture(t, "whole/"+name)
		f := formatOf(t, name)
		got, fail := decryptSOPS(data, f, nil)
		if fail != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v, %q", name, fail, got)
		}
		ref, err := decrypt.DataWithFormat(data, sopsFormat(f))
		if err != nil || !bytes.Equal(ref, want) {
			t.Fatalf("%s: DataWithFormat %v", name, err)
		}
		v, err := canonical.Canonicalize(f, got)
		if err != nil || !bytes.Equal(v, want) {
			t.Fatalf("%s: whole value %v", name, err)
		}
	}
}

// TestBinaryStoreRefusals: each envelope problem has its class, is found
// before any key is asked for (the runner holds no key here), and never
// quotes the document.
func TestBinaryStoreRefusals(t *testing.T) {
	t.Setenv("SOPS_AGE_KEY_FILE", filepath.Join(t.TempDir(), "absent"))
	for name, class := range map[string]string{
		"cleartext.sops.bin": diag.DecryptCleartextValue,
		"empty.sops.bin":     diag.PlaintextEmpty,
		"json.sops.txt":      diag.DecryptMalformed,
	} {
		data := fixture(t, "whole/"+name)
		_, fail := decryptSOPS(data, formatOf(t, name), nil)
		if fail == nil || fail.class != class {
			t.Fatalf("%s: got %+v, want %s", name, fail, class)
		}
		if strings.Contains(fail.what+fail.next, "cleartext-canary") {
			t.Fatalf("%s: the failure quotes the value", name)
		}
	}
	// SOPS itself decrypts the cleartext fixture with a valid MAC: the
	// reason it must be refused before SOPS is asked.
	t.Setenv("SOPS_AGE_KEY_FILE", mustAbs(t, filepath.Join(testdata, "keys", "age-test.txt")))
	got, err := decrypt.DataWithFormat(fixture(t, "whole/cleartext.sops.bin"), sopsFormat(canonical.Binary))
	if err != nil || string(got) != wholeClear {
		t.Fatalf("the fixture no longer shows the danger: %v", err)
	}
	if _, fail := decryptSOPS(fixture(t, "whole/cleartext.sops.bin"), canonical.Binary, nil); fail == nil || fail.class != diag.DecryptCleartextValue {
		t.Fatalf("refused with a key too: got %+v", fail)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// FuzzBinaryStore: the binary-store reader (SOPS's store plus our envelope
// check, then decryption with the test key) never panics, fails only with
// a known class whose text holds no input, and accepts only what SOPS's
// DataWithFormat decrypts to the same bytes from an envelope whose data is
// SOPS ciphertext.
func FuzzBinaryStore(f *testing.F) {
	for _, name := range []string{"cert.sops.txt", "keystore.sops.bin", "cleartext.sops.bin", "empty.sops.bin", "json.sops.txt"} {
		f.Add(fixture(f, "whole/"+name), strings.HasSuffix(name, ".txt"))
	}
	known := map[string]bool{diag.DecryptNotEncrypted: true, diag.DecryptMalformed: true, diag.DecryptNoKey: true,
		diag.DecryptMACMismatch: true, diag.DecryptKeyService: true, diag.DecryptCleartextValue: true, diag.PlaintextEmpty: true}
	f.Fuzz(func(t *testing.T, data []byte, text bool) {
		fm := canonical.Binary
		if text {
			fm = canonical.Text
		}
		out, fail := decryptSOPS(data, fm, nil)
		if fail != nil {
			if !known[fail.class] {
				t.Fatalf("unknown class %s", fail.class)
			}
			if len(data) >= 8 && strings.Contains(fail.what+fail.next, string(data)) {
				t.Fatalf("failure text holds the input")
			}
			return
		}
		var env map[string]json.RawMessage
		if json.Unmarshal(data, &env) != nil {
			t.Fatalf("accepted a document that is not a JSON object")
		}
		var d string
		if json.Unmarshal(env["data"], &d) != nil || !sopsCiphertext.MatchString(d) {
			t.Fatalf("accepted a data field that is not SOPS ciphertext")
		}
		ref, err := decrypt.DataWithFormat(data, sopsFormat(fm))
		if err != nil || !bytes.Equal(ref, out) {
			t.Fatalf("accepted what SOPS decrypts otherwise: %v", err)
		}
	})
}

// TestRegression_UnencryptedWholeValueIsNotEncrypted: a PEM block, a binary
// keystore or any text committed as .sops.txt/.sops.bin without being
// encrypted (whole-value files look alike before and after encryption) is
// decrypt:not-encrypted, whose next action says to rotate the value, as for
// JSON, YAML and dotenv; it was decrypt:malformed. A damaged encrypted file
// (truncated) stays malformed, and nothing quotes the document.
func TestRegression_UnencryptedWholeValueIsNotEncrypted(t *testing.T) {
	t.Setenv("SOPS_AGE_KEY_FILE", filepath.Join(t.TempDir(), "absent"))
	pem := "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-cleartext-canary\n-----END PRIVATE KEY-----\n"
	enc := fixture(t, "whole/cert.sops.txt")
	for _, c := range []struct {
		name  string
		data  []byte
		f     canonical.Format
		class string
	}{
		{"pem.sops.txt", []byte(pem), canonical.Text, diag.DecryptNotEncrypted},
		{"pem-crlf.sops.txt", []byte("\r\n" + strings.ReplaceAll(pem, "\n", "\r\n")), canonical.Text, diag.DecryptNotEncrypted},
		{"pem.sops.bin", []byte(pem), canonical.Binary, diag.DecryptNotEncrypted},
		{"keystore.sops.bin", append([]byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, []byte("cleartext-canary")...), canonical.Binary, diag.DecryptNotEncrypted},
		{"text-brace.sops.txt", []byte("{cleartext-canary"), canonical.Text, diag.DecryptNotEncrypted},
		{"plain-json.sops.txt", []byte(`{"data":"cleartext-canary"}`), canonical.Text, diag.DecryptNotEncrypted},
		{"empty.sops.txt", nil, canonical.Text, diag.DecryptNotEncrypted},
		{"blank.sops.bin", []byte(" \r\n\t\n"), canonical.Binary, diag.DecryptNotEncrypted},
		{"truncated.sops.txt", enc[:len(enc)/2], canonical.Text, diag.DecryptMalformed},
		{"truncated.sops.bin", enc[:len(enc)-3], canonical.Binary, diag.DecryptMalformed},
	} {
		_, fail := decryptSOPS(c.data, c.f, nil)
		if fail == nil || fail.class != c.class {
			t.Fatalf("%s: got %+v, want %s", c.name, fail, c.class)
		}
		if strings.Contains(fail.what+fail.next, "cleartext-canary") {
			t.Fatalf("%s: the failure quotes the value", c.name)
		}
	}
	if e, ok := diag.Lookup(diag.DecryptNotEncrypted); !ok || !strings.Contains(e.Next, "rotate") {
		t.Fatal("decrypt:not-encrypted no longer tells the operator to rotate")
	}
}
