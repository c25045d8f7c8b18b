package chaos

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
)

// TestInProcessEncryptionDecryptsWithTheSopsCLI proves that documents the
// campaign encrypts in process are what the real sops CLI reads: the CLI
// decrypts them (MAC verified) back to content of the same canonical value,
// for every format, and no value is left in clear.
func TestInProcessEncryptionDecryptsWithTheSopsCLI(t *testing.T) {
	sops, err := exec.LookPath("sops")
	if err != nil {
		t.Skip("sops CLI not on PATH (make tools installs it)")
	}
	dir := t.TempDir()
	enc, err := NewEncrypter(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, f := range []canonical.Format{canonical.JSON, canonical.YAML, canonical.Dotenv} {
		o := newObject(r, f == canonical.Dotenv, 0)
		d, err := makeDoc(r, "secrets/doc", f, o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := enc.Encrypt(d)
		if err != nil {
			t.Fatal(err)
		}
		if valueCanary.Match(b) {
			t.Fatalf("%s: a value is in clear", f)
		}
		p := filepath.Join(dir, "doc"+filepath.Ext(d.Path))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		typ := f.String()
		cmd := exec.Command(sops, "--disable-version-check", "decrypt", "--input-type", typ, "--output-type", typ, p)
		cmd.Env = []string{"HOME=" + dir, "SOPS_AGE_KEY_FILE=" + enc.KeyFile}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: sops decrypt failed: %v: %s", f, err, stderr.String())
		}
		c, err := canonical.Canonicalize(f, out)
		if err != nil {
			t.Fatalf("%s: decrypted output does not canonicalize: %v", f, err)
		}
		if !bytes.Equal(c, d.Canon) {
			t.Fatalf("%s: round trip through the sops CLI changed the canonical value", f)
		}
	}
}
