package atomicfile

import (
	"os"
	"path/filepath"
)

// Error is a failed Write. Step is the stage that failed: create, chmod,
// write, sync, close or rename.
type Error struct {
	Step string
	Err  error
}

func (e *Error) Error() string { return "failed to write file atomically (" + e.Step + ")" }
func (e *Error) Unwrap() error { return e.Err }

// Write writes data to path atomically with mode 0600 (see the package
// documentation). tempPattern is the os.CreateTemp pattern of the temporary
// file's name, e.g. ".sops-aws-sync-report-*.tmp". Failures are *Error.
func Write(path string, data []byte, tempPattern string) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return &Error{"create", err}
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return &Error{"chmod", err}
	}
	if _, err = f.Write(data); err != nil {
		return &Error{"write", err}
	}
	if err = f.Sync(); err != nil {
		return &Error{"sync", err}
	}
	if err = f.Close(); err != nil {
		return &Error{"close", err}
	}
	if err = os.Rename(tmp, path); err != nil {
		return &Error{"rename", err}
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
