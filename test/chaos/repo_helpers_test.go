package chaos

import (
	git "github.com/go-git/go-git/v5"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

type objectFile = gitobject.File

func mustWorktreeStatus(r *git.Repository) (git.Status, error) {
	w, err := r.Worktree()
	if err != nil {
		return nil, err
	}
	return w.Status()
}
