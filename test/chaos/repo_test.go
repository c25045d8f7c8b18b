package chaos

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

func TestWriteRepoCommitsEveryRevision(t *testing.T) {
	dir := t.TempDir()
	commits := []map[string][]byte{
		{"secrets/a.sops.json": []byte("A1"), "secrets/sub/b.sops.yaml": []byte("B1"), "README.md": []byte("r")},
		{"secrets/a.sops.json": []byte("A2"), "secrets/sub-x/c.sops.yml": []byte("C"), "secrets/sub/b.sops.yaml": []byte("B1")},
	}
	shas, err := WriteRepo(dir, commits)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJunk(dir, "secrets"); err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.ResolveRevision(plumbing.Revision("HEAD"))
	if err != nil || head.String() != shas[1] {
		t.Fatalf("HEAD = %v (%v), want %s", head, err, shas[1])
	}
	tag, err := repo.ResolveRevision(plumbing.Revision("rev-0"))
	if err != nil || tag.String() != shas[0] {
		t.Fatalf("rev-0 = %v (%v), want %s", tag, err, shas[0])
	}
	for i, sha := range shas {
		c, err := repo.CommitObject(plumbing.NewHash(sha))
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && (len(c.ParentHashes) != 1 || c.ParentHashes[0].String() != shas[0]) {
			t.Fatal("revision 1 is not a child of revision 0")
		}
		tree, err := c.Tree()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		err = tree.Files().ForEach(func(f *objectFile) error {
			r, err := f.Reader()
			if err != nil {
				return err
			}
			defer r.Close()
			b, err := io.ReadAll(r)
			got[f.Name] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(commits[i]) {
			t.Fatalf("revision %d has %d files, want %d", i, len(got), len(commits[i]))
		}
		for p, want := range commits[i] {
			if got[p] != string(want) {
				t.Fatalf("revision %d: %s = %q, want %q", i, p, got[p], want)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "secrets", "untracked-junk.sops.json")); err != nil {
		t.Fatal("junk was not written to the working tree")
	}
	st, err := mustWorktreeStatus(repo)
	if err != nil {
		t.Fatal(err)
	}
	if st.IsClean() {
		t.Fatal("the working tree should differ from HEAD (junk, nothing checked out)")
	}
}
