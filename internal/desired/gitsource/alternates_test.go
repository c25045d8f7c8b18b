package gitsource

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeAlternates writes repo's objects/info/alternates naming objectDirs
// (absolute paths, as git clone --shared writes them).
func writeAlternates(t *testing.T, repo string, objectDirs ...string) {
	t.Helper()
	p := filepath.Join(repo, ".git", "objects", "info", "alternates")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Join(objectDirs, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func objectsOf(repo string) string { return filepath.Join(repo, ".git", "objects") }

// blobStartingWith writes into repo a blob whose SHA starts with prefix
// (4 hex digits: a few tens of thousands of tries) and returns its SHA.
func blobStartingWith(t *testing.T, repo, prefix string) string {
	t.Helper()
	for i := 0; ; i++ {
		body := fmt.Sprintf("filler %d\n", i)
		sum := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(body), body)))
		if !strings.HasPrefix(hex.EncodeToString(sum[:]), prefix) {
			continue
		}
		f := filepath.Join(t.TempDir(), "blob")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return gitRun(t, repo, "hash-object", "-w", f)
	}
}

// gitNames asks the git CLI in dir which commit rev names: its SHA, or ""
// when git refuses it. Only the last line of git's answer is the name
// (git also warns about alternates nested too deep).
func gitNames(t *testing.T, dir, rev string) string {
	t.Helper()
	last := func(out string) string { lines := strings.Split(out, "\n"); return lines[len(lines)-1] }
	out, err := gitOutput(dir, "rev-parse", "--verify", "--quiet", rev)
	if err != nil {
		return ""
	}
	out, err = gitOutput(dir, "rev-parse", "--verify", "--quiet", last(out)+"^{commit}")
	if err != nil {
		return ""
	}
	return last(out)
}

// TestRegression_AlternatesAreFollowedSixDeepAsGit: a short SHA counts the
// objects of every object directory git reads through nested alternates,
// six deep (git's link_alt_odb_entries refuses nesting past depth 5
// counted from 0), and none further. A leaf whose commit is in its first
// alternate and whose 4-digit prefix is also a blob's six alternates away
// is ambiguous, as in git; seven away the blob is not seen and the prefix
// names the commit. Before, the blob six away was not seen (five levels).
func TestRegression_AlternatesAreFollowedSixDeepAsGit(t *testing.T) {
	for _, hops := range []int{6, 7} {
		t.Run(fmt.Sprint(hops), func(t *testing.T) {
			far, _ := newRepo(t, map[string]string{"a.sops.json": "{}"})
			dirs := []string{far}
			for k := 1; k <= hops; k++ {
				d := t.TempDir()
				gitRun(t, d, "init", "-q", "-b", "main")
				writeAlternates(t, d, objectsOf(dirs[k-1]))
				dirs = append(dirs, d)
			}
			leaf := dirs[hops]
			near := commit(t, dirs[hops-1], map[string]string{"b.sops.json": "{}"}, "near")
			prefix := near[:4]
			blob := blobStartingWith(t, far, prefix)
			if _, err := gitOutput(dirs[1], "cat-file", "-e", blob); err != nil {
				t.Fatalf("premise: the blob is in the chain's root: %v", err)
			}
			want := gitNames(t, leaf, prefix)
			if hops == 6 && want != "" || hops == 7 && want != near {
				t.Fatalf("premise: git in the leaf names %q for %s (near commit %s)", want, prefix, near)
			}
			got, e := open(t, leaf).Resolve(prefix)
			switch {
			case want == "" && (e == nil || !strings.Contains(e.Summary, "ambiguous")):
				t.Fatalf("Resolve(%s) = %s, %v; want ambiguous, as git", prefix, got.Hash, e)
			case want != "" && (e != nil || got.Hash != want):
				t.Fatalf("Resolve(%s) = %s, %v; want %s, as git", prefix, got.Hash, e, want)
			}
		})
	}
}

// TestAlternatesThatBorrowFromEachOther: two repositories whose alternates
// name each other (a cycle git reads without complaint) still resolve a
// short SHA of a commit of their own.
func TestAlternatesThatBorrowFromEachOther(t *testing.T) {
	a, sha := newRepo(t, map[string]string{"a.sops.json": "{}"})
	b, _ := newRepo(t, map[string]string{"b.sops.json": "{}"})
	writeAlternates(t, a, objectsOf(b))
	writeAlternates(t, b, objectsOf(a))
	if gitNames(t, a, sha[:8]) != sha {
		t.Fatalf("premise: git resolves %s in a", sha[:8])
	}
	if got, e := open(t, a).Resolve(sha[:8]); e != nil || got.Hash != sha {
		t.Fatalf("Resolve(%s) = %s, %v; want %s", sha[:8], got.Hash, e, sha)
	}
}
