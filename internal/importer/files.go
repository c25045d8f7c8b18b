package importer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempSuffix ends the name of a document being written (never a document
// suffix, so a leftover is never selected: model.DocumentSuffix).
const tempSuffix = ".sops-aws-sync-import"

// link is os.Link (a variable so that a test can stand for a file system
// without hard links).
var link = os.Link

// ErrExists is the error of writing a document whose path is taken.
var ErrExists = errors.New("a file already exists at the document's path")

// writeDocument writes the encrypted bytes doc at the absolute path p so
// that only a whole file can ever be seen there, even after a SIGKILL
// (SPEC §18): the bytes go to a temporary file of the same directory
// (mode 0600), are synced, and the file is linked to p (link(2) refuses a
// taken name: ErrExists) and its temporary name removed; where the file
// system has no hard links, renamed after a check that p is free. The
// directories up to p are made (0700) when missing. A leftover temporary
// file holds ciphertext only.
func writeDocument(p string, doc []byte) error {
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(p)+".*"+tempSuffix)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(doc); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	switch err := link(tmp, p); {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return ErrExists
	default:
		if _, serr := os.Lstat(p); serr == nil {
			return ErrExists
		}
		if err := os.Rename(tmp, p); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// syncDir makes a directory's entries durable (best effort: some file
// systems refuse fsync on a directory).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	_ = d.Sync()
	return d.Close()
}

// isLeftover reports whether name is the temporary name of a document an
// interrupted import was writing (writeDocument).
func isLeftover(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, tempSuffix)
}

// removeLeftovers removes, under root, the temporary files an interrupted
// import left (ciphertext only), and returns how many it removed.
func removeLeftovers(root string) int {
	n := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && isLeftover(d.Name()) && os.Remove(p) == nil {
			n++
		}
		return nil
	})
	return n
}

// taken reports whether a file or directory exists at the stem with any
// document suffix, or anything (a file) at a directory the stem needs.
func taken(top, stem string, suffixes []string) bool {
	for _, s := range suffixes {
		if _, err := os.Lstat(filepath.Join(top, filepath.FromSlash(stem+s))); err == nil {
			return true
		}
	}
	dir := filepath.Dir(filepath.Join(top, filepath.FromSlash(stem)))
	for dir != top && len(dir) > len(top) {
		if st, err := os.Lstat(dir); err == nil && !st.IsDir() {
			return true
		}
		dir = filepath.Dir(dir)
	}
	return false
}

// ReplaceFile replaces the file at p with data so that a reader sees the
// old bytes or the new ones, never a part (import's rewrite of the
// --config file): a temporary file of the same directory with p's mode,
// synced, renamed over p.
func ReplaceFile(p string, data []byte) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*"+tempSuffix)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(st.Mode().Perm()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	return syncDir(filepath.Dir(p))
}
