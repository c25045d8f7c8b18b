package wirefile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File describes one kind of wire file.
type File struct {
	// Temp is the os.CreateTemp pattern of the temporary file Write and
	// Probe create in the target's directory, e.g.
	// ".sops-aws-sync-report-*.tmp".
	Temp string
	// MaxBytes caps what Read reads.
	MaxBytes int64
}

// Value is a wire file's content: Validate checks the schema's value rules
// before anything is written.
type Value interface {
	Validate() error
}

// Sentinels a *WriteError wraps when the existing target cannot be
// replaced.
var (
	ErrIsDirectory = errors.New("the path names a directory")
	ErrNotRegular  = errors.New("the path names an existing file that is not a regular file")
)

// WriteError is a failed Write, WriteJSON or Probe: the one error type of a
// wire file that could not be written. Step is the stage that failed:
// "validate", "encode", "target" (the existing target is a directory or
// not a regular file), "create", "chmod", "write", "sync", "close",
// "rename"; a probe's steps are "probe-target", "probe-create" and
// "probe-remove". The message never holds the path.
type WriteError struct {
	Step string
	Err  error
}

func (e *WriteError) Error() string { return "failed to write file (" + e.Step + ")" }
func (e *WriteError) Unwrap() error { return e.Err }

// StepOf returns the step of a *WriteError in err's chain, or "unknown".
func StepOf(err error) string {
	var we *WriteError
	if errors.As(err, &we) {
		return we.Step
	}
	return "unknown"
}

// dirOf returns the directory a write of path creates its temporary file
// in: path up to its last separator, unchanged, so the operating system
// resolves ".." and symbolic links in it exactly as it does for the final
// rename (filepath.Dir would clean "missing/../r" to ".").
func dirOf(path string) string {
	i := strings.LastIndexByte(path, '/')
	switch {
	case i < 0:
		return "."
	case i == 0:
		return "/"
	}
	return path[:i]
}

// checkTarget refuses a target that exists and is not a regular file (the
// rename would replace it), and a path that names a directory by its form
// (empty, or ending in a separator).
func checkTarget(path string) error {
	if path == "" || strings.HasSuffix(path, "/") {
		return ErrIsDirectory
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		// Not a question of the target's type (e.g. a missing directory):
		// the create step reports it.
		return nil
	case fi.IsDir():
		return ErrIsDirectory
	case !fi.Mode().IsRegular():
		return ErrNotRegular
	}
	return nil
}

// Probe proves, without touching the target, that Write can succeed at
// path: the target is absent or a regular file, and a temporary file can
// be created (and is removed again) in the directory Write uses, with
// Write's pattern. Failures are *WriteError with step probe-target,
// probe-create or probe-remove.
func (f File) Probe(path string) error {
	if err := checkTarget(path); err != nil {
		return &WriteError{"probe-target", err}
	}
	tmp, err := os.CreateTemp(dirOf(path), f.Temp)
	if err != nil {
		return &WriteError{"probe-create", err}
	}
	name := tmp.Name()
	_ = tmp.Close()
	if err := os.Remove(name); err != nil {
		return &WriteError{"probe-remove", err}
	}
	return nil
}

// WriteJSON validates v and writes it to path as indented JSON with a
// trailing newline (Marshal), atomically (Write). Failures are *WriteError.
func (f File) WriteJSON(path string, v Value) error {
	data, err := Marshal(v)
	if err != nil {
		return err
	}
	return f.Write(path, data)
}

// Marshal validates v and returns it as indented JSON with a trailing
// newline. Failures are *WriteError (step validate or encode).
func Marshal(v Value) ([]byte, error) {
	if err := v.Validate(); err != nil {
		return nil, &WriteError{"validate", err}
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, &WriteError{"encode", err}
	}
	return append(b, '\n'), nil
}

// Write writes data to path atomically with mode 0600 (see the package
// documentation). Failures are *WriteError.
func (f File) Write(path string, data []byte) (err error) {
	if err := checkTarget(path); err != nil {
		return &WriteError{"target", err}
	}
	dir := dirOf(path)
	tf, err := os.CreateTemp(dir, f.Temp)
	if err != nil {
		return &WriteError{"create", err}
	}
	tmp := tf.Name()
	defer func() {
		if err != nil {
			_ = tf.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = tf.Chmod(0o600); err != nil {
		return &WriteError{"chmod", err}
	}
	if _, err = tf.Write(data); err != nil {
		return &WriteError{"write", err}
	}
	if err = tf.Sync(); err != nil {
		return &WriteError{"sync", err}
	}
	if err = tf.Close(); err != nil {
		return &WriteError{"close", err}
	}
	if err = os.Rename(tmp, path); err != nil {
		return &WriteError{"rename", err}
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}

// SameTarget reports whether writes to a and b would replace one file
// entry, or an existing file under two names: the same path once made
// absolute and cleaned; the same name in one directory as the operating
// system resolves it (os.SameFile of the two directories: "x" and
// "d/../x", or a directory reached through a symbolic link); or two
// existing names of one file (hard links, os.SameFile).
func SameTarget(a, b string) bool {
	if abs(a) == abs(b) {
		return true
	}
	if base(a) == base(b) && base(a) != "" {
		da, ea := os.Stat(dirOf(a))
		db, eb := os.Stat(dirOf(b))
		if ea == nil && eb == nil && os.SameFile(da, db) {
			return true
		}
	}
	fa, ea := os.Lstat(a)
	fb, eb := os.Lstat(b)
	return ea == nil && eb == nil && os.SameFile(fa, fb)
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }
