package wirefile

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// Sentinels a *ReadError wraps.
var (
	ErrOpen     = errors.New("the file cannot be opened")
	ErrRead     = errors.New("the file cannot be read")
	ErrTooLarge = errors.New("the file is larger than its cap")
)

// ReadError is a failed Read: Err is ErrOpen, ErrNotRegular, ErrRead or
// ErrTooLarge (compare with errors.Is). The message never holds the path.
type ReadError struct {
	Err error
}

func (e *ReadError) Error() string { return "failed to read file: " + e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Read returns the content of the regular file at path, at most
// f.MaxBytes (OpenRegular: a FIFO never blocks). Failures are *ReadError.
func (f File) Read(path string) ([]byte, error) {
	fh, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, f.MaxBytes+1))
	if err != nil {
		return nil, &ReadError{ErrRead}
	}
	if int64(len(data)) > f.MaxBytes {
		return nil, &ReadError{ErrTooLarge}
	}
	return data, nil
}

// OpenRegular opens path for reading only if it is a regular file. It
// opens with O_NONBLOCK, so a FIFO (or a device) named by path never
// blocks, and checks the opened file, so a symbolic link to a regular file
// is read. Failures are *ReadError (ErrOpen, ErrRead, ErrNotRegular).
func OpenRegular(path string) (*os.File, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &ReadError{ErrOpen}
	}
	fi, err := fh.Stat()
	switch {
	case err != nil:
		_ = fh.Close()
		return nil, &ReadError{ErrRead}
	case !fi.Mode().IsRegular():
		_ = fh.Close()
		return nil, &ReadError{ErrNotRegular}
	}
	return fh, nil
}
