package desired

import (
	"context"
	"errors"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// document is one selected tree entry.
type document struct {
	path    string // repo-relative, slash-separated
	rel     string // relative to the source root
	suffix  string
	format  canonical.Format
	hash    plumbing.Hash
	mode    filemode.FileMode
	ordinal int
	name    string
}

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

// readError is a committed object that exists but cannot be read
// (corrupt); objectError tells it from an absent one.
func readError() *diag.Diagnostic {
	return scopeError(ClassGitRead, "", "")
}

// findRoot returns the tree at the slash-separated root below t; "." is t.
func findRoot(repo *repository, t *object.Tree, root string) (*object.Tree, *diag.Diagnostic) {
	missing := scopeError(ClassSourceMissingRoot, "", "")
	if root == "." {
		return t, nil
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
		if found == nil || found.Mode != filemode.Dir {
			return nil, missing
		}
		next, err := repo.TreeObject(found.Hash)
		if err != nil {
			return nil, repo.objectError(err)
		}
		cur = next
	}
	return cur, nil
}

// walk lists every selected entry under t (recursively), with rel paths
// relative to t. Unlike object.TreeWalker it fails on a subtree it cannot
// read instead of silently skipping it: a silently shorter desired set would
// turn into deletions.
func walk(ctx context.Context, repo *repository, t *object.Tree, base string, out *[]*document) *diag.Diagnostic {
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
		*out = append(*out, &document{rel: rel, suffix: suf.Suffix, format: suf.Format, hash: e.Hash, mode: e.Mode})
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
func blobSize(repo *repository, h plumbing.Hash) (int64, error) {
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
func readBlob(repo *repository, h plumbing.Hash, max int64) ([]byte, error) {
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

// selectDocuments walks the committed tree under the source root, assigns
// ordinals in repo-path order and names, and checks every structural rule
// (SPEC §3.1, §3.4) for every document before any decryption. It returns
// the documents, or the one diagnostic that stopped the walk (tree, root,
// interruption), or the diagnostics of every structurally invalid
// document in ordinal order (issue 13 item 5).
func selectDocuments(ctx context.Context, repo *repository, commit *object.Commit, o *normalized) ([]*document, *diag.Diagnostic, []*diag.Diagnostic) {
	tree, err := repo.TreeObject(commit.TreeHash)
	if err != nil {
		return nil, repo.objectError(err), nil
	}
	root, e := findRoot(repo, tree, o.root)
	if e != nil {
		return nil, e, nil
	}
	var docs []*document
	if e := walk(ctx, repo, root, "", &docs); e != nil {
		return nil, e, nil
	}
	for _, d := range docs {
		if o.root == "." {
			d.path = d.rel
		} else {
			d.path = path.Join(o.root, d.rel)
		}
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].path < docs[j].path })
	byName := make(map[string]*document, len(docs))
	var invalid []*diag.Diagnostic
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, interrupted(err), nil
		}
		d.ordinal = i + 1
		e, stop := checkDocument(repo, d, o, byName)
		switch {
		case stop:
			return nil, e, nil
		case e != nil:
			invalid = append(invalid, e)
		}
	}
	if len(invalid) > 0 {
		return nil, nil, invalid
	}
	return docs, nil, nil
}

// checkDocument checks one document's structure (file type, size, LFS
// pointer, name rule, collision with an earlier document) and records its
// name in byName; it returns the document's diagnostic or nil. stop is set
// when the repository itself cannot be read (an object that cannot be
// read or is missing from a partial clone): one diagnostic for the
// repository, not one per document.
func checkDocument(repo *repository, d *document, o *normalized, byName map[string]*document) (_ *diag.Diagnostic, stop bool) {
	if !isRegular(d.mode) {
		return docError(ClassSourceNotRegular, d, o.show, "", ""), false
	}
	size, err := blobSize(repo, d.hash)
	if err != nil {
		return withDoc(repo.objectError(err), d, o.show), true
	}
	if size > o.maxBytes {
		return docError(ClassSourceTooLarge, d, o.show, "", ""), false
	}
	if e := checkNotLFSPointer(repo, d, size, o.show); e != nil {
		return e, diag.FamilyOf(e.Class) == diag.FamilyGit
	}
	stem := strings.TrimSuffix(d.rel, d.suffix)
	if stem == "" || strings.HasSuffix(stem, "/") {
		return docError(ClassNameInvalid, d, o.show,
			"the document's file name is only a suffix, so it names no secret",
			"give the file a name before its .sops.* suffix"), false
	}
	d.name = model.SecretName(o.prefix, d.rel, d.suffix)
	if err := model.ValidateName(d.name); err != nil {
		what, next := nameReason(err)
		return docError(ClassNameInvalid, d, o.show, what, next), false
	}
	if prev, dup := byName[d.name]; dup {
		what := "the document maps to the same secret name as document " + o.redaction().Label(prev.ordinal, prev.path)
		return docError(ClassNameCollision, d, o.show, what, ""), false
	}
	byName[d.name] = d
	return nil, false
}
