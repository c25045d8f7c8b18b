package gitsource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// TestOpenFindsTheRepositoryAtTheRootOnly: a work tree, a bare repository,
// a linked worktree and a ".git" file naming the Git directory (relative or
// absolute) open, and each resolves its own HEAD; a subdirectory of a work
// tree (never searched upwards), a plain directory, a missing path and a
// ".git" file without a "gitdir:" line are git:repository.
func TestOpenFindsTheRepositoryAtTheRootOnly(t *testing.T) {
	dir, first := newRepo(t, map[string]string{"secrets/a.sops.json": "{}"})
	bare := filepath.Join(t.TempDir(), "bare.git")
	gitRun(t, dir, "clone", "-q", "--bare", dir, bare)
	linked := filepath.Join(t.TempDir(), "linked")
	gitRun(t, dir, "worktree", "add", "-q", "-b", "other", linked)
	second := commit(t, linked, map[string]string{"secrets/b.sops.json": "{}"}, "on other")

	// A work tree whose .git is a file naming the Git directory.
	moved := t.TempDir()
	absTree, relTree := t.TempDir(), filepath.Join(moved, "tree")
	gitRun(t, dir, "clone", "-q", "--separate-git-dir", filepath.Join(moved, "gitdir"), dir, absTree)
	if err := os.MkdirAll(relTree, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(relTree, ".git"), []byte("gitdir: ../gitdir\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for name, c := range map[string]struct{ dir, head string }{
		"work tree":                {dir, first},
		"bare":                     {bare, first},
		"linked worktree":          {linked, second},
		"gitdir file, absolute":    {absTree, first},
		"gitdir file, relative":    {relTree, first},
		"work tree, path with ./.": {dir + "/.", first},
	} {
		repo := open(t, c.dir)
		got, e := repo.Resolve("HEAD")
		if e != nil || got.Hash != c.head {
			t.Errorf("%s: HEAD = %s (%v), want %s", name, got.Hash, e, c.head)
		}
	}

	noGitdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(noGitdir, ".git"), []byte("worktree: elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	danglingGitdir := t.TempDir()
	if err := os.WriteFile(filepath.Join(danglingGitdir, ".git"), []byte("gitdir: ../nowhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]string{
		"subdirectory":         filepath.Join(dir, "secrets"),
		"plain directory":      t.TempDir(),
		"missing":              filepath.Join(t.TempDir(), "nope"),
		"no gitdir line":       noGitdir,
		"gitdir names nothing": danglingGitdir,
	} {
		repo, e := Open(d)
		if repo != nil {
			repo.Close()
		}
		wantClass(t, name, e, diag.GitRepository)
	}
}

// TestOpenLinkedWorktreeReadsTheCommonObjects: a linked worktree keeps its
// objects and refs in the common directory (its "commondir" file, relative
// or absolute); a commondir naming nothing is git:repository.
func TestOpenLinkedWorktreeReadsTheCommonObjects(t *testing.T) {
	dir, first := newRepo(t, map[string]string{"a.sops.json": "{}"})
	linked := filepath.Join(t.TempDir(), "linked")
	gitRun(t, dir, "worktree", "add", "-q", "--detach", linked)
	gitDir := gitRun(t, linked, "rev-parse", "--git-dir")
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(linked, gitDir)
	}
	commondir := filepath.Join(gitDir, "commondir")
	for name, content := range map[string]string{
		"relative": "../..\n",
		"absolute": filepath.Join(dir, ".git") + "\n",
	} {
		if err := os.WriteFile(commondir, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		repo := open(t, linked)
		if got, e := repo.Resolve("main"); e != nil || got.Hash != first {
			t.Errorf("commondir %s: main = %s (%v), want %s", name, got.Hash, e, first)
		}
	}
	if err := os.WriteFile(commondir, []byte("../../nowhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, e := Open(linked)
	wantClass(t, "commondir naming nothing", e, diag.GitRepository)
}

// TestOpenRepositoryFormats: format versions 0 and 1 and the extensions
// that do not change how a commit's objects and refs are stored open (in
// any letter case); a newer format version, another object format or ref
// storage, and any unknown extension are git:repository with a reason that
// names the setting (an unknown name only when it looks like one). The
// last core.repositoryformatversion of the file counts, as in git.
func TestOpenRepositoryFormats(t *testing.T) {
	for _, c := range []struct {
		name   string
		config string // appended to .git/config
		reason string // "" when it opens
	}{
		{"version 0", "[core]\n\trepositoryformatversion = 0\n", ""},
		{"version 1 with readable extensions", "[core]\n\trepositoryformatversion = 1\n[extensions]\n" +
			"\tnoop = x\n\tnoop-v1 = x\n\tworktreeConfig = true\n\tPartialClone = origin\n" +
			"\tpreciousObjects = true\n\trelativeWorktrees = true\n\tobjectFormat = SHA1\n" +
			"[extensions]\n\trefStorage = files\n", ""},
		{"version 2", "[core]\n\trepositoryformatversion = 2\n", "repository format version"},
		{"version 1 after version 2", "[core]\n\trepositoryformatversion = 2\n[core]\n\trepositoryformatversion = 1\n", ""},
		{"version 2 after version 1", "[core]\n\trepositoryformatversion = 1\n[core]\n\trepositoryformatversion = 2\n", "repository format version"},
		{"sha256", "[extensions]\n\tobjectFormat = sha256\n", "object format other than SHA-1"},
		{"reftable", "[extensions]\n\trefStorage = reftable\n", "refs in a format other than files"},
		{"unknown extension in a second section", "[extensions]\n\tnoop = x\n[extensions]\n\tsomeFuture = 1\n", "extensions.somefuture"},
		{"unknown extension with an odd name", "[extensions]\n\tx" + strings.Repeat("y", 50) + " = 1\n", "enables an extension,"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, head := newRepo(t, map[string]string{"a.sops.json": "{}"})
			appendConfig(t, dir, c.config)
			repo, e := Open(dir)
			if c.reason == "" {
				if e != nil {
					t.Fatalf("Open: %v", e)
				}
				defer repo.Close()
				if got, e := repo.Resolve("HEAD"); e != nil || got.Hash != head {
					t.Fatalf("HEAD = %s (%v), want %s", got.Hash, e, head)
				}
				return
			}
			wantClass(t, c.name, e, diag.GitRepository)
			if !strings.Contains(e.Summary, c.reason) {
				t.Fatalf("summary %q, want it to say %q", e.Summary, c.reason)
			}
		})
	}
}

// appendConfig appends raw text to the repository's .git/config (git
// config itself refuses extensions it does not know).
func appendConfig(t *testing.T, dir, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestMissingObjectSaysWhetherTheCloneIsPartial: an object absent from the
// clone is git:object-missing; in a partial clone (a promisor remote, or
// extensions.partialClone naming one) the reason says it was filtered out.
func TestMissingObjectSaysWhetherTheCloneIsPartial(t *testing.T) {
	for _, c := range []struct {
		name    string
		config  string
		partial bool
	}{
		{"full clone", "", false},
		{"promisor remote", "[remote \"origin\"]\n\turl = https://example.invalid/r\n\tpromisor = TRUE\n", true},
		{"not a promisor", "[remote \"origin\"]\n\turl = https://example.invalid/r\n\tpromisor = false\n", false},
		{"partialClone extension", "[extensions]\n\tpartialClone = origin\n", true},
		{"empty partialClone extension", "[extensions]\n\tpartialClone = \n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := newRepo(t, map[string]string{"secrets/a.sops.json": "{\"a\":1}"})
			appendConfig(t, dir, c.config)
			blob := gitRun(t, dir, "rev-parse", "HEAD:secrets/a.sops.json")
			if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
				t.Fatal(err)
			}
			repo := open(t, dir)
			cm, e := repo.Resolve("HEAD")
			if e != nil {
				t.Fatal(e)
			}
			docs, e := repo.List(t.Context(), cm, ".", MissingRootFails)
			if e != nil || len(docs) != 1 {
				t.Fatalf("List: %v %v", docs, e)
			}
			e, stop := repo.Check(docs[0], 1<<20)
			wantClass(t, "Check", e, diag.GitObjectMissing)
			if !stop {
				t.Fatal("a missing object stops the load (one diagnostic for the repository)")
			}
			if got := strings.Contains(e.Summary, "partial clone"); got != c.partial {
				t.Fatalf("summary %q: says partial clone = %v, want %v", e.Summary, got, c.partial)
			}
			_, e = repo.Read(docs[0], 1<<20)
			wantClass(t, "Read", e, diag.GitObjectMissing)
		})
	}
}
