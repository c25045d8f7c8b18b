package importer

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
)

// Git is the git CLI over one work tree: what import stages and reads
// back as a tree, as the pre-commit hook does (SPEC §15, §18).
type Git struct {
	// Top is the work tree's root (git rev-parse --show-toplevel).
	Top string
	bin string
}

// ErrGit is the error of a git command that failed (its output is not
// kept: it may name files).
var ErrGit = errors.New("a git command failed")

// OpenGit finds git on PATH and the root of the work tree that holds dir.
func OpenGit(ctx context.Context, dir string) (*Git, error) {
	bin, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrGit
	}
	g := &Git{bin: bin, Top: dir}
	out, err := g.run(ctx, "rev-parse", "--show-toplevel")
	if err != nil || out == "" {
		return nil, ErrGit
	}
	g.Top = out
	return g, nil
}

func (g *Git) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir = g.Top
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", ErrGit
	}
	return strings.TrimSpace(out.String()), nil
}

// Stage adds the files at the work-tree-relative paths to the index.
func (g *Git) Stage(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := g.run(ctx, append([]string{"add", "--"}, paths...)...)
	return err
}

// Unstage removes the paths from the index (the files stay; a path not in
// the index is ignored).
func (g *Git) Unstage(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := g.run(ctx, append([]string{"rm", "--cached", "-q", "--ignore-unmatch", "--"}, paths...)...)
	return err
}

// WriteTree writes the index as a tree and returns its id (git
// write-tree, as the pre-commit hook reads what is staged).
func (g *Git) WriteTree(ctx context.Context) (string, error) {
	return g.run(ctx, "write-tree")
}
