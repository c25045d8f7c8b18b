package desired

import (
	"context"
	"errors"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"

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

// objectCacheSize bounds go-git's cache of decoded objects. Each document's
// blob is read once, so caching blobs only keeps them alive for the garbage
// collector to scan; the trees of one walk fit easily. go-git's default
// (96 MiB) held every encrypted document of a load: peak RSS 147 MB for
// 10,000 documents of 1 KiB, 96 MB with this cache (docs/desired-state.md).
const objectCacheSize = 4 * cache.MiByte

// openRepository opens the repository at dir (a work tree, a bare
// repository or a linked worktree). Only the object database and refs are
// used, never the working tree or the index. The returned close function
// releases the pack file descriptors kept open during the walk.
func openRepository(dir string) (*git.Repository, func(), *diag.Diagnostic) {
	bad := scopeError(ClassGitRepository, "", "")
	plain, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{
		// Linked worktrees (git worktree add) keep objects and refs in the
		// main repository's common dir.
		EnableDotGitCommonDir: true,
	})
	if err != nil {
		return nil, nil, bad
	}
	fsStorage, ok := plain.Storer.(*filesystem.Storage)
	if !ok {
		return plain, func() {}, nil
	}
	// The same object database, but with pack files kept open: by default
	// go-git reopens the pack for every object, which dominated reading
	// 1,000 documents. ExclusiveAccess lets go-git list the loose objects
	// once instead of trying to open a loose file before every packed
	// object (8 % of the CPU of loading 1,000 documents); the objects of a
	// resolved commit never change, and one that disappears mid-read (a
	// concurrent git gc) fails the load as a read error. No work tree is
	// attached.
	st := filesystem.NewStorageWithOptions(fsStorage.Filesystem(), cache.NewObjectLRU(objectCacheSize),
		filesystem.Options{MaxOpenDescriptors: 64, ExclusiveAccess: true,
			// Alternates (git clone --shared or --reference) are absolute
			// paths; by default go-git resolves them inside .git.
			AlternatesFS: osfs.New("/")})
	repo, err := git.Open(st, nil)
	if err != nil {
		st.Close()
		return nil, nil, bad
	}
	return repo, func() { st.Close() }, nil
}

// resolveCommit resolves rev once to a commit (SPEC §2.1): branches, tags
// (annotated tags are peeled), abbreviated or full SHAs, HEAD (attached or
// detached) and suffixes such as ~1, ^, ^{} and ^{commit}. A revision that
// names anything but a commit (HEAD^{tree}, HEAD:secrets, a tree or blob
// SHA, a tag of a tree) is ClassGitRevision.
func resolveCommit(repo *git.Repository, rev string) (*object.Commit, *diag.Diagnostic) {
	bad := scopeError(ClassGitRevision, "", "")
	if !namesCommit(rev) {
		return nil, bad
	}
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil || h == nil {
		return nil, bad
	}
	c, err := repo.CommitObject(*h)
	if err != nil {
		// A tag object that ResolveRevision did not peel, or a tree/blob SHA.
		if t, terr := repo.TagObject(*h); terr == nil {
			if pc, perr := t.Commit(); perr == nil {
				return pc, nil
			}
		}
		return nil, bad
	}
	return c, nil
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

func readError() *diag.Diagnostic {
	return scopeError(ClassGitRead, "", "")
}

// findRoot returns the tree at the slash-separated root below t; "." is t.
func findRoot(repo *git.Repository, t *object.Tree, root string) (*object.Tree, *diag.Diagnostic) {
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
			return nil, readError()
		}
		cur = next
	}
	return cur, nil
}

// walk lists every selected entry under t (recursively), with rel paths
// relative to t. Unlike object.TreeWalker it fails on a subtree it cannot
// read instead of silently skipping it: a silently shorter desired set would
// turn into deletions.
func walk(ctx context.Context, repo *git.Repository, t *object.Tree, base string, out *[]*document) *diag.Diagnostic {
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
				return readError()
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
func blobSize(repo *git.Repository, h plumbing.Hash) (int64, error) {
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
func readBlob(repo *git.Repository, h plumbing.Hash, max int64) ([]byte, error) {
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
// (SPEC §3.1, §3.4) before any decryption.
func selectDocuments(ctx context.Context, repo *git.Repository, commit *object.Commit, o *normalized) ([]*document, *diag.Diagnostic) {
	tree, err := commit.Tree()
	if err != nil {
		return nil, readError()
	}
	root, e := findRoot(repo, tree, o.root)
	if e != nil {
		return nil, e
	}
	var docs []*document
	if e := walk(ctx, repo, root, "", &docs); e != nil {
		return nil, e
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
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, interrupted(err)
		}
		d.ordinal = i + 1
		if !isRegular(d.mode) {
			return nil, docError(ClassSourceNotRegular, d, o.show, "", "")
		}
		size, err := blobSize(repo, d.hash)
		if err != nil {
			return nil, withDoc(readError(), d, o.show)
		}
		if size > o.maxBytes {
			return nil, docError(ClassSourceTooLarge, d, o.show, "", "")
		}
		stem := strings.TrimSuffix(d.rel, d.suffix)
		if stem == "" || strings.HasSuffix(stem, "/") {
			return nil, docError(ClassNameInvalid, d, o.show,
				"the document's file name is only a suffix, so it names no secret",
				"give the file a name before its .sops.* suffix")
		}
		d.name = model.SecretName(o.prefix, d.rel, d.suffix)
		if err := model.ValidateName(d.name); err != nil {
			what, next := nameReason(err)
			return nil, docError(ClassNameInvalid, d, o.show, what, next)
		}
		if prev, dup := byName[d.name]; dup {
			what := "the document maps to the same secret name as document " + o.redaction().Label(prev.ordinal, prev.path)
			return nil, docError(ClassNameCollision, d, o.show, what, "")
		}
		byName[d.name] = d
	}
	return docs, nil
}
