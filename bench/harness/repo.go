package harness

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Repo is a Git repository built for a benchmark.
type Repo struct {
	Dir    string // work tree
	Commit string // 40-hex SHA of the single commit
}

// WriteRepo creates a Git repository in dir whose single commit holds the
// encrypted documents of every corpus (cipher[i][j] is corpora[i].Docs[j]
// encrypted). It uses the git CLI with a private HOME and no system config,
// so the machine's Git configuration cannot change the result.
func WriteRepo(dir string, corpora []Corpus, cipher [][][]byte) (Repo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Repo{}, err
	}
	home := filepath.Join(dir, ".home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return Repo{}, err
	}
	work := filepath.Join(dir, "repo")
	git := func(args ...string) (string, error) {
		// No automatic gc: "git commit" of 12,000 new objects otherwise
		// starts "git gc --auto" detached in the background, which then
		// shares the CPUs with the first measured runs.
		cmd := exec.Command("git", append([]string{"-c", "gc.auto=0"}, args...)...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(),
			"HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.invalid",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.invalid")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(errb.String()))
		}
		return strings.TrimSpace(out.String()), nil
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return Repo{}, err
	}
	if _, err := git("init", "-q", "-b", "main"); err != nil {
		return Repo{}, err
	}
	roots := map[string]bool{}
	for i, c := range corpora {
		for j, d := range c.Docs {
			p := filepath.Join(work, filepath.FromSlash(d.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return Repo{}, err
			}
			if err := os.WriteFile(p, cipher[i][j], 0o644); err != nil {
				return Repo{}, err
			}
		}
		roots[c.Scope.SourceRoot] = true
	}
	// A file outside every source root that the CLI must ignore.
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("benchmark repository\n"), 0o644); err != nil {
		return Repo{}, err
	}
	args := []string{"add", "--", "README.md"}
	for r := range roots {
		args = append(args, r)
	}
	if _, err := git(args...); err != nil {
		return Repo{}, err
	}
	if _, err := git("commit", "-q", "--no-gpg-sign", "-m", "benchmark documents"); err != nil {
		return Repo{}, err
	}
	// Packed, as in the fresh clone a CI job reads, in the foreground (a
	// detached automatic gc made the first run after writing the repository
	// spend 4.1-4.8 s loading 10,000 documents instead of 2.4-2.7 s). Then
	// flush the written files, so no measured run shares the disk with
	// their write-back.
	if _, err := git("gc", "-q", "--prune=now"); err != nil {
		return Repo{}, err
	}
	flushFileSystems()
	sha, err := git("rev-parse", "HEAD")
	if err != nil {
		return Repo{}, err
	}
	return Repo{Dir: work, Commit: sha}, nil
}
