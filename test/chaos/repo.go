package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// WriteRepo creates a Git repository at dir holding one commit per element
// of commits (oldest first, each the parent of the next), each a full tree
// of path → content. It writes the objects directly (no worktree, no
// index), points refs/heads/main and HEAD at the last commit, tags commit i
// as rev-<i>, and returns the commit SHAs. The working tree is then filled
// with junk (see WriteJunk): the tool must read only committed blobs.
func WriteRepo(dir string, commits []map[string][]byte) ([]string, error) {
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return nil, fmt.Errorf("failed to init repository: %w", err)
	}
	st := repo.Storer
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var shas []string
	var parent []plumbing.Hash
	for i, files := range commits {
		root, err := writeTree(st, files)
		if err != nil {
			return nil, err
		}
		sig := gitobject.Signature{Name: "Chaos Campaign", Email: "chaos@example.invalid", When: when.Add(time.Duration(i) * time.Minute)}
		c := &gitobject.Commit{Author: sig, Committer: sig, Message: fmt.Sprintf("revision %d\n", i), TreeHash: root, ParentHashes: parent}
		obj := st.NewEncodedObject()
		if err := c.Encode(obj); err != nil {
			return nil, fmt.Errorf("failed to encode commit: %w", err)
		}
		h, err := st.SetEncodedObject(obj)
		if err != nil {
			return nil, fmt.Errorf("failed to store commit: %w", err)
		}
		if err := st.SetReference(plumbing.NewHashReference(plumbing.NewTagReferenceName(fmt.Sprintf("rev-%d", i)), h)); err != nil {
			return nil, fmt.Errorf("failed to tag commit: %w", err)
		}
		shas = append(shas, h.String())
		parent = []plumbing.Hash{h}
	}
	main := plumbing.NewBranchReferenceName("main")
	if err := st.SetReference(plumbing.NewHashReference(main, parent[0])); err != nil {
		return nil, fmt.Errorf("failed to set branch: %w", err)
	}
	if err := st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, main)); err != nil {
		return nil, fmt.Errorf("failed to set HEAD: %w", err)
	}
	return shas, nil
}

// WriteJunk fills the working tree of dir with files that are not committed
// and would break a run that read them: an untracked, unencrypted document
// under each source root candidate.
func WriteJunk(dir string, roots ...string) error {
	for _, root := range roots {
		p := filepath.Join(dir, filepath.FromSlash(root), "untracked-junk.sops.json")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte("{\"not\": \"encrypted\"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

type node struct {
	files map[string]plumbing.Hash
	dirs  map[string]*node
}

func writeTree(st storer.EncodedObjectStorer, files map[string][]byte) (plumbing.Hash, error) {
	root := &node{files: map[string]plumbing.Hash{}, dirs: map[string]*node{}}
	for p, content := range files {
		obj := st.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		w, err := obj.Writer()
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if _, err := w.Write(content); err != nil {
			return plumbing.ZeroHash, err
		}
		if err := w.Close(); err != nil {
			return plumbing.ZeroHash, err
		}
		h, err := st.SetEncodedObject(obj)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("failed to store blob: %w", err)
		}
		parts := strings.Split(p, "/")
		n := root
		for _, d := range parts[:len(parts)-1] {
			c := n.dirs[d]
			if c == nil {
				c = &node{files: map[string]plumbing.Hash{}, dirs: map[string]*node{}}
				n.dirs[d] = c
			}
			n = c
		}
		n.files[parts[len(parts)-1]] = h
	}
	return storeNode(st, root)
}

// storeNode writes n's tree; entries are sorted the way Git sorts them
// (a directory compares as its name followed by "/").
func storeNode(st storer.EncodedObjectStorer, n *node) (plumbing.Hash, error) {
	var entries []gitobject.TreeEntry
	for name, h := range n.files {
		entries = append(entries, gitobject.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
	}
	for name, c := range n.dirs {
		h, err := storeNode(st, c)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, gitobject.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	key := func(e gitobject.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	t := &gitobject.Tree{Entries: entries}
	obj := st.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("failed to encode tree: %w", err)
	}
	return st.SetEncodedObject(obj)
}
