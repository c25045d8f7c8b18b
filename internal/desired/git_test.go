package desired

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

func good(t testing.TB) []byte { return fixture(t, cur+"/good.sops.json") }

func loadValues(t *testing.T, opts config.Desired) map[string]string {
	t.Helper()
	st, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, s := range st.Secrets {
		m[s.Name] = string(s.Value)
	}
	return m
}

// The committed commit is the only source: uncommitted edits, staged
// changes and untracked files are never read, and --revision selects an
// older commit exactly.
func TestLoadReadsOnlyTheCommittedTree(t *testing.T) {
	dir, first := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
	second := commitFiles(t, dir, map[string][]byte{"secrets/b.sops.env": fixture(t, cur+"/good.sops.env")}, "second")

	// Working tree and index changes after the last commit.
	os.WriteFile(filepath.Join(dir, "secrets", "a.sops.json"), []byte("garbage in the working tree"), 0o644)
	os.WriteFile(filepath.Join(dir, "secrets", "untracked.sops.json"), []byte("untracked"), 0o644)
	os.WriteFile(filepath.Join(dir, "secrets", "staged.sops.json"), []byte("staged"), 0o644)
	gitCmd(t, dir, "add", "secrets/staged.sops.json")

	st, err := Load(context.Background(), baseOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	if st.Commit != second || len(st.Secrets) != 2 || string(st.Secrets[0].Value) != wantGood {
		t.Fatalf("HEAD: commit %s secrets %+v", st.Commit, st.Secrets)
	}
	for _, rev := range []string{first, first[:12], "HEAD~1", "main^"} {
		opts := baseOptions(dir)
		opts.Revision = rev
		st, err := Load(context.Background(), opts)
		if err != nil {
			t.Fatalf("%s: %v", rev, err)
		}
		if st.Commit != first || len(st.Secrets) != 1 || st.Secrets[0].Name != "prod/app/a" {
			t.Fatalf("%s: commit %s secrets %+v", rev, st.Commit, st.Secrets)
		}
	}
}

func TestLoadResolvesDetachedHeadAndAnnotatedTags(t *testing.T) {
	dir, first := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
	gitCmd(t, dir, "tag", "-a", "v1", "-m", "release")
	commitFiles(t, dir, map[string][]byte{"secrets/b.sops.json": good(t)}, "second")
	gitCmd(t, dir, "checkout", "-q", "--detach", first)
	st, err := Load(context.Background(), baseOptions(dir))
	if err != nil || st.Commit != first || len(st.Secrets) != 1 {
		t.Fatalf("detached HEAD: %v %+v", err, st)
	}
	opts := baseOptions(dir)
	opts.Revision = "v1"
	st, err = Load(context.Background(), opts)
	if err != nil || st.Commit != first {
		t.Fatalf("annotated tag: %v %s", err, st.Commit)
	}
}

// TestSharedCloneAlternatesLoad: a clone made with --shared (or
// --reference) finds its objects through .git/objects/info/alternates, an
// absolute path that go-git resolved inside the .git directory: loading
// failed as a revision error before AlternatesFS was set.
func TestSharedCloneAlternatesLoad(t *testing.T) {
	src, _ := newRepo(t, map[string][]byte{"secrets/old.sops.json": good(t)})
	head := commitFiles(t, src, map[string][]byte{"secrets/new.sops.env": fixture(t, cur+"/good.sops.env")}, "second")
	shared := filepath.Join(t.TempDir(), "shared")
	gitCmd(t, src, "clone", "-q", "--shared", src, shared)
	if _, err := os.Stat(filepath.Join(shared, ".git", "objects", "info", "alternates")); err != nil {
		t.Fatal("premise: the clone has no alternates file")
	}
	st, err := Load(context.Background(), baseOptions(shared))
	if err != nil || st.Commit != head || len(st.Secrets) != 2 {
		t.Fatalf("clone --shared: %v, commit %s, %d secrets", err, st.Commit, len(st.Secrets))
	}
}

func TestLoadWorksOnShallowCloneBareRepoAndLinkedWorktree(t *testing.T) {
	src, first := newRepo(t, map[string][]byte{"secrets/old.sops.json": good(t)})
	head := commitFiles(t, src, map[string][]byte{"secrets/new.sops.env": fixture(t, cur+"/good.sops.env")}, "second")

	shallow := filepath.Join(t.TempDir(), "shallow")
	gitCmd(t, src, "clone", "-q", "--depth", "1", "file://"+src, shallow)
	if _, err := os.Stat(filepath.Join(shallow, ".git", "shallow")); err != nil {
		t.Fatal("clone is not shallow")
	}
	bare := filepath.Join(t.TempDir(), "bare.git")
	gitCmd(t, src, "clone", "-q", "--bare", src, bare)
	wt := filepath.Join(t.TempDir(), "wt")
	gitCmd(t, src, "worktree", "add", "-q", "--detach", wt, head)

	for name, dir := range map[string]string{"shallow": shallow, "bare": bare, "worktree": wt} {
		st, err := Load(context.Background(), baseOptions(dir))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Commit != head || len(st.Secrets) != 2 {
			t.Fatalf("%s: commit %s, %d secrets", name, st.Commit, len(st.Secrets))
		}
	}
	// A linked worktree's HEAD is its own, not the main repository's.
	older := filepath.Join(t.TempDir(), "older")
	gitCmd(t, src, "worktree", "add", "-q", "--detach", older, first)
	st, err := Load(context.Background(), baseOptions(older))
	if err != nil || st.Commit != first || len(st.Secrets) != 1 {
		t.Fatalf("worktree at the first commit: %v %s %d", err, st.Commit, len(st.Secrets))
	}
	// A shallow clone that lacks the requested commit is a revision error.
	opts := baseOptions(shallow)
	opts.Revision = "HEAD~1"
	_, err = Load(context.Background(), opts)
	assertClass(t, err, diag.GitRevision, 0)
}

func TestLoadRepositoryAndRevisionErrors(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
	blob := gitCmd(t, dir, "rev-parse", "HEAD:secrets/a.sops.json")
	for _, rev := range []string{"no-such-branch", "0123456789012345678901234567890123456789", blob, "HEAD~5", "HEAD^{"} {
		opts := baseOptions(dir)
		opts.Revision = rev
		_, err := Load(context.Background(), opts)
		assertClass(t, err, diag.GitRevision, 0)
	}
	for _, repo := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing"), filepath.Join(dir, "secrets")} {
		_, err := Load(context.Background(), baseOptions(repo))
		assertClass(t, err, diag.GitRepository, 0)
	}
	empty := t.TempDir()
	gitCmd(t, empty, "init", "-q")
	_, err := Load(context.Background(), baseOptions(empty))
	assertClass(t, err, diag.GitRevision, 0) // unborn HEAD
}

func TestLoadSourceRootRules(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json":      good(t),
		"secrets/deep/b.sops.json": good(t),
		"top.sops.json":            good(t),
		"file":                     []byte("x"),
	})
	opts := baseOptions(dir)
	opts.SourceRoot = "."
	got := loadValues(t, opts)
	if len(got) != 3 || got["prod/app/top"] == "" || got["prod/app/secrets/deep/b"] == "" {
		t.Fatalf("whole repository: %v", got)
	}
	opts.SourceRoot = "secrets/deep"
	if got := loadValues(t, opts); len(got) != 1 || got["prod/app/b"] == "" {
		t.Fatalf("nested root: %v", got)
	}
	for _, root := range []string{"missing", "Secrets", "file", "secrets/a.sops.json"} {
		opts.SourceRoot = root
		_, err := Load(context.Background(), opts)
		assertClass(t, err, diag.SourceMissingRoot, 0)
	}
	// allow-empty (issue 30 §7): an absent root is a retired scope, an
	// empty desired state; a root that is a file stays missing-root.
	opts.AllowEmpty = true
	for _, root := range []string{"missing", "Secrets", "secrets/gone"} {
		opts.SourceRoot = root
		st, err := Load(context.Background(), opts)
		if err != nil || len(st.Secrets) != 0 || st.Commit == "" {
			t.Fatalf("absent root %s with allow-empty: %v %+v, want an empty desired state", root, err, st)
		}
	}
	for _, root := range []string{"file", "secrets/a.sops.json"} {
		opts.SourceRoot = root
		_, err := Load(context.Background(), opts)
		assertClass(t, err, diag.SourceMissingRoot, 0)
	}
	opts.AllowEmpty = false
	// An existing root without documents is an empty desired state, not an
	// error (the engine's empty-scope gate decides what that means).
	empty, _ := newRepo(t, map[string][]byte{"secrets/readme.txt": []byte("x")})
	st, err := Load(context.Background(), baseOptions(empty))
	if err != nil || len(st.Secrets) != 0 || st.Commit == "" {
		t.Fatalf("empty root: %v %+v", err, st)
	}
}

func TestLoadStructuralErrors(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
		os.Symlink("a.sops.json", filepath.Join(dir, "secrets", "b.sops.json"))
		commitFiles(t, dir, nil, "symlink")
		_, err := Load(context.Background(), baseOptions(dir))
		assertClass(t, err, diag.SourceNotRegular, 2)
	})
	t.Run("submodule", func(t *testing.T) {
		dir, sha := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
		gitCmd(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sha+",secrets/sub.sops.yaml")
		gitCmd(t, dir, "commit", "-q", "-m", "gitlink")
		_, err := Load(context.Background(), baseOptions(dir))
		assertClass(t, err, diag.SourceNotRegular, 2)
	})
	t.Run("too large before reading", func(t *testing.T) {
		env := fixture(t, cur+"/good.sops.env")
		dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.env": env, "secrets/b.sops.json": good(t)})
		opts := baseOptions(dir)
		opts.MaxEncryptedBytes = int64(len(env)) // a fits exactly, b is larger
		if len(good(t)) <= len(env) {
			t.Fatalf("fixture sizes changed")
		}
		_, err := Load(context.Background(), opts)
		assertClass(t, err, diag.SourceTooLarge, 2)
	})
	t.Run("packed objects", func(t *testing.T) {
		dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t), "secrets/b.sops.json": good(t)})
		gitCmd(t, dir, "gc", "-q", "--aggressive")
		opts := baseOptions(dir)
		opts.MaxEncryptedBytes = int64(len(good(t))) - 1
		_, err := Load(context.Background(), opts)
		assertEvery(t, err, diag.SourceTooLarge, 1, 2)
		opts.MaxEncryptedBytes = int64(len(good(t)))
		if got := loadValues(t, opts); len(got) != 2 {
			t.Fatalf("packed: %v", got)
		}
	})
	t.Run("invalid name", func(t *testing.T) {
		dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t), "secrets/my db.sops.json": good(t)})
		_, err := Load(context.Background(), baseOptions(dir))
		de := assertClass(t, err, diag.NameInvalid, 2)
		if strings.Contains(err.Error(), "my db") || de.Path != "" {
			t.Errorf("name error leaks the path: %v", err)
		}
	})
	t.Run("suffix only", func(t *testing.T) {
		dir, _ := newRepo(t, map[string][]byte{"secrets/.sops.json": good(t)})
		_, err := Load(context.Background(), baseOptions(dir))
		assertClass(t, err, diag.NameInvalid, 1)
	})
	t.Run("name too long", func(t *testing.T) {
		long := strings.Repeat("d", 200) + "/" + strings.Repeat("e", 200) + "/" + strings.Repeat("f", 120)
		dir, _ := newRepo(t, map[string][]byte{"secrets/" + long + ".sops.json": good(t)})
		_, err := Load(context.Background(), baseOptions(dir))
		assertClass(t, err, diag.NameInvalid, 1)
	})
	t.Run("collision", func(t *testing.T) {
		dir, _ := newRepo(t, map[string][]byte{
			"secrets/db.sops.json": good(t),
			"secrets/db.sops.yaml": fixture(t, cur+"/good.sops.yaml"),
		})
		opts := baseOptions(dir)
		_, err := Load(context.Background(), opts)
		de := assertClass(t, err, diag.NameCollision, 2)
		if !strings.Contains(err.Error(), "resource-0001") || de.Path != "" {
			t.Errorf("collision must name the other document by ordinal: %v", err)
		}
		opts.ShowResourceNames = true
		_, err = Load(context.Background(), opts)
		if !strings.Contains(err.Error(), "secrets/db.sops.json") || !strings.Contains(err.Error(), "document secrets/db.sops.yaml: ") {
			t.Errorf("with resource names both paths are named: %v", err)
		}
	})
	t.Run("structure is checked before any decryption", func(t *testing.T) {
		// Ordinal 1 cannot be decrypted, ordinal 2 is a symlink: the
		// structural error wins because no key is touched before every
		// document passed the structural checks.
		dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": fixture(t, cur+"/wrong-key.sops.json")})
		os.Symlink("a.sops.json", filepath.Join(dir, "secrets", "b.sops.json"))
		commitFiles(t, dir, nil, "symlink")
		_, err := Load(context.Background(), baseOptions(dir))
		assertClass(t, err, diag.SourceNotRegular, 2)
	})
}

func TestLoadCancelledBeforeStart(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, baseOptions(dir))
	assertClass(t, err, diag.Interrupted, 0)
	if !isCanceled(err) {
		t.Fatalf("errors.Is(err, context.Canceled) must hold: %v", err)
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), 0)
	defer cancel2()
	<-ctx.Done()
	_, err = Load(ctx, baseOptions(dir))
	if !isDeadline(err) {
		t.Fatalf("errors.Is(err, context.DeadlineExceeded) must hold: %v", err)
	}
}

// TestRevisionNamingNonCommitRejected: a revision that names a tree, a
// blob or a path (which go-git's resolver silently reduces to the commit
// before the suffix) is a git:revision error, not HEAD's commit; peel
// suffixes that keep a commit still resolve (SPEC §2.1).
func TestRevisionNamingNonCommitRejected(t *testing.T) {
	dir, head := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
	gitCmd(t, dir, "tag", "-a", "-m", "release", "v1", head)
	gitCmd(t, dir, "tag", "-a", "-m", "a tree", "treetag", head+"^{tree}")
	for _, rev := range []string{"HEAD^{tree}", "HEAD^{blob}", "HEAD:secrets", "HEAD:", "main:secrets/a.sops.json",
		"v1^{tag}", "HEAD@{0}", "main@{upstream}", "treetag", "treetag^{}", gitCmd(t, dir, "rev-parse", "HEAD^{tree}")} {
		opts := baseOptions(dir)
		opts.Revision = rev
		_, err := Load(context.Background(), opts)
		assertClass(t, err, diag.GitRevision, 0)
	}
	for _, rev := range []string{"HEAD", "main", "v1", "v1^{}", "v1^{commit}", "HEAD^{commit}", "HEAD^{/fixtures}", head[:12]} {
		opts := baseOptions(dir)
		opts.Revision = rev
		st, err := Load(context.Background(), opts)
		if err != nil || st.Commit != head {
			t.Fatalf("revision %q: %v, commit %s, want %s", rev, err, st.Commit, head)
		}
	}
}
