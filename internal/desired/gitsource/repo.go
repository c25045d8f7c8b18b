package gitsource

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/cache"
	format "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// objectCacheSize bounds go-git's cache of decoded objects. Each document's
// blob is read once, so caching blobs only keeps them alive for the garbage
// collector to scan; the trees of one walk fit easily. go-git's default
// (96 MiB) held every encrypted document of a load: peak RSS 147 MB for
// 10,000 documents of 1 KiB, 96 MB with this cache (docs/desired-state.md).
const objectCacheSize = 4 * cache.MiByte

// Repository is an opened repository: its object database and refs, never
// its working tree or index. Not safe for concurrent use (go-git
// repositories are not); Close releases it.
type Repository struct {
	*git.Repository
	// partial is true for a partial clone (a promisor remote or
	// extensions.partialClone): objects may be absent by design.
	partial bool
	// objectsDir is the object directory (in the common directory of a
	// linked worktree), for listing SHA prefixes in its alternates.
	objectsDir string
	storage    *filesystem.Storage
}

// Close releases the pack file descriptors kept open while reading.
func (r *Repository) Close() { r.storage.Close() }

// Open opens the repository at dir (a work tree, a bare repository or a
// linked worktree; never searched upwards, so --repository must be the
// repository root). Only the object database and refs are used, never the
// working tree or the index. A directory that holds no repository, or a
// repository whose format this reader cannot read safely, is
// git:repository (checkFormat names the extension).
//
// go-git v5.19 refuses every repository extension except "noop" (and its
// v0 allow-list compares lower-cased names with camel-cased ones, so even
// worktreeConfig fails), which rejected the clones `git sparse-checkout`
// and `git clone --filter` produce. The repository format is therefore
// checked here, by checkFormat, against what reading one commit's objects
// and refs needs; go-git is then given the configuration without the
// extensions this check accepted.
func Open(dir string) (*Repository, *diag.Diagnostic) {
	bad := problem(diag.GitRepository, "", "")
	fs, common, err := repositoryFilesystem(dir)
	if err != nil {
		return nil, bad
	}
	// Pack files are kept open: by default go-git reopens the pack for every
	// object, which dominated reading 1,000 documents. ExclusiveAccess lets
	// go-git list the loose objects once instead of trying to open a loose
	// file before every packed object (8 % of the CPU of loading 1,000
	// documents); the objects of a resolved commit never change, and one
	// that disappears mid-read (a concurrent git gc) fails the load as a
	// read error. No work tree is attached.
	st := filesystem.NewStorageWithOptions(fs, cache.NewObjectLRU(objectCacheSize),
		filesystem.Options{MaxOpenDescriptors: 64, ExclusiveAccess: true,
			// Alternates (git clone --shared or --reference) are absolute
			// paths; by default go-git resolves them inside .git.
			AlternatesFS: osfs.New("/")})
	cfg, err := st.Config()
	if err != nil {
		st.Close()
		return nil, bad
	}
	if e := checkFormat(cfg); e != nil {
		st.Close()
		return nil, e
	}
	partial := isPartialClone(cfg)
	cfg.Raw.RemoveSection("extensions")
	repo, err := git.Open(vettedConfig{st, cfg}, nil)
	if err != nil {
		st.Close()
		return nil, bad
	}
	return &Repository{Repository: repo, partial: partial, objectsDir: filepath.Join(common, "objects"), storage: st}, nil
}

// vettedConfig is the repository's storage with its configuration as
// checkFormat accepted it (the accepted extensions removed).
type vettedConfig struct {
	*filesystem.Storage
	cfg *config.Config
}

func (v vettedConfig) Config() (*config.Config, error) { return v.cfg, nil }

// repositoryFilesystem finds the Git directory of dir the way
// git.PlainOpen does without DetectDotGit: dir/.git as a directory (a work
// tree), dir/.git as a "gitdir: <path>" file (a linked worktree or a
// submodule; the path may be relative to dir), or dir itself (a bare
// repository). A Git directory with a "commondir" file (a linked worktree)
// keeps its objects and refs in that common directory. The directory is
// never searched upwards: --repository must be the repository root. It
// returns the Git directory's filesystem and the path of the directory that
// holds the objects (the common directory, or the Git directory itself).
func repositoryFilesystem(dir string) (billy.Filesystem, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	gitDir := abs
	fi, err := os.Stat(filepath.Join(abs, ".git"))
	switch {
	case err == nil && fi.IsDir():
		gitDir = filepath.Join(abs, ".git")
	case err == nil:
		b, err := os.ReadFile(filepath.Join(abs, ".git"))
		if err != nil {
			return nil, "", err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		target, ok := strings.CutPrefix(line, "gitdir: ")
		if !ok {
			return nil, "", os.ErrNotExist
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(abs, target)
		}
		gitDir = target
	case !os.IsNotExist(err):
		return nil, "", err
	}
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return nil, "", os.ErrNotExist
	}
	dot := osfs.New(gitDir)
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if os.IsNotExist(err) {
		return dot, gitDir, nil
	}
	if err != nil {
		return nil, "", err
	}
	common := strings.TrimSpace(string(b))
	if common == "" {
		return dot, gitDir, nil
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	if fi, err := os.Stat(common); err != nil || !fi.IsDir() {
		return nil, "", os.ErrNotExist
	}
	return dotgit.NewRepositoryFilesystem(dot, osfs.New(common)), common, nil
}

// readableExtensions are the repository extensions (git-config(1),
// "extensions.*"; gitrepository-layout(5)) that do not change how the
// objects and refs of a commit are stored, so a reader that only reads
// them may ignore them:
//
//   - noop, noop-v1: defined to change nothing.
//   - worktreeConfig: per-worktree config files (config.worktree), set by
//     `git sparse-checkout` in both modes and by `git worktree` tooling; it
//     affects configuration lookup, not the object database.
//   - partialClone: names the promisor remote of a partial clone; objects
//     the clone did not fetch are absent, which reading reports as
//     git:object-missing.
//   - preciousObjects: forbids deleting objects (gc, prune); reading is
//     unaffected.
//   - relativeWorktrees: worktree links use relative paths, which
//     repositoryFilesystem resolves.
//
// objectFormat is readable only as "sha1" and refStorage only as "files"
// (go-git v5 reads neither SHA-256 objects nor reftable refs). Every other
// extension is refused, at any repository format version: a reader that
// ignored an extension it does not know could read the wrong objects.
var readableExtensions = map[string]bool{
	"noop": true, "noop-v1": true, "worktreeconfig": true, "partialclone": true,
	"preciousobjects": true, "relativeworktrees": true,
}

var extensionName = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)

// checkFormat is the documented pre-check that replaces go-git's extension
// check (docs/desired-state.md, "Git"): repository format version 0 or 1,
// and only extensions that readableExtensions accepts.
func checkFormat(cfg *config.Config) *diag.Diagnostic {
	// go-git records only version 1 in cfg.Core; the raw value is what
	// git reads (the last one in the file wins).
	version := ""
	if cfg.Raw != nil {
		for _, sec := range cfg.Raw.Sections {
			if sec.IsName("core") && sec.HasOption("repositoryformatversion") {
				version = sec.Option("repositoryformatversion")
			}
		}
	}
	switch strings.TrimSpace(version) {
	case "", "0", "1":
	default:
		return problem(diag.GitRepository,
			"the repository uses a repository format version newer than this tool can read (core.repositoryformatversion)",
			"run against a clone made by a Git version whose format this tool reads (version 0 or 1)")
	}
	for _, opt := range extensionOptions(cfg) {
		name, value := strings.ToLower(opt.Key), strings.ToLower(strings.TrimSpace(opt.Value))
		switch {
		case readableExtensions[name]:
		case name == "objectformat" && value == "sha1":
		case name == "objectformat":
			return problem(diag.GitRepository,
				"the repository uses an object format other than SHA-1 (extensions.objectFormat), which this tool's Git library cannot read",
				"run against a SHA-1 clone of the repository")
		case name == "refstorage" && value == "files":
		case name == "refstorage":
			return problem(diag.GitRepository,
				"the repository stores its refs in a format other than files (extensions.refStorage, e.g. reftable), which this tool's Git library cannot read",
				"run against a clone that uses the files ref storage (git clone --ref-format=files)")
		default:
			shown := "an extension"
			if extensionName.MatchString(name) {
				shown = "extensions." + name
			}
			return problem(diag.GitRepository,
				"the repository enables "+shown+", which this tool does not know how to read safely",
				"run against a clone without that extension (a plain git clone, shallow or sparse, is readable)")
		}
	}
	return nil
}

// extensionOptions returns every extensions.* option, from every
// [extensions] section of the file.
func extensionOptions(cfg *config.Config) format.Options {
	var out format.Options
	if cfg.Raw == nil {
		return nil
	}
	for _, sec := range cfg.Raw.Sections {
		if sec.IsName("extensions") {
			out = append(out, sec.Options...)
		}
	}
	return out
}

// isPartialClone reports whether the configuration names a promisor
// remote (remote.<name>.promisor = true, or extensions.partialClone), as
// `git clone --filter` records it.
func isPartialClone(cfg *config.Config) bool {
	if cfg.Raw == nil {
		return false
	}
	for _, opt := range extensionOptions(cfg) {
		if opt.IsKey("partialclone") && strings.TrimSpace(opt.Value) != "" {
			return true
		}
	}
	if !cfg.Raw.HasSection("remote") {
		return false
	}
	for _, sub := range cfg.Raw.Section("remote").Subsections {
		if strings.EqualFold(strings.TrimSpace(sub.Option("promisor")), "true") {
			return true
		}
	}
	return false
}
