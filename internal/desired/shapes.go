package desired

import (
	"bytes"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// objectError classifies a failure to load a committed object: absent from
// the clone (ClassGitObjectMissing: go-git's plumbing.ErrObjectNotFound,
// which a partial clone gives for every object it did not fetch; go-git
// never fetches from a promisor remote, and neither do we) or present but
// unreadable (ClassGitRead).
func (r *repository) objectError(err error) *loadErr {
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return readError()
	}
	what := "an object the commit needs (a document or a directory under the source root) is not in this clone"
	if r.partial {
		what = "an object the commit needs is not in this partial clone: it was filtered out (git clone --filter=blob:none fetches a blob only when it is checked out)"
	}
	// The registry's next action (fetch the blobs or widen the sparse set)
	// fits both.
	return scopeError(ClassGitObjectMissing, what, "")
}

// LFS pointer files (Git LFS specification, docs/spec.md of git-lfs): at
// most 1023 bytes, whose first line is "version <spec URL>"; the URL is
// https://git-lfs.github.com/spec/v1 (and, for pointers written before
// Git LFS 1.0, https://hawser.github.com/spec/v1).
const lfsPointerMaxBytes = 1024

var lfsVersionLines = [][]byte{
	[]byte("version https://git-lfs.github.com/spec/"),
	[]byte("version https://hawser.github.com/spec/"),
}

// isLFSPointer reports whether data is a Git LFS pointer.
func isLFSPointer(data []byte) bool {
	if len(data) >= lfsPointerMaxBytes {
		return false
	}
	for _, p := range lfsVersionLines {
		if bytes.HasPrefix(data, p) {
			return true
		}
	}
	return false
}

// checkNotLFSPointer is the structural check that a committed document is
// not a Git LFS pointer. Only blobs small enough to be a pointer are read
// (most SOPS documents are larger than 1 KiB, so most are not read here).
// It runs before any decryption, so a pointer fails the load before any
// key service or AWS call, with a class of its own rather than as a
// malformed SOPS document.
func checkNotLFSPointer(repo *repository, d *document, size int64, show bool) *loadErr {
	if size >= lfsPointerMaxBytes {
		return nil
	}
	data, err := readBlob(repo, d.hash, lfsPointerMaxBytes)
	if err != nil {
		return withDoc(repo.objectError(err), d, show)
	}
	if !isLFSPointer(data) {
		return nil
	}
	return docError(ClassSourceLFSPointer, d, show, "", "")
}

// loadErr is the loader's error type in the code added for issue 15: the
// registry's diagnostic (internal/diag).
type loadErr = diag.Diagnostic
