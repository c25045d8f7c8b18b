package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gowebpki/jcs"
)

// SOPSBinary finds the sops CLI: on PATH, else in $(go env GOPATH)/bin
// where `make tools` installs it.
func SOPSBinary() (string, error) {
	if p, err := exec.LookPath("sops"); err == nil {
		return p, nil
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "sops")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("the sops CLI is not installed; run `make tools`")
}

// VerifyWithSOPS decrypts one generated document with the real sops CLI
// (`sops decrypt`, age key from keyFile, HOME = home) and checks that the
// canonical form of its plaintext is want: the in-process encryption is
// then exactly what `sops encrypt` users produce.
func VerifyWithSOPS(doc, want []byte, keyFile, home string) error {
	bin, err := SOPSBinary()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-sops-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "doc.sops.json")
	if err := os.WriteFile(p, doc, 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--disable-version-check", "decrypt", "--input-type", "json", "--output-type", "json", p)
	cmd.Env = []string{"HOME=" + home, "SOPS_AGE_KEY_FILE=" + keyFile, "PATH=" + os.Getenv("PATH")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("sops decrypt failed: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	got, err := jcs.Transform(out.Bytes())
	if err != nil {
		return fmt.Errorf("sops decrypt output is not JSON: %w", err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("sops decrypt gave a different value (%d bytes, want %d)", len(got), len(want))
	}
	return nil
}
