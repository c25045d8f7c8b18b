package archtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// executableMagics are the first bytes of the compiled executables a Go
// build writes: ELF (Linux), Mach-O (32/64-bit, both byte orders) and PE
// ("MZ", Windows).
var executableMagics = [][]byte{
	[]byte("\x7fELF"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
	{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe},
	[]byte("MZ"),
}

// TestRegression_BuiltBinaryCommitted: a `go build` run at the repository
// root without -o wrote an 11 MB executable (containerimage) that was
// committed with the source. No tracked file may be a compiled executable:
// releases are built by scripts/release.sh, never checked in.
func TestRegression_BuiltBinaryCommitted(t *testing.T) {
	root := filepath.Join("..", "..")
	cmd := exec.Command("git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("not a Git work tree (git ls-files: %v)", err)
	}
	checked := 0
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fh, err := os.Open(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree, not yet committed
		}
		head := make([]byte, 4)
		n, _ := fh.Read(head)
		fh.Close()
		checked++
		for _, m := range executableMagics {
			if n >= len(m) && bytes.Equal(head[:len(m)], m) {
				t.Errorf("%s is a compiled executable; remove it from Git (git rm --cached) and build into bin/ or dist/", f)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d tracked files read; the check did not see the repository", checked)
	}
}
