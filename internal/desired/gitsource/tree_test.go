package gitsource

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// Text that only mentions the LFS URL later is not a pointer; a pointer is
// one whatever follows its version line.
func TestIsLFSPointer(t *testing.T) {
	pointer := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	if isLFSPointer([]byte("{\"v\": \"version https://git-lfs.github.com/spec/v1\"}")) {
		t.Fatal("a JSON document mentioning the LFS URL was taken for a pointer")
	}
	for _, p := range []string{pointer, "version https://hawser.github.com/spec/v1\n"} {
		if !isLFSPointer([]byte(p)) {
			t.Fatalf("pointer %q not recognised", p[:30])
		}
	}
}

// TestNamesCommit: only revisions whose syntax can name nothing but a
// commit pass; a path, a reflog or any peel other than ^{}, ^{commit} and
// ^{/regex} is refused, wherever it sits.
func TestNamesCommit(t *testing.T) {
	for rev, want := range map[string]bool{
		"HEAD": true, "main~2^2": true, "v1^{}": true, "v1^{commit}~1": true, "HEAD^{/fix: a}": true,
		"a^{}^{commit}^{/x}~3":     true,
		"HEAD:secrets/a.sops.json": false, "main@{1}": false, "@{-1}": false, "HEAD^{tree}": false,
		"v1^{tag}": false, "HEAD^{blob}": false, "HEAD^{": false, "HEAD^{}:x": false, "HEAD^{commit}@{1}": false,
		"x^{/a}^{tree}": false,
	} {
		if got := namesCommit(rev); got != want {
			t.Errorf("namesCommit(%q) = %v, want %v", rev, got, want)
		}
	}
}

// listed is what List returns, as "Path Rel" lines.
func listed(t *testing.T, repo *Repository, c Commit, root string) []string {
	t.Helper()
	docs, e := repo.List(t.Context(), c, root, MissingRootFails)
	if e != nil {
		t.Fatalf("List(%s): %v", root, e)
	}
	var out []string
	for _, d := range docs {
		out = append(out, d.Path+" "+d.Rel)
	}
	return out
}

// TestListWalksTheRootInPathOrder: every entry with a document suffix
// under the root, at any depth, sorted by path, with its path relative to
// the repository and to the root; other files are left out. A root that
// is absent or a file is source:missing-root (an absent one lists nothing
// with MissingRootIsEmpty); a cancelled walk is interrupted.
func TestListWalksTheRootInPathOrder(t *testing.T) {
	dir, _ := newRepo(t, map[string]string{
		"secrets/z.sops.json": "{}", "secrets/a/b/c.sops.yaml": "x", "secrets/a.sops.env": "x",
		"secrets/README.md": "x", "secrets/a/notes.txt": "x", "other/o.sops.json": "{}", "top.sops.json": "{}",
	})
	repo := open(t, dir)
	c, e := repo.Resolve("HEAD")
	if e != nil {
		t.Fatal(e)
	}
	for root, want := range map[string][]string{
		".":         {"other/o.sops.json other/o.sops.json", "secrets/a.sops.env secrets/a.sops.env", "secrets/a/b/c.sops.yaml secrets/a/b/c.sops.yaml", "secrets/z.sops.json secrets/z.sops.json", "top.sops.json top.sops.json"},
		"secrets":   {"secrets/a.sops.env a.sops.env", "secrets/a/b/c.sops.yaml a/b/c.sops.yaml", "secrets/z.sops.json z.sops.json"},
		"secrets/a": {"secrets/a/b/c.sops.yaml b/c.sops.yaml"},
	} {
		if got := listed(t, repo, c, root); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("List(%s) =\n%s\nwant\n%s", root, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	for _, root := range []string{"nope", "secrets/nope", "top.sops.json", "secrets/z.sops.json/x"} {
		_, e := repo.List(t.Context(), c, root, MissingRootFails)
		wantClass(t, "root "+root, e, diag.SourceMissingRoot)
	}
	// With MissingRootIsEmpty (allow-empty) an absent root lists nothing,
	// but a root that is, or lies under, a file stays source:missing-root.
	for _, root := range []string{"nope", "secrets/nope", "nope/deeper"} {
		docs, e := repo.List(t.Context(), c, root, MissingRootIsEmpty)
		if e != nil || len(docs) != 0 {
			t.Errorf("absent root %s with MissingRootIsEmpty: %v %v, want no documents and no diagnostic", root, docs, e)
		}
	}
	for _, root := range []string{"top.sops.json", "secrets/z.sops.json/x"} {
		_, e := repo.List(t.Context(), c, root, MissingRootIsEmpty)
		wantClass(t, "file root "+root, e, diag.SourceMissingRoot)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, e = repo.List(ctx, c, "secrets", MissingRootFails)
	wantClass(t, "cancelled", e, diag.Interrupted)
}

// TestCheckAndReadApplyTheStructuralRules: a regular or executable blob
// passes; a symlink or a submodule is source:not-regular-file; a blob of
// exactly the limit passes and is read whole, one byte over is
// source:too-large for both; a Git LFS pointer (under 1 KiB, starting with
// the version line) is source:lfs-pointer, and a larger blob with the same
// start is not one.
func TestCheckAndReadApplyTheStructuralRules(t *testing.T) {
	pointer := "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"
	pad := func(s string, n int) string { return s + strings.Repeat("x", n-len(s)) }
	dir, _ := newRepo(t, map[string]string{
		"plain.sops.json":       `{"a":1}`,
		"script.sops.env":       "A=1\n",
		"lfs.sops.json":         pointer,
		"lfs-1023.sops.json":    pad(pointer, 1023),
		"lfs-1024.sops.json":    pad(pointer, 1024),
		"submodule/placeholder": "x",
	})
	if err := os.Chmod(filepath.Join(dir, "script.sops.env"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.sops.json", filepath.Join(dir, "link.sops.json")); err != nil {
		t.Fatal(err)
	}
	head := gitRun(t, dir, "rev-parse", "HEAD")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",sub.sops.json")
	gitRun(t, dir, "commit", "-q", "-m", "symlink, executable, submodule")
	repo := open(t, dir)
	c, e := repo.Resolve("HEAD")
	if e != nil {
		t.Fatal(e)
	}
	docs, e := repo.List(t.Context(), c, ".", MissingRootFails)
	if e != nil {
		t.Fatal(e)
	}
	byPath := map[string]Document{}
	for _, d := range docs {
		byPath[d.Path] = d
	}
	for path, want := range map[string]string{
		"plain.sops.json": "", "script.sops.env": "", "lfs-1024.sops.json": "",
		"link.sops.json": diag.SourceNotRegular, "sub.sops.json": diag.SourceNotRegular,
		"lfs.sops.json": diag.SourceLFSPointer, "lfs-1023.sops.json": diag.SourceLFSPointer,
	} {
		d, ok := byPath[path]
		if !ok {
			t.Fatalf("%s not listed: %v", path, docs)
		}
		e, stop := repo.Check(d, 1<<20)
		if stop {
			t.Errorf("%s: stop", path)
		}
		switch {
		case want == "" && e != nil:
			t.Errorf("%s: %v, want it to pass", path, e)
		case want != "" && (e == nil || e.Class != want):
			t.Errorf("%s: %v, want %s", path, e, want)
		}
	}
	d := byPath["plain.sops.json"]
	if d.Blob() != gitRun(t, dir, "rev-parse", "HEAD:plain.sops.json") {
		t.Fatalf("Blob() = %s, want git's blob id", d.Blob())
	}
	n := int64(len(`{"a":1}`))
	if e, _ := repo.Check(d, n); e != nil {
		t.Fatalf("Check at exactly the limit: %v", e)
	}
	if b, e := repo.Read(d, n); e != nil || string(b) != `{"a":1}` {
		t.Fatalf("Read at exactly the limit = %q, %v", b, e)
	}
	e, _ = repo.Check(d, n-1)
	wantClass(t, "Check one byte over", e, diag.SourceTooLarge)
	_, e = repo.Read(d, n-1)
	wantClass(t, "Read one byte over", e, diag.SourceTooLarge)
}

// TestIsLFSPointerSizeBound: a pointer is under 1024 bytes.
func TestIsLFSPointerSizeBound(t *testing.T) {
	p := "version https://git-lfs.github.com/spec/v1\n"
	if !isLFSPointer([]byte(p + strings.Repeat("x", 1023-len(p)))) {
		t.Fatal("1023 bytes starting with the version line is a pointer")
	}
	if isLFSPointer([]byte(p + strings.Repeat("x", 1024-len(p)))) {
		t.Fatal("1024 bytes is never a pointer")
	}
}

// TestCheckSizesABorrowedBlob: a document whose blob the clone borrows
// (git clone --shared: objects/info/alternates, where the object header's
// fast path does not reach) is sized like any other: at the cap it
// passes, one byte over it is source:too-large, before it is read.
func TestCheckSizesABorrowedBlob(t *testing.T) {
	body := `{"a":"` + strings.Repeat("x", 90) + `"}`
	origin, _ := newRepo(t, map[string]string{"big.sops.json": body})
	leaf := filepath.Join(t.TempDir(), "leaf")
	gitRun(t, origin, "clone", "-q", "--shared", origin, leaf)
	repo := open(t, leaf)
	c, e := repo.Resolve("HEAD")
	if e != nil {
		t.Fatal(e)
	}
	docs, e := repo.List(t.Context(), c, ".", MissingRootFails)
	if e != nil || len(docs) != 1 {
		t.Fatalf("List: %v, %d documents", e, len(docs))
	}
	size := int64(len(body))
	if e, _ := repo.Check(docs[0], size); e != nil {
		t.Errorf("at the cap: %v", e)
	}
	e, stop := repo.Check(docs[0], size-1)
	wantClass(t, "one byte over the cap", e, diag.SourceTooLarge)
	if stop {
		t.Error("a document over the cap stopped the repository")
	}
}

// TestRootTreeIsGitsTreeOfTheRoot: RootTree is the id git prints for
// COMMIT:ROOT ("." the commit's tree); a root that does not exist is the
// empty tree's id with MissingRootIsEmpty and source:missing-root without;
// a root that is a file is source:missing-root either way.
func TestRootTreeIsGitsTreeOfTheRoot(t *testing.T) {
	dir, sha := newRepo(t, map[string]string{"secrets/a/b.sops.json": "{}", "secrets/c.sops.json": "{}", "file": "x"})
	repo := open(t, dir)
	c, e := repo.Resolve("HEAD")
	if e != nil {
		t.Fatal(e)
	}
	for root, want := range map[string]string{".": gitRun(t, dir, "rev-parse", sha+"^{tree}"), "secrets": gitRun(t, dir, "rev-parse", sha+":secrets"),
		"secrets/a": gitRun(t, dir, "rev-parse", sha+":secrets/a")} {
		if got, e := repo.RootTree(c, root, MissingRootFails); e != nil || got != want {
			t.Errorf("RootTree(%s) = %s, %v; want %s", root, got, e, want)
		}
	}
	const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	if got, e := repo.RootTree(c, "absent", MissingRootIsEmpty); e != nil || got != emptyTree {
		t.Errorf("an absent root with MissingRootIsEmpty: %s, %v; want the empty tree", got, e)
	}
	for _, r := range []struct {
		root    string
		missing MissingRoot
	}{{"absent", MissingRootFails}, {"file", MissingRootFails}, {"file", MissingRootIsEmpty}} {
		if _, e := repo.RootTree(c, r.root, r.missing); e == nil || e.Class != diag.SourceMissingRoot {
			t.Errorf("RootTree(%s, %d): %v, want %s", r.root, r.missing, e, diag.SourceMissingRoot)
		}
	}
}
