package gitsource

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Document is one selected tree entry: a blob (or what stands in a blob's
// place: a symlink, a submodule) whose name has a document suffix
// (model.DocumentSuffix).
type Document struct {
	// Path is repo-relative and slash-separated.
	Path string
	// Rel is Path relative to the source root.
	Rel string
	// Suffix is the document's kind, chosen by its name.
	Suffix model.Suffix
	hash   plumbing.Hash
	mode   filemode.FileMode
}

// Blob is the Git blob id of the document's bytes (40 hex): two documents
// with one id have the same bytes.
func (d Document) Blob() string { return d.hash.String() }

// namesCommit reports whether rev's syntax can only name a commit.
// go-git's ResolveRevision ignores the suffixes that select another object
// or another history (":path", "^{tree}", "^{blob}", "^{tag}", "@{...}") and
// returns the commit before them, so they are refused here: ref names
// cannot contain ':' or "@{" (git-check-ref-format), and only the peel
// suffixes "^{}" and "^{commit}" and the message search "^{/regex}" keep
// the result a commit.
func namesCommit(rev string) bool {
	for i := 0; i < len(rev); i++ {
		switch {
		case rev[i] == ':':
			return false
		case strings.HasPrefix(rev[i:], "@{"):
			return false
		case strings.HasPrefix(rev[i:], "^{"):
			end := strings.IndexByte(rev[i+2:], '}')
			if end < 0 {
				return false
			}
			switch arg := rev[i+2 : i+2+end]; {
			case arg == "", arg == "commit", strings.HasPrefix(arg, "/"):
			default:
				return false
			}
			i += 2 + end
		}
	}
	return true
}

// MissingRoot says what List does with a source root that has no entry in
// the commit (SPEC §5's empty-scope gate).
type MissingRoot int

const (
	// MissingRootFails: an absent root is source:missing-root.
	MissingRootFails MissingRoot = iota
	// MissingRootIsEmpty: an absent root lists no document, so the scope's
	// desired set is empty. Deleting every document of a scope deletes its
	// directory (Git keeps no empty directory), so this is how a scope
	// retires; the loader asks for it only when allow-empty is set. A root
	// that names a file, or lies under a file, is source:missing-root
	// either way: that is a wrong source root, not a retired one.
	MissingRootIsEmpty
)

// findRoot returns the tree at the slash-separated root below t; "." is t.
// absent is set (and the tree nil) when some component of root has no
// entry at all; a component that is not a directory is source:missing-root.
func findRoot(repo *Repository, t *object.Tree, root string) (_ *object.Tree, absent bool, _ *diag.Diagnostic) {
	missing := problem(diag.SourceMissingRoot, "", "")
	if root == "." {
		return t, false, nil
	}
	cur := t
	for _, part := range strings.Split(root, "/") {
		var found *object.TreeEntry
		for i := range cur.Entries {
			if cur.Entries[i].Name == part {
				found = &cur.Entries[i]
				break
			}
		}
		if found == nil {
			return nil, true, missing
		}
		if found.Mode != filemode.Dir {
			return nil, false, missing
		}
		next, err := repo.TreeObject(found.Hash)
		if err != nil {
			return nil, false, repo.objectError(err)
		}
		cur = next
	}
	return cur, false, nil
}

// walk lists every selected entry under t (recursively), with rel paths
// relative to t. Unlike object.TreeWalker it fails on a subtree it cannot
// read instead of silently skipping it: a silently shorter desired set would
// turn into deletions.
func walk(ctx context.Context, repo *Repository, t *object.Tree, base string, out *[]Document) *diag.Diagnostic {
	if err := ctx.Err(); err != nil {
		return interrupted(err)
	}
	for _, e := range t.Entries {
		rel := e.Name
		if base != "" {
			rel = base + "/" + e.Name
		}
		if e.Mode == filemode.Dir {
			sub, err := repo.TreeObject(e.Hash)
			if err != nil {
				return repo.objectError(err)
			}
			if e := walk(ctx, repo, sub, rel, out); e != nil {
				return e
			}
			continue
		}
		suf, ok := model.DocumentSuffix(e.Name)
		if !ok {
			continue
		}
		*out = append(*out, Document{Rel: rel, Suffix: suf, hash: e.Hash, mode: e.Mode})
	}
	return nil
}

// isRegular reports whether a tree entry is a regular blob (plain or
// executable; 100664 is an old spelling of a regular file).
func isRegular(m filemode.FileMode) bool {
	return m == filemode.Regular || m == filemode.Executable || m == filemode.Deprecated
}

// blobSize returns a blob's size from its object header, before reading the
// content (SPEC §3.1: checked before reading).
func blobSize(repo *Repository, h plumbing.Hash) (int64, error) {
	type sizer interface {
		EncodedObjectSize(plumbing.Hash) (int64, error)
	}
	if s, ok := repo.Storer.(sizer); ok {
		if n, err := s.EncodedObjectSize(h); err == nil {
			return n, nil
		}
	}
	// Objects in alternates, or a storer without the fast path.
	b, err := repo.BlobObject(h)
	if err != nil {
		return 0, err
	}
	return b.Size, nil
}

// readBlob reads at most max bytes of a blob; errTooLarge if it is longer.
func readBlob(repo *Repository, h plumbing.Hash, max int64) ([]byte, error) {
	b, err := repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	if b.Size > max {
		return nil, errBlobTooLarge
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errBlobTooLarge
	}
	return data, nil
}

var errBlobTooLarge = errors.New("blob larger than the limit")

// List walks the committed tree of c under root (a clean repo-relative
// path, "." for the whole tree; model.CleanSourceRoot) and returns every
// entry whose name has a document suffix, sorted by Path (byte order). A
// root that is not a directory is source:missing-root; one that does not
// exist is too, unless missing is MissingRootIsEmpty (then no document and
// no diagnostic); a tree that is absent from the clone is
// git:object-missing, one that cannot be read git:read; a cancelled ctx is
// interrupted. The walk is its own recursion, not object.TreeWalker: the
// walker silently stops at a subtree it cannot load, and a silently
// shorter desired set would turn into deletions.
func (r *Repository) List(ctx context.Context, c Commit, root string, missing MissingRoot) ([]Document, *diag.Diagnostic) {
	tree, err := r.TreeObject(c.tree)
	if err != nil {
		return nil, r.objectError(err)
	}
	rootTree, absent, e := findRoot(r, tree, root)
	if absent && missing == MissingRootIsEmpty {
		return nil, nil
	}
	if e != nil {
		return nil, e
	}
	var docs []Document
	if e := walk(ctx, r, rootTree, "", &docs); e != nil {
		return nil, e
	}
	for i := range docs {
		docs[i].Path = docs[i].Rel
		if root != "." {
			docs[i].Path = path.Join(root, docs[i].Rel)
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].Path < docs[j].Path })
	return docs, nil
}

// RootTree returns the id (40 lower-case hex) of the Git tree at root in
// commit c: what a reviewed plan binds its scope's source to (SPEC §14; a
// merge or squash commit with the same tree is the same source). A root
// that is not a directory is source:missing-root; one that does not exist
// is too, unless missing is MissingRootIsEmpty: then it is the id of the
// empty tree (as List lists no document); a tree that is absent or
// unreadable is git:object-missing or git:read.
func (r *Repository) RootTree(c Commit, root string, missing MissingRoot) (string, *diag.Diagnostic) {
	tree, err := r.TreeObject(c.tree)
	if err != nil {
		return "", r.objectError(err)
	}
	rootTree, absent, e := findRoot(r, tree, root)
	if absent && missing == MissingRootIsEmpty {
		return plumbing.ComputeHash(plumbing.TreeObject, nil).String(), nil
	}
	if e != nil {
		return "", e
	}
	return rootTree.Hash.String(), nil
}

// Check applies the Git side of the structural rules to one document
// (SPEC §3.1), before any of it is decrypted: a regular blob (modes
// 100644, 100755, 100664; a symlink or submodule is source:not-regular-file),
// at most maxBytes by its object header (source:too-large, decided before
// the content is read), not a Git LFS pointer (source:lfs-pointer). The
// diagnostic has no subject: the caller knows the document's ordinal and
// whether its path may be shown. stop is set when the repository itself
// cannot be read (git:read, or git:object-missing in a partial clone): one
// diagnostic for the repository, not one per document.
func (r *Repository) Check(d Document, maxBytes int64) (_ *diag.Diagnostic, stop bool) {
	if !isRegular(d.mode) {
		return problem(diag.SourceNotRegular, "", ""), false
	}
	size, err := blobSize(r, d.hash)
	if err != nil {
		return r.objectError(err), true
	}
	if size > maxBytes {
		return problem(diag.SourceTooLarge, "", ""), false
	}
	if e := checkNotLFSPointer(r, d, size); e != nil {
		return e, diag.FamilyOf(e.Class) == diag.FamilyGit
	}
	return nil, false
}

// Read returns the committed bytes of d, reading at most maxBytes
// (source:too-large when the blob is longer; git:read or
// git:object-missing when it cannot be read). The diagnostic has no
// subject, as for Check. Not safe for concurrent use (go-git repositories
// are not).
func (r *Repository) Read(d Document, maxBytes int64) ([]byte, *diag.Diagnostic) {
	data, err := readBlob(r, d.hash, maxBytes)
	switch {
	case err == errBlobTooLarge:
		return nil, problem(diag.SourceTooLarge, "", "")
	case err != nil:
		return nil, r.objectError(err)
	}
	return data, nil
}

// problem builds a diagnostic of a registered class without a subject;
// what and next are "" for the registry's summary and next action (the
// usual case), or a precise reason within the class that calls for its own
// action (a repository format, an ambiguous SHA).
func problem(class, what, next string) *diag.Diagnostic {
	e := diag.New(class, diag.Subject{}).WithSummary(what).WithNext(next)
	return &e
}

// interrupted is the walk's diagnostic when ctx ends; the caller that
// composes the load words it.
func interrupted(cause error) *diag.Diagnostic {
	e := diag.New(diag.Interrupted, diag.Subject{}).WithCause(cause)
	return &e
}

// objectError classifies a failure to load a committed object: absent from
// the clone (diag.GitObjectMissing: go-git's plumbing.ErrObjectNotFound,
// which a partial clone gives for every object it did not fetch; go-git
// never fetches from a promisor remote, and neither do we) or present but
// unreadable (diag.GitRead).
func (r *Repository) objectError(err error) *diag.Diagnostic {
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return problem(diag.GitRead, "", "")
	}
	what := "an object the commit needs (a document or a directory under the source root) is not in this clone"
	if r.partial {
		what = "an object the commit needs is not in this partial clone: it was filtered out (git clone --filter=blob:none fetches a blob only when it is checked out)"
	}
	// The registry's next action (fetch the blobs or widen the sparse set)
	// fits both.
	return problem(diag.GitObjectMissing, what, "")
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
func checkNotLFSPointer(repo *Repository, d Document, size int64) *diag.Diagnostic {
	if size >= lfsPointerMaxBytes {
		return nil
	}
	data, err := readBlob(repo, d.hash, lfsPointerMaxBytes)
	if err != nil {
		return repo.objectError(err)
	}
	if !isLFSPointer(data) {
		return nil
	}
	return problem(diag.SourceLFSPointer, "", "")
}
