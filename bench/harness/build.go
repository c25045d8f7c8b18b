package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Binaries are the paths of the built CLI and emulator.
type Binaries struct {
	CLI      string
	Emulator string
}

// Build builds the CLI and the emulator from the module at root into dir the
// way releases are built (CGO_ENABLED=0, -trimpath, stripped).
func Build(root, dir string) (Binaries, error) {
	b := Binaries{CLI: filepath.Join(dir, "sops-aws-sync"), Emulator: filepath.Join(dir, "secretsmanager-emulator")}
	if err := BuildPackage(root, "./cmd/sops-aws-sync", b.CLI); err != nil {
		return Binaries{}, err
	}
	if err := BuildPackage(root, "./cmd/secretsmanager-emulator", b.Emulator); err != nil {
		return Binaries{}, err
	}
	return b, nil
}

// BuildPackage builds one main package of the module at root into out
// (CGO_ENABLED=0, -trimpath, stripped).
func BuildPackage(root, pkg, out string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v: %s", pkg, err, strings.TrimSpace(errb.String()))
	}
	return nil
}
