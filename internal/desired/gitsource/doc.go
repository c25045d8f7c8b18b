// Package gitsource is the Git half of the desired-state loader (SPEC §3):
// it opens and vets a repository (Open: a work tree, a bare repository or a
// linked worktree, shallow, sparse or partial; only its object database
// and refs, never the working tree or the index), resolves a revision to
// one commit (Repository.Resolve, gitrevisions), lists the documents under
// the source root at that commit (Repository.List), checks each one's
// structure (Repository.Check: file type, size, Git LFS pointer) and reads
// a blob (Repository.Read). It hands out bytes and knows nothing of SOPS;
// internal/desired composes it with internal/desired/decryptor.
//
// Invariants:
//   - Nothing here fetches from a remote or runs git: an object the clone
//     lacks is an error (git:*), never a network call.
//   - Every failure is a *diag.Diagnostic of a registered class (git:*,
//     source:*, interrupted) without a subject (internal/desired ties it
//     to its document) and without go-git's text.
//   - A Repository is not safe for concurrent use (go-git's are not).
package gitsource
