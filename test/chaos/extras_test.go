package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// realBinaries is the set-up of a test that plays scenarios of an extra
// family against the real binaries: the CLI and the emulator in CHAOS_BIN
// (as for TestCampaignCatchesBrokenCLIs; the test is skipped without it),
// an encrypter, and dir(i), a fresh directory for scenario i.
func realBinaries(t *testing.T) (cli, emu string, enc *Encrypter, dir func(int) string) {
	t.Helper()
	bin := os.Getenv("CHAOS_BIN")
	if bin == "" {
		t.Skip("CHAOS_BIN (directory of sops-aws-sync and secretsmanager-emulator) not set")
	}
	root := t.TempDir()
	enc, err := NewEncrypter(root)
	if err != nil {
		t.Fatal(err)
	}
	dir = func(i int) string {
		d := filepath.Join(root, fmt.Sprintf("s%d", i))
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return filepath.Join(bin, "sops-aws-sync"), filepath.Join(bin, "secretsmanager-emulator"), enc, dir
}
