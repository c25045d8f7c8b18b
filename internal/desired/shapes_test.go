package desired

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// shapeSource is a bare repository (served over file://, filters allowed)
// whose one commit holds two documents under secrets/ and a file under
// other/, and its commit SHA.
func shapeSource(t *testing.T) (bare, head string) {
	t.Helper()
	src, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json": good(t),
		"secrets/b.sops.env":  fixture(t, cur+"/good.sops.env"),
		"other/readme.txt":    []byte("not a document\n"),
	})
	head = gitCmd(t, src, "rev-parse", "HEAD")
	bare = filepath.Join(t.TempDir(), "src.git")
	gitCmd(t, src, "clone", "-q", "--bare", src, bare)
	gitCmd(t, bare, "config", "uploadpack.allowFilter", "true")
	return bare, head
}

func wantBothDocuments(t *testing.T, dir, head string) {
	t.Helper()
	st, err := Load(context.Background(), baseOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if st.Commit != head || len(st.Secrets) != 2 || string(st.Secrets[0].Value) != wantGood {
		t.Fatalf("commit %s, %d secrets", st.Commit, len(st.Secrets))
	}
}

// TestSparseCheckoutWorktreeConfigLoads: `git sparse-checkout set`, in cone
// and non-cone mode, sets extensions.worktreeConfig, which go-git refuses;
// the loader reads the commit whatever the sparse set holds (it never reads
// the work tree).
func TestSparseCheckoutWorktreeConfigLoads(t *testing.T) {
	bare, head := shapeSource(t)
	for name, args := range map[string][]string{
		"cone":              {"sparse-checkout", "set", "other"},
		"cone-with-root":    {"sparse-checkout", "set", "secrets"},
		"no-cone":           {"sparse-checkout", "set", "--no-cone", "other/"},
		"no-cone-with-root": {"sparse-checkout", "set", "--no-cone", "/secrets/"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "clone")
			gitCmd(t, bare, "clone", "-q", "file://"+bare, dir)
			gitCmd(t, dir, args...)
			if v := gitCmd(t, dir, "config", "--get", "extensions.worktreeConfig"); v != "true" {
				t.Fatalf("premise: extensions.worktreeConfig = %q", v)
			}
			wantBothDocuments(t, dir, head)
		})
	}
}

// TestRepositoryFormatVersion1WithWorktreeConfigLoads: the same extension
// under repository format version 1 (what newer Git writes).
func TestRepositoryFormatVersion1WithWorktreeConfigLoads(t *testing.T) {
	bare, head := shapeSource(t)
	dir := filepath.Join(t.TempDir(), "clone")
	gitCmd(t, bare, "clone", "-q", "file://"+bare, dir)
	gitCmd(t, dir, "config", "core.repositoryformatversion", "1")
	gitCmd(t, dir, "config", "extensions.worktreeConfig", "true")
	gitCmd(t, dir, "config", "extensions.preciousObjects", "true")
	gitCmd(t, dir, "config", "extensions.objectFormat", "sha1")
	wantBothDocuments(t, dir, head)
}

// TestUnreadableRepositoryExtensionsRefused: extensions that change how
// objects or refs are stored (or that nobody knows) are git:repository,
// never read as if absent.
func TestUnreadableRepositoryExtensionsRefused(t *testing.T) {
	bare, _ := shapeSource(t)
	for name, kv := range map[string][2]string{
		"sha256":   {"extensions.objectFormat", "sha256"},
		"reftable": {"extensions.refStorage", "reftable"},
		"unknown":  {"extensions.somethingNew", "true"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "clone")
			gitCmd(t, bare, "clone", "-q", "file://"+bare, dir)
			// Written with git config --file: git itself would refuse to
			// run in a repository it cannot read.
			cfg := filepath.Join(dir, ".git", "config")
			gitCmd(t, dir, "config", "--file", cfg, "core.repositoryformatversion", "1")
			gitCmd(t, dir, "config", "--file", cfg, kv[0], kv[1])
			_, err := Load(context.Background(), baseOptions(dir))
			assertClass(t, err, diag.GitRepository, 0)
		})
	}
	dir := filepath.Join(t.TempDir(), "clone")
	gitCmd(t, bare, "clone", "-q", "file://"+bare, dir)
	gitCmd(t, dir, "config", "--file", filepath.Join(dir, ".git", "config"), "core.repositoryformatversion", "2")
	_, err := Load(context.Background(), baseOptions(dir))
	assertClass(t, err, diag.GitRepository, 0)
}

// TestPartialCloneMissingBlobIsObjectMissing: a blob-less partial clone
// (actions/checkout with filter: blob:none and a sparse set without the
// source root) lacks the documents' blobs. That is git:object-missing with
// its own next action, found by the structural checks (before any
// decryption), not git:read. With the source root in the sparse set, Git
// fetched the blobs at checkout and the commit loads.
func TestPartialCloneMissingBlobIsObjectMissing(t *testing.T) {
	bare, head := shapeSource(t)
	partial := func(sparse string) string {
		dir := filepath.Join(t.TempDir(), "partial")
		gitCmd(t, bare, "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+bare, dir)
		gitCmd(t, dir, "sparse-checkout", "set", "--no-cone", sparse)
		gitCmd(t, dir, "checkout", "-q", "main")
		return dir
	}
	dir := partial("/other/")
	_, err := Load(context.Background(), baseOptions(dir))
	assertClass(t, err, diag.GitObjectMissing, 1)
	if !strings.Contains(err.Error(), "sparse-checkout set") || !strings.Contains(err.Error(), "partial clone") {
		t.Fatalf("the next action must say to fetch the blobs or widen the sparse set: %v", err)
	}
	wantBothDocuments(t, partial("/secrets/"), head)

	// No checkout at all: no document blob is present.
	bare2 := filepath.Join(t.TempDir(), "none")
	gitCmd(t, bare, "clone", "-q", "--filter=blob:none", "--bare", "file://"+bare, bare2)
	_, err = Load(context.Background(), baseOptions(bare2))
	assertClass(t, err, diag.GitObjectMissing, 1)

	// A tree-less partial clone lacks the commit's trees: no document can
	// be listed, so no single document is at fault.
	treeless := filepath.Join(t.TempDir(), "treeless")
	gitCmd(t, bare, "clone", "-q", "--filter=tree:0", "--bare", "file://"+bare, treeless)
	_, err = Load(context.Background(), baseOptions(treeless))
	assertClass(t, err, diag.GitObjectMissing, 0)
}

// lfsPointer is a Git LFS pointer file as git-lfs writes it.
const lfsPointer = "version https://git-lfs.github.com/spec/v1\n" +
	"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n" +
	"size 12345\n"

// TestLFSPointerDocumentIsLFSPointer: a document committed through Git LFS
// is a pointer; it is source:lfs-pointer, found by the structural checks,
// so a document before it that no key opens is never decrypted.
func TestLFSPointerDocumentIsLFSPointer(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json": fixture(t, cur+"/wrong-key.sops.json"),
		"secrets/b.sops.yaml": []byte(lfsPointer),
	})
	_, err := Load(context.Background(), baseOptions(dir))
	assertClass(t, err, diag.SourceLFSPointer, 2)
	if !strings.Contains(err.Error(), "not through LFS") || strings.Contains(err.Error(), "sha256:") {
		t.Fatalf("next action, or the pointer leaked: %v", err)
	}
}

// TestSOPSConfigFileIsNeverADocument (issue 15, finding 4): SOPS's own
// .sops.yaml / .sops.yml is not selected, at the root of a standard SOPS
// repository (--source-root .) or under the source root; a file that is
// only another suffix still names no secret.
func TestSOPSConfigFileIsNeverADocument(t *testing.T) {
	rules := []byte("creation_rules:\n  - path_regex: .*\\.sops\\.(json|yaml|env)$\n    age: " + testRecipient + "\n")
	dir, _ := newRepo(t, map[string][]byte{
		".sops.yaml":          rules,
		"secrets/.sops.yml":   rules,
		"secrets/a.sops.json": good(t),
	})
	opts := baseOptions(dir)
	opts.SourceRoot = "."
	if got := loadValues(t, opts); len(got) != 1 || got["prod/app/secrets/a"] != wantGood {
		t.Fatalf("whole repository: %v", got)
	}
	if got := loadValues(t, baseOptions(dir)); len(got) != 1 || got["prod/app/a"] != wantGood {
		t.Fatalf("source root: %v", got)
	}
}

// TestDetachedWorktreeOfSparsePartialCloneLoads: a linked worktree (git
// worktree add) of a clone with worktreeConfig, at a detached HEAD.
func TestDetachedWorktreeOfSparseCloneLoads(t *testing.T) {
	bare, head := shapeSource(t)
	dir := filepath.Join(t.TempDir(), "clone")
	gitCmd(t, bare, "clone", "-q", "file://"+bare, dir)
	gitCmd(t, dir, "sparse-checkout", "set", "--no-cone", "/other/")
	wt := filepath.Join(t.TempDir(), "wt")
	gitCmd(t, dir, "worktree", "add", "-q", "--detach", wt, head)
	if _, err := os.Stat(filepath.Join(wt, ".git")); err != nil {
		t.Fatal(err)
	}
	wantBothDocuments(t, wt, head)
}

// TestDeepDocumentIsTooDeep (issue 15, finding 6): a document nested more
// than canonical.MaxDepth levels is plaintext:too-deep, refused on the
// loaded SOPS tree before SOPS decrypts and re-emits it (which cost 515 MB
// for 10,000 levels); exactly MaxDepth levels is accepted.
func TestDeepDocumentIsTooDeep(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json": fixture(t, "deep/depth100.sops.json"),
		"secrets/b.sops.yaml": fixture(t, "deep/depth100.sops.yaml"),
	})
	got := loadValues(t, baseOptions(dir))
	if v := got["prod/app/a"]; v != nested(100) || got["prod/app/b"] != v {
		t.Fatalf("depth 100 must load, the same from JSON and YAML: %.80s", v)
	}
	for _, name := range []string{"deep/depth101.sops.json", "deep/depth101.sops.yaml"} {
		suffix := name[strings.Index(name, ".sops."):]
		dir, _ := newRepo(t, map[string][]byte{"secrets/a" + suffix: fixture(t, name)})
		_, err := Load(context.Background(), baseOptions(dir))
		assertClass(t, err, diag.PlaintextTooDeep, 1)
		if strings.Contains(err.Error(), "deep-FIXTURE") {
			t.Fatal("plaintext in the error")
		}
	}
}

// TestSharedCloneShortSHAInAlternates: a short SHA whose object lives only
// in the alternate object store of a --shared clone resolves, as in git.
func TestSharedCloneShortSHAInAlternates(t *testing.T) {
	src, first := newRepo(t, map[string][]byte{"secrets/old.sops.json": good(t)})
	commitFiles(t, src, map[string][]byte{"secrets/new.sops.env": fixture(t, cur+"/good.sops.env")}, "second")
	shared := filepath.Join(t.TempDir(), "shared")
	gitCmd(t, src, "clone", "-q", "--shared", src, shared)
	opts := baseOptions(shared)
	opts.Revision = first[:10]
	st, err := Load(context.Background(), opts)
	if err != nil || st.Commit != first || len(st.Secrets) != 1 {
		t.Fatalf("short SHA in alternates: %v %s", err, st.Commit)
	}
}
