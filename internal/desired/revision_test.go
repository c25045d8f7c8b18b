package desired

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/desired/gitsource"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// manyCommits makes a repository whose main branch holds the good
// documents and, on top, n more commits (same tree, written by git
// fast-import in one process), so that 4-hex SHA prefixes collide. It
// returns the directory and every commit SHA, oldest first.
func manyCommits(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir, first := newRepo(t, map[string][]byte{"secrets/a.sops.json": good(t)})
	var b strings.Builder
	for i := 0; i < n; i++ {
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
	all := strings.Fields(gitCmd(t, dir, "rev-list", "--reverse", "main"))
	if len(all) != n+1 {
		t.Fatalf("%d commits, want %d", len(all), n+1)
	}
	return dir, all
}

// gitRevParse is what `git rev-parse --verify <rev>` names, peeled to a
// commit the way Load must (by full SHA, so the peel adds no ambiguity);
// "" when git refuses the revision or it names no commit.
func gitRevParse(t *testing.T, dir, rev string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", "--verify", "--quiet", rev)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	cmd = exec.Command("git", "rev-parse", "--verify", "--quiet", strings.TrimSpace(string(out))+"^{commit}")
	cmd.Dir = dir
	out, err = cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func loadCommit(t *testing.T, dir, rev string) (string, error) {
	t.Helper()
	opts := baseOptions(dir)
	opts.Revision = rev
	st, err := Load(context.Background(), opts)
	return st.Commit, err
}

// collidingPrefix returns a 4-hex prefix shared by at least two of shas.
func collidingPrefix(t *testing.T, shas []string) string {
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

// TestRevisionAmbiguousShortSHARejected (issue 15, finding 1): a short SHA
// that two commits start with is git:revision with the "ambiguous" next
// action (git: "ambiguous argument"), never silently one of them.
func TestRevisionAmbiguousShortSHARejected(t *testing.T) {
	dir, shas := manyCommits(t, 1500)
	p := collidingPrefix(t, shas)
	for _, rev := range []string{p, p + "~0", p + "^{commit}", p + "^0", strings.ToUpper(p)} {
		if got := gitRevParse(t, dir, rev); got != "" {
			t.Fatalf("premise: git resolves %s to %s", rev, got)
		}
		_, err := loadCommit(t, dir, rev)
		assertClass(t, err, diag.GitRevision, 0)
		if !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), "full 40-character") {
			t.Fatalf("%s: %v", rev, err)
		}
	}
	// A longer prefix that only one of them has resolves to it.
	for _, s := range shas {
		if strings.HasPrefix(s, p) {
			got, err := loadCommit(t, dir, s[:12])
			if err != nil || got != s || gitRevParse(t, dir, s[:12]) != s {
				t.Fatalf("%s: %v %s", s[:12], err, got)
			}
		}
	}
}

// TestRevisionAllHexTagBeatsSHAPrefix (issue 15, finding 1): a tag or a
// branch whose name is all hex (a build number such as 8a5a) names what
// the ref points at, not the commit whose SHA starts with those digits;
// refs come before SHA prefixes, as in git.
func TestRevisionAllHexTagBeatsSHAPrefix(t *testing.T) {
	dir, shas := manyCommits(t, 40)
	target, older := shas[len(shas)-1], shas[1]
	tagName, branchName := shas[5][:6], shas[9][:5]
	for _, n := range []string{tagName, branchName} {
		if gitRevParse(t, dir, n) == "" || gitRevParse(t, dir, n) == older {
			t.Fatalf("premise: %s is a unique prefix of a third commit", n)
		}
	}
	gitCmd(t, dir, "tag", tagName, older)
	gitCmd(t, dir, "branch", branchName, older)
	for _, rev := range []string{tagName, branchName, "tags/" + tagName, "heads/" + branchName, tagName + "^{}", branchName + "~0"} {
		got, err := loadCommit(t, dir, rev)
		if err != nil || got != older {
			t.Fatalf("%s: %v, commit %s, want the ref's %s", rev, err, got, older)
		}
		if g := gitRevParse(t, dir, rev); g != older {
			t.Fatalf("premise: git resolves %s to %s", rev, g)
		}
	}
	// An annotated all-hex tag too; and a full 40-hex name is the object,
	// even when a ref has that name (git warns and does the same).
	ann := shas[20][:8]
	gitCmd(t, dir, "tag", "-a", "-m", "build", ann, older)
	gitCmd(t, dir, "tag", target, older)
	for rev, want := range map[string]string{ann: older, target: target} {
		if got, err := loadCommit(t, dir, rev); err != nil || got != want || gitRevParse(t, dir, rev) != want {
			t.Fatalf("%s: %v, commit %s, want %s", rev, err, got, want)
		}
	}
}

// TestRevisionMatchesGitRevParse: for a table of commit-naming revisions,
// Load names exactly the commit `git rev-parse` names, or fails where git
// fails.
func TestRevisionMatchesGitRevParse(t *testing.T) {
	dir, shas := manyCommits(t, 1500)
	head := shas[len(shas)-1]
	gitCmd(t, dir, "tag", "-a", "-m", "release", "v1", shas[100])
	gitCmd(t, dir, "tag", "lightweight", shas[200])
	gitCmd(t, dir, "update-ref", "refs/remotes/origin/main", shas[300])
	gitCmd(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	gitCmd(t, dir, "branch", "topic", shas[400])
	describe := gitCmd(t, dir, "describe", "--tags", "--long", "--match", "v1", shas[150])
	p := collidingPrefix(t, shas)
	revs := []string{
		"HEAD", "@", "@~2", "HEAD~3", "HEAD^", "HEAD^0", "HEAD^2", "HEAD~1^{commit}", "HEAD^{}",
		"main", "heads/main", "refs/heads/main", "topic~1", "v1", "v1^{}", "v1~1", "tags/v1", "lightweight",
		"origin/main", "origin", "remotes/origin/main", "origin/main~2", describe,
		head[:7], head[:4], strings.ToUpper(head[:10]), head, shas[0][:9] + "~0",
		"HEAD^{/commit 1499}", "HEAD^{/^commit 12$}", "HEAD~1^{/!-commit}", "v1^{/commit 9}",
		p, p + "~1", "nosuch", "HEAD~99999", "abc", "ffffffffffffffffffffffffffffffffffffffff", "",
		"../config", "heads/../../HEAD", "refs//heads/main", ".git/HEAD", "ORIG_HEAD",
	}
	for _, rev := range revs {
		want := gitRevParse(t, dir, rev)
		got, err := loadCommit(t, dir, rev)
		if want == "" {
			if err == nil {
				t.Errorf("%q: git refuses it, Load gave %s", rev, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%q: Load %s (%v), git %s", rev, got, err, want)
		}
	}
}

// FuzzResolveRevision: the revision resolver never panics, and whatever it
// accepts is a commit of the repository.
func FuzzResolveRevision(f *testing.F) {
	for _, s := range []string{"HEAD", "HEAD~1", "main^{/x}", "v1^{}", "@", "8a5a", "a^{commit}~2^0", "^{", "~", "^{/!-}", "HEAD^{/(}"} {
		f.Add(s)
	}
	dir, _ := newRepo(f, map[string][]byte{"secrets/a.sops.json": good(f)})
	gitCmd(f, dir, "tag", "-a", "-m", "r", "v1")
	repo, e := gitsource.Open(dir)
	if e != nil {
		f.Fatal(e)
	}
	f.Cleanup(repo.Close)
	f.Fuzz(func(t *testing.T, rev string) {
		c, e := repo.Resolve(rev)
		if e != nil {
			if e.Class != diag.GitRevision {
				t.Fatalf("class %s", e.Class)
			}
			return
		}
		// A full SHA resolves to itself only when it names a commit.
		if again, e := repo.Resolve(c.Hash); e != nil || again.Hash != c.Hash {
			t.Fatalf("resolved to a non-commit %s", c.Hash)
		}
	})
}

// TestResolveNamesTheCommitLoadReads: Resolve gives the commit Load reads
// for the same revision, and loading at that commit after the branch moved
// still reads it (a run of several scopes resolves once, then loads each
// scope at the hash); an unknown revision is git:revision.
func TestResolveNamesTheCommitLoadReads(t *testing.T) {
	dir, all := manyCommits(t, 2)
	opts := baseOptions(dir)
	opts.Revision = "main"
	hash, err := Resolve(opts)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if hash != all[len(all)-1] {
		t.Fatalf("Resolve(main) = %s, want the branch head %s", hash, all[len(all)-1])
	}
	gitCmd(t, dir, "update-ref", "refs/heads/main", all[0])
	if got, err := loadCommit(t, dir, hash); err != nil || got != hash {
		t.Fatalf("Load at the resolved hash = %s, %v; want %s", got, err, hash)
	}
	opts.Revision = "no-such-branch"
	_, err = Resolve(opts)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 || ds[0].Class != diag.GitRevision {
		t.Fatalf("Resolve(no-such-branch) = %v, want git:revision", err)
	}
}
