package gitsource

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// history makes a repository of n+1 commits on main (one tree; the n on
// top written by git fast-import, one minute apart, messages "commit I"),
// so that 4-hex prefixes of commits collide, and returns the directory and
// every commit SHA, oldest first.
func history(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir, first := newRepo(t, map[string]string{"secrets/a.sops.json": "{}"})
	var b strings.Builder
	for i := range n {
		msg := fmt.Sprintf("commit %d\n", i)
		fmt.Fprintf(&b, "commit refs/heads/main\ncommitter fixture <fixture@example.invalid> %d +0000\ndata %d\n%s", 1767225600+60*(i+1), len(msg), msg)
		if i == 0 {
			fmt.Fprintf(&b, "from %s\n", first)
		}
		b.WriteString("\n")
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	all := strings.Fields(gitRun(t, dir, "rev-list", "--reverse", "main"))
	if len(all) != n+1 {
		t.Fatalf("%d commits, want %d", len(all), n+1)
	}
	return dir, all
}

// revParse is the commit `git rev-parse --verify` names for rev, peeled
// to a commit; "" when git refuses it or it names no commit.
func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	out, err := gitOutput(dir, "rev-parse", "--verify", "--quiet", rev)
	if err != nil {
		return ""
	}
	out, err = gitOutput(dir, "rev-parse", "--verify", "--quiet", out+"^{commit}")
	if err != nil {
		return ""
	}
	return out
}

// collision returns a 4-hex prefix shared by at least two of shas.
func collision(t *testing.T, shas []string) string {
	t.Helper()
	seen := map[string]int{}
	for _, s := range shas {
		seen[s[:4]]++
	}
	var found []string
	for p, n := range seen {
		if n > 1 {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		t.Fatal("premise: no two commits share a 4-hex prefix")
	}
	sort.Strings(found)
	return found[0]
}

// TestResolveMatchesGitRevParse: for a table of revisions over a history
// with a merge, annotated, nested, lightweight and non-commit tags, a
// remote, describe output and colliding short SHAs, Resolve names exactly
// the commit `git rev-parse` names, or fails where git fails; with loose
// objects and refs, and again after git gc packed them.
func TestResolveMatchesGitRevParse(t *testing.T) {
	dir, shas := history(t, 1500)
	gitRun(t, dir, "checkout", "-q", "-b", "side", shas[1490])
	side := commit(t, dir, map[string]string{"side.txt": "x"}, "on side")
	gitRun(t, dir, "checkout", "-q", "main")
	gitRun(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	gitRun(t, dir, "tag", "-a", "-m", "release", "v1", shas[100])
	gitRun(t, dir, "tag", "-a", "-m", "of a tag", "nested", "v1")
	gitRun(t, dir, "tag", "lightweight", shas[200])
	gitRun(t, dir, "tag", "treetag", "HEAD^{tree}")
	gitRun(t, dir, "tag", "-a", "-m", "a blob", "blobtag", "HEAD:secrets/a.sops.json")
	gitRun(t, dir, "update-ref", "refs/remotes/origin/main", shas[300])
	gitRun(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	gitRun(t, dir, "branch", "topic", shas[400])
	describe := gitRun(t, dir, "describe", "--tags", "--long", "--match", "v1", shas[150])
	head := gitRun(t, dir, "rev-parse", "HEAD")
	p := collision(t, shas)
	revs := []string{
		"HEAD", "@", "@~2", "HEAD~3", "HEAD~", "HEAD^", "HEAD^^", "HEAD~2~1", "HEAD^0", "HEAD^1", "HEAD^2", "HEAD^3",
		"HEAD^2~1", "HEAD^2^0", "HEAD~1^{commit}", "HEAD^{}", "HEAD^{commit}^{}",
		"main", "heads/main", "refs/heads/main", "side", "topic~1", "v1", "v1^{}", "v1~1", "v1^0", "tags/v1",
		"nested", "nested^{}", "nested~2", "nested^{commit}", "lightweight", "treetag", "treetag^{}", "treetag~1",
		"blobtag", "blobtag^{}", "blobtag^{commit}",
		"origin/main", "origin", "remotes/origin/main", "origin/main~2", describe, strings.ToUpper(describe[len(describe)-8:]),
		"junk-g" + head[:7], "junk-g" + head[:3], "junk-g" + head[:4], "junk-g" + head, "junk-g" + side[:8] + "~1",
		head[:7], head[:4], strings.ToUpper(head[:10]), head, strings.ToUpper(head), shas[0][:9] + "~0", head[:39],
		"HEAD^{/commit 1499}", "HEAD^{/^commit 12$}", "HEAD~1^{/!-commit}", "HEAD^{/!!nothing}", "HEAD^{/!x}",
		"HEAD^{/(}", "v1^{/commit 9}", "HEAD^{/on side}", "HEAD^{/}",
		p, p + "~1", p + "^{}", p + "^{commit}", p + "^0", strings.ToUpper(p),
		"nosuch", "nosuch~1", "HEAD~99999", "HEAD~x", "HEAD^x", "abc", "ffffffffffffffffffffffffffffffffffffffff", "",
		"../config", "heads/../../HEAD", "refs//heads/main", ".git/HEAD", "ORIG_HEAD", "config",
		"HEAD^{unknown}", "}", "^{}", "~1",
		"HEAD~9", "HEAD~19", "v1~9", "HEAD^{}~9", // a count ending in 9, the top of the digit range
	}
	check := func(label string) {
		repo := open(t, dir)
		for _, rev := range revs {
			want := revParse(t, dir, rev)
			got, e := repo.Resolve(rev)
			if want == "" {
				if e == nil {
					t.Errorf("%s %q: git refuses it, Resolve gave %s", label, rev, got.Hash)
				} else if e.Class != diag.GitRevision {
					t.Errorf("%s %q: class %s, want %s", label, rev, e.Class, diag.GitRevision)
				}
				continue
			}
			if e != nil || got.Hash != want {
				t.Errorf("%s %q: Resolve %s (%v), git %s", label, rev, got.Hash, e, want)
			}
		}
	}
	check("loose")
	gitRun(t, dir, "gc", "-q")
	check("packed")
}

// TestAmbiguousShortSHAHasItsOwnNextAction: a short SHA that two commits
// start with is git:revision telling the operator to pass the full SHA;
// an unknown revision is git:revision with the registry's words.
func TestAmbiguousShortSHAHasItsOwnNextAction(t *testing.T) {
	dir, shas := history(t, 1500)
	repo := open(t, dir)
	_, e := repo.Resolve(collision(t, shas))
	wantClass(t, "ambiguous", e, diag.GitRevision)
	if !strings.Contains(e.Summary, "ambiguous") || !strings.Contains(e.Next, "full 40-character") {
		t.Fatalf("ambiguous: %q / %q", e.Summary, e.Next)
	}
	_, e = repo.Resolve("nosuch")
	wantClass(t, "unknown", e, diag.GitRevision)
	if strings.Contains(e.Summary, "ambiguous") {
		t.Fatalf("unknown revision said ambiguous: %q", e.Summary)
	}
}

// TestShortSHAInAlternates: a clone that borrows objects (git clone
// --shared: objects/info/alternates) resolves a short SHA of a borrowed
// commit, as git does.
func TestShortSHAInAlternates(t *testing.T) {
	origin, first := newRepo(t, map[string]string{"a.sops.json": "{}"})
	second := commit(t, origin, map[string]string{"b.sops.json": "{}"}, "second")
	leaf := filepath.Join(t.TempDir(), "leaf")
	gitRun(t, origin, "clone", "-q", "--shared", origin, leaf)
	repo := open(t, leaf)
	for _, sha := range []string{first, second} {
		if revParse(t, leaf, sha[:8]) != sha {
			t.Fatalf("premise: git resolves %s in the leaf clone", sha[:8])
		}
		if got, e := repo.Resolve(sha[:8]); e != nil || got.Hash != sha {
			t.Errorf("%s: Resolve %s (%v), want %s", sha[:8], got.Hash, e, sha)
		}
	}
}

// TestNestedSuffixesAreBoundedAt64: a revision nests at most 64 suffixes
// below its base name (Resolve's one deviation from git, which has no
// bound): 64 resolve as git resolves them, 65 are git:revision.
func TestNestedSuffixesAreBoundedAt64(t *testing.T) {
	dir, head := newRepo(t, map[string]string{"a.txt": "a"})
	repo := open(t, dir)
	for _, suffix := range []string{"^{}", "~0", "^0"} {
		got, e := repo.Resolve("HEAD" + strings.Repeat(suffix, 64))
		if e != nil || got.Hash != head {
			t.Errorf("64 × %s: %s (%v), want %s", suffix, got.Hash, e, head)
		}
		_, e = repo.Resolve("HEAD" + strings.Repeat(suffix, 65))
		wantClass(t, "65 × "+suffix, e, diag.GitRevision)
	}
}

// TestRegression_DescribeSuffixWithTheFullSHA: a describe-style name whose
// -g suffix is the full 40-digit SHA ("v1-0-g<sha>") resolves as git
// rev-parse resolves it; before, only 4 to 39 digits were taken.
func TestRegression_DescribeSuffixWithTheFullSHA(t *testing.T) {
	dir, head := newRepo(t, map[string]string{"a.txt": "a"})
	repo := open(t, dir)
	rev := "junk-g" + head
	if want := revParse(t, dir, rev); want != head {
		t.Fatalf("premise: git resolves %s to %s, got %q", rev, head, want)
	}
	if got, e := repo.Resolve(rev); e != nil || got.Hash != head {
		t.Errorf("Resolve(%s) = %s (%v), want %s", rev, got.Hash, e, head)
	}
}

// TestTagChainsArePeeledUpTo63Deep: an annotated tag of an annotated tag
// … of a commit is peeled through at most 63 tags (peelTags' 64 steps,
// the last of which must reach the commit); a chain of 64 is
// git:revision, a bound against a hostile repository that git does not
// have.
func TestTagChainsArePeeledUpTo63Deep(t *testing.T) {
	dir, head := newRepo(t, map[string]string{"a.txt": "a"})
	prev := "HEAD"
	for i := 1; i <= 64; i++ {
		name := fmt.Sprintf("t%d", i)
		gitRun(t, dir, "tag", "-a", "-m", name, name, prev)
		prev = name
	}
	repo := open(t, dir)
	if got, e := repo.Resolve("t63"); e != nil || got.Hash != head {
		t.Errorf("63 tags: %s (%v), want %s", got.Hash, e, head)
	}
	_, e := repo.Resolve("t64")
	wantClass(t, "64 tags", e, diag.GitRevision)
}

// TestResolveTreeReadsAStagedTree: ResolveTree takes the full id of a tree
// no commit holds yet (`git write-tree` of the index, in either letter
// case) and lists what is staged; a commit's SHA resolves as Resolve does;
// 40 hex digits naming no object are git:revision.
func TestResolveTreeReadsAStagedTree(t *testing.T) {
	dir, sha := newRepo(t, map[string]string{"secrets/a.sops.json": "{}"})
	if err := os.WriteFile(filepath.Join(dir, "secrets", "b.sops.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "add", "-A")
	tree := gitRun(t, dir, "write-tree")
	repo := open(t, dir)
	for _, rev := range []string{tree, strings.ToUpper(tree)} {
		c, e := repo.ResolveTree(rev)
		if e != nil || c.Hash != tree {
			t.Fatalf("ResolveTree(%s) = %+v, %v; want the tree %s", rev, c, e, tree)
		}
		if got := listed(t, repo, c, "secrets"); strings.Join(got, ",") != "secrets/a.sops.json a.sops.json,secrets/b.sops.json b.sops.json" {
			t.Errorf("the staged tree lists %v", got)
		}
	}
	if c, e := repo.ResolveTree(sha); e != nil || c.Hash != sha {
		t.Errorf("ResolveTree(commit) = %+v, %v; want the commit %s", c, e, sha)
	}
	if _, e := repo.ResolveTree(strings.Repeat("ab", 20)); e == nil || e.Class != diag.GitRevision {
		t.Errorf("40 hex digits naming no object: %v, want %s", e, diag.GitRevision)
	}
}
