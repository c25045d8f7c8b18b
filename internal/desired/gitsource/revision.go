package gitsource

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// The revision resolver follows gitrevisions(7) and git's own order
// (get_oid_1 in Git's object-name.c), because go-git's ResolveRevision
// tries SHA prefixes before refs: a tag named "8a5a" lost to a commit whose
// SHA starts with 8a5a, and an ambiguous prefix silently picked one object.
// The order, for the part before any suffix:
//
//  1. "@" alone is HEAD.
//  2. 40 hex digits name that object, even when a ref has that name (git
//     warns and does the same).
//  3. A ref, by the rules of gitrevisions(7) in order: <name>,
//     refs/<name>, refs/tags/<name>, refs/heads/<name>,
//     refs/remotes/<name>, refs/remotes/<name>/HEAD (the first that exists
//     wins, as in git).
//  4. git describe output, <anything>-g<hex>: the hex is a commit prefix.
//  5. 4 to 39 hex digits: the unique object with that prefix (loose, packed
//     and in alternates). More than one is ambiguous, never a choice. Where
//     the suffix needs a commit (~, ^, ^N, ^{commit}, ^{/regex}) only
//     commits and tags of commits count, as git's GET_OID_COMMITTISH does;
//     for a bare prefix or ^{} every object counts, as for `git rev-parse`.
//
// Suffixes are taken from the right, as git does: ^{}, ^{commit}, ^{/re}
// (youngest reachable commit whose message matches; "!-" negates, "!!" is a
// literal "!"), ~N and ^N (N-th parent, ^0 the commit itself). The result
// must be a commit after peeling tags. Forms that name other objects or
// read reflogs are refused earlier by namesCommit.

var (
	errRevNotFound  = errors.New("revision not found")
	errRevAmbiguous = errors.New("short object name is ambiguous")
	errRevNotCommit = errors.New("revision names no commit")
)

// minAbbrev is git's MINIMUM_ABBREV: shorter hex strings are never SHA
// prefixes.
const minAbbrev = 4

// Commit is a resolved commit.
type Commit struct {
	// Hash is the full 40-hex SHA-1.
	Hash string
	tree plumbing.Hash
}

// Resolve resolves rev once to a commit (SPEC §2.1), exactly as
// `git rev-parse` does (the order above). Errors are git:revision; an
// ambiguous short SHA has its own next action. Two deviations bound
// hostile input: at most 64 nested suffixes (^{…}, ~N, ^N) below the base
// name of --revision, and at most 63 nested annotated tags peeled
// (peelTags); git has neither bound.
func (repo *Repository) Resolve(rev string) (Commit, *diag.Diagnostic) {
	bad := problem(diag.GitRevision, "", "")
	if !namesCommit(rev) {
		return Commit{}, bad
	}
	h, err := repo.resolve(rev, false, 0)
	if err == nil {
		var c *object.Commit
		if c, err = repo.peelCommit(h); err == nil {
			return Commit{Hash: c.Hash.String(), tree: c.TreeHash}, nil
		}
	}
	if errors.Is(err, errRevAmbiguous) {
		return Commit{}, problem(diag.GitRevision,
			"the revision is a short SHA that more than one object in this repository starts with (git: ambiguous argument)",
			"pass --revision the full 40-character commit SHA (in GitHub Actions: ${{ github.sha }}), or a branch or tag name")
	}
	return Commit{}, bad
}

// resolve returns the object that rev names. committish restricts SHA
// prefixes to commit-ish objects (the suffix that follows needs a commit).
func (r *Repository) resolve(rev string, committish bool, depth int) (plumbing.Hash, error) {
	if depth > 64 || rev == "" {
		return plumbing.ZeroHash, errRevNotFound
	}
	if strings.HasSuffix(rev, "}") {
		sp := strings.LastIndex(rev, "^{")
		if sp < 0 {
			return plumbing.ZeroHash, errRevNotFound
		}
		base, arg := rev[:sp], rev[sp+2:len(rev)-1]
		switch {
		case arg == "":
			h, err := r.resolve(base, false, depth+1)
			if err != nil {
				return h, err
			}
			return r.peelTags(h)
		case arg == "commit":
			c, err := r.resolveCommitish(base, depth)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			return c.Hash, nil
		case strings.HasPrefix(arg, "/"):
			c, err := r.resolveCommitish(base, depth)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			return r.searchMessage(c, arg[1:])
		}
		return plumbing.ZeroHash, errRevNotCommit
	}
	// A trailing ~N or ^N (N optional).
	i := len(rev)
	for i > 0 && rev[i-1] >= '0' && rev[i-1] <= '9' {
		i--
	}
	if i > 0 && (rev[i-1] == '~' || rev[i-1] == '^') {
		n := 1
		if i < len(rev) {
			v, err := strconv.Atoi(rev[i:])
			if err != nil {
				return plumbing.ZeroHash, errRevNotFound
			}
			n = v
		}
		c, err := r.resolveCommitish(rev[:i-1], depth)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if rev[i-1] == '~' {
			for ; n > 0; n-- {
				if c, err = r.parent(c, 1); err != nil {
					return plumbing.ZeroHash, err
				}
			}
			return c.Hash, nil
		}
		if n == 0 {
			return c.Hash, nil
		}
		if c, err = r.parent(c, n); err != nil {
			return plumbing.ZeroHash, err
		}
		return c.Hash, nil
	}
	return r.resolveName(rev, committish)
}

// resolveCommitish resolves rev where the suffix after it needs a commit:
// SHA prefixes count only commit-ish objects, and tags are peeled.
func (r *Repository) resolveCommitish(rev string, depth int) (*object.Commit, error) {
	h, err := r.resolve(rev, true, depth+1)
	if err != nil {
		return nil, err
	}
	return r.peelCommit(h)
}

var describeName = regexp.MustCompile(`-g([0-9a-fA-F]+)$`)

// resolveName resolves a revision without suffixes (steps 1–5 above).
func (r *Repository) resolveName(name string, committish bool) (plumbing.Hash, error) {
	if name == "@" {
		name = "HEAD"
	}
	if len(name) == 2*len(plumbing.ZeroHash) && isHex(name) {
		return plumbing.NewHash(strings.ToLower(name)), nil
	}
	for _, rule := range plumbing.RefRevParseRules {
		rn := plumbing.ReferenceName(fmt.Sprintf(rule, name))
		if !validRefName(rn) {
			continue
		}
		ref, err := storer.ResolveReference(r.Storer, rn)
		if err == nil && ref.Type() == plumbing.HashReference {
			return ref.Hash(), nil
		}
	}
	if m := describeName.FindStringSubmatch(name); m != nil && len(m[1]) >= minAbbrev && len(m[1]) <= 40 {
		if h, err := r.uniquePrefix(m[1], true); err == nil || errors.Is(err, errRevAmbiguous) {
			return h, err
		}
	}
	if len(name) >= minAbbrev && len(name) < 40 && isHex(name) {
		return r.uniquePrefix(name, committish)
	}
	return plumbing.ZeroHash, errRevNotFound
}

var rootRefName = regexp.MustCompile(`^[A-Z_]+$`)

// validRefName is git-check-ref-format for a name the rules produced, so
// that a revision such as "../config" never reads a file outside the refs:
// a multi-level name must be valid (go-git's Validate), a one-level one
// must have the root-ref syntax of HEAD, FETCH_HEAD, ORIG_HEAD (upper case
// and underscores), as git's own lookup requires.
func validRefName(rn plumbing.ReferenceName) bool {
	if !strings.Contains(string(rn), "/") {
		return rootRefName.MatchString(string(rn))
	}
	return rn.Validate() == nil
}

// isHex reports whether s is hex digits of either case (git reads object
// names case-insensitively): model's one hex rule on the lower-cased text.
func isHex(s string) bool { return s != "" && model.IsLowerHex(strings.ToLower(s), len(s)) }

// uniquePrefix returns the one object whose SHA starts with the hex
// prefix, looking at loose and packed objects and at alternates.
func (r *Repository) uniquePrefix(prefix string, committish bool) (plumbing.Hash, error) {
	prefix = strings.ToLower(prefix)
	even, err := hex.DecodeString(prefix[:len(prefix)&^1])
	if err != nil {
		return plumbing.ZeroHash, errRevNotFound
	}
	seen := map[plumbing.Hash]bool{}
	var found []plumbing.Hash
	add := func(hs []plumbing.Hash) {
		for _, h := range hs {
			if seen[h] || !strings.HasPrefix(h.String(), prefix) {
				continue
			}
			seen[h] = true
			if committish && !r.isCommitish(h) {
				continue
			}
			found = append(found, h)
		}
	}
	type prefixer interface {
		HashesWithPrefix([]byte) ([]plumbing.Hash, error)
	}
	if p, ok := r.Storer.(prefixer); ok {
		hs, err := p.HashesWithPrefix(even)
		if err != nil {
			return plumbing.ZeroHash, errRevNotFound
		}
		add(hs)
	}
	for _, alt := range alternateObjectDirs(r.objectsDir, 0) {
		st := filesystem.NewStorage(osfs.New(filepath.Dir(alt)), cache.NewObjectLRU(0))
		hs, err := st.HashesWithPrefix(even)
		st.Close()
		if err == nil {
			add(hs)
		}
	}
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, errRevNotFound
	case 1:
		return found[0], nil
	}
	return plumbing.ZeroHash, errRevAmbiguous
}

// alternateObjectDirs lists the object directories named by
// objects/info/alternates of objectsDir, recursively, absolute or relative
// to objectsDir; '#' lines are comments. As git, the alternates files are
// read at depths 0 to 5 (depth is 0 for the repository's own), so an
// object directory up to six alternates away is listed, none further.
func alternateObjectDirs(objectsDir string, depth int) []string {
	if objectsDir == "" || depth > 5 {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(objectsDir, "info", "alternates"))
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objectsDir, line)
		}
		out = append(out, line)
		out = append(out, alternateObjectDirs(line, depth+1)...)
	}
	return out
}

// isCommitish reports whether h is a commit or a tag that peels to one.
func (r *Repository) isCommitish(h plumbing.Hash) bool {
	_, err := r.peelCommit(h)
	return err == nil
}

// peelTags follows annotated tags until an object that is not a tag,
// through at most 63 tags (64 steps, the last reaching the object): a
// longer chain is errRevNotFound, a bound against a hostile repository
// that git does not have (TestTagChainsArePeeledUpTo63Deep).
func (r *Repository) peelTags(h plumbing.Hash) (plumbing.Hash, error) {
	for i := 0; i < 64; i++ {
		obj, err := r.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil {
			return plumbing.ZeroHash, errRevNotFound
		}
		if obj.Type() != plumbing.TagObject {
			return h, nil
		}
		t, err := object.DecodeTag(r.Storer, obj)
		if err != nil {
			return plumbing.ZeroHash, errRevNotFound
		}
		h = t.Target
	}
	return plumbing.ZeroHash, errRevNotFound
}

// peelCommit returns the commit h names, peeling annotated tags.
func (r *Repository) peelCommit(h plumbing.Hash) (*object.Commit, error) {
	h, err := r.peelTags(h)
	if err != nil {
		return nil, err
	}
	c, err := r.CommitObject(h)
	if err != nil {
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, errRevNotFound
		}
		return nil, errRevNotCommit
	}
	return c, nil
}

// parent returns the n-th (1-based) parent of c; a parent missing from a
// shallow clone is not found.
func (r *Repository) parent(c *object.Commit, n int) (*object.Commit, error) {
	if n < 1 || n > len(c.ParentHashes) {
		return nil, errRevNotFound
	}
	p, err := r.CommitObject(c.ParentHashes[n-1])
	if err != nil {
		return nil, errRevNotFound
	}
	return p, nil
}

// searchMessage implements ^{/regex}: the youngest commit reachable from c
// (by committer date, as git's get_oid_oneline) whose message matches the
// regular expression; "!-" negates it and "!!" stands for a literal "!".
func (r *Repository) searchMessage(c *object.Commit, pattern string) (plumbing.Hash, error) {
	negate := false
	if strings.HasPrefix(pattern, "!") {
		switch {
		case strings.HasPrefix(pattern, "!-"):
			negate, pattern = true, pattern[2:]
		case strings.HasPrefix(pattern, "!!"):
			pattern = pattern[1:]
		default:
			return plumbing.ZeroHash, errRevNotFound
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return plumbing.ZeroHash, errRevNotFound
	}
	found := plumbing.ZeroHash
	iter := object.NewCommitIterCTime(c, nil, nil)
	defer iter.Close()
	err = iter.ForEach(func(hc *object.Commit) error {
		if re.MatchString(hc.Message) != negate {
			found = hc.Hash
			return storer.ErrStop
		}
		return nil
	})
	if err != nil || found.IsZero() {
		return plumbing.ZeroHash, errRevNotFound
	}
	return found, nil
}

// ResolveTree is Resolve for validate (SPEC §15), which may also read a
// tree that no commit holds yet: rev may be the full 40-hex id of a tree
// object, as `git write-tree` prints it for the index (the pre-commit
// hook validates what is staged). The Commit's Hash is then the tree's
// id. Anything else resolves as Resolve resolves it, with its errors.
func (repo *Repository) ResolveTree(rev string) (Commit, *diag.Diagnostic) {
	if len(rev) == 40 && isHex(rev) {
		h := plumbing.NewHash(strings.ToLower(rev))
		if t, err := repo.TreeObject(h); err == nil {
			return Commit{Hash: t.Hash.String(), tree: t.Hash}, nil
		}
	}
	return repo.Resolve(rev)
}
