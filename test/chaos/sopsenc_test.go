package chaos

import (
	"bytes"
	"context"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired/decryptor"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
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

// TestPlantedStanzasAreDrawnAndEmitted: scenarios carry both kinds of
// planted stanza, and the encrypted document names the listener (hc_vault)
// or a role (kms) beside its age key, which still opens it.
func TestPlantedStanzasAreDrawnAndEmitted(t *testing.T) {
	seen := map[string]Doc{}
	for i := 0; i < 40 && len(seen) < 2; i++ {
		s, err := Generate(11, i, DefaultGenOptions)
		if err != nil {
			t.Fatal(err)
		}
		for _, rev := range s.Revisions {
			for _, d := range rev.Docs {
				if d.Planted != "" {
					seen[d.Planted] = d
				}
			}
		}
	}
	if len(seen) != 2 {
		t.Fatalf("planted kinds drawn in 40 scenarios: %v, want both", slices.Collect(maps.Keys(seen)))
	}
	enc, err := NewEncrypter(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOPS_AGE_KEY_FILE", enc.KeyFile)
	allow, err := model.ParseKeyServices(model.DefaultKeyServices)
	if err != nil {
		t.Fatal(err)
	}
	dec := decryptor.New(context.Background(), decryptor.Options{KeyServices: allow})
	const addr = "http://127.0.0.1:4321"
	for kind, want := range map[string]string{PlantedVault: addr, PlantedKMSRole: "role/planted"} {
		d := seen[kind]
		b, err := enc.EncryptPlanting(d, addr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(want)) || !bytes.Contains(b, []byte(enc.Recipient)) {
			t.Fatalf("%s: the encrypted document lacks the planted stanza or the age key", kind)
		}
		if _, e := dec.Decrypt(b, d.Format); e != nil {
			t.Fatalf("%s: the document does not decrypt with the default key services: %v", kind, e)
		}
	}
}
