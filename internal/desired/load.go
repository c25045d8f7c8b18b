package desired

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

type normalized struct {
	repo, rev, root, prefix string
	maxBytes                int64
	conc                    int
	keyTimeout              time.Duration
	show                    bool
	scope                   model.Scope
}

func (n *normalized) redaction() model.Redaction { return model.Redaction{ShowNames: n.show} }

// normalize derives the loader's view of its options. They arrive resolved
// and validated by config.Resolve (the one home of every setting's rule);
// the loader neither re-validates nor re-defaults them.
func normalize(o config.Desired) *normalized {
	return &normalized{
		repo: o.RepoPath, rev: o.Revision, root: o.SourceRoot, prefix: o.SecretPrefix,
		maxBytes: o.MaxEncryptedBytes, conc: max(1, o.Concurrency), show: o.ShowResourceNames,
		keyTimeout: o.KeyServiceTimeout,
		scope:      model.Scope{RepositoryID: o.RepositoryID, SourceRoot: o.SourceRoot, Prefix: o.SecretPrefix},
	}
}

// Load reads the desired state of one scope at one commit (SPEC §3):
// resolve opts.Revision once to a 40-hex commit; walk the committed tree
// under the source root; select *.sops.json, *.sops.yaml, *.sops.yml and
// *.sops.env; check structure (regular files, sizes, names, collisions) for
// every document before decrypting any; decrypt up to opts.Concurrency
// documents in parallel with the SOPS library (MAC verified); canonicalize
// each plaintext (internal/canonical).
//
// The returned State holds the commit, the scope and the secrets ordered by
// name. Every error is a diag.Diagnostics (registered classes, the
// document's ordinal, its path only with ShowResourceNames). A repository
// or revision failure is one diagnostic. Otherwise every invalid document
// of the commit is reported, so that a commit with several is fixed in one
// CI run (issue 13 item 5): first the structure of every document is
// checked (file type, size, name, collision); if any breaks it, those are
// reported and nothing is decrypted; else every document is decrypted and
// checked even after one fails. Each invalid document is one diagnostic,
// in ordinal order, at most MaxReportedDocuments of them, then one
// desired:more-invalid diagnostic saying how many more there are. If ctx is cancelled, Load returns promptly with class
// "interrupted" wrapping ctx.Err(), even while a key-service call is in
// flight (the call is cancelled with ctx). Each remote key-service call (AWS
// KMS and the other remote SOPS key services) is bounded by
// opts.KeyServiceTimeout (--operation-timeout); one that runs out fails its
// document with decrypt:key-service. The repository may be any shape CI
// produces (shallow, sparse, partial, linked worktree, shared); see
// checkFormat for the repository extensions it reads.
func Load(ctx context.Context, opts config.Desired) (model.State, error) {
	return LoadWithProgress(ctx, opts, nil)
}

// Progress counts the documents of one Load, for a progress reporter that
// samples it at its own interval (issue 15, item 2): Total is known once
// the tree is walked, Done counts documents decrypted and checked. Safe for
// concurrent use; the zero value is ready.
type Progress struct {
	total, done atomic.Int64
}

// Total is the number of selected documents (0 until the walk ends).
func (p *Progress) Total() int64 { return p.total.Load() }

// Done is the number of documents decrypted and checked so far.
func (p *Progress) Done() int64 { return p.done.Load() }

func (p *Progress) setTotal(n int) {
	if p != nil {
		p.total.Store(int64(n))
	}
}

func (p *Progress) addDone() {
	if p != nil {
		p.done.Add(1)
	}
}

// LoadWithProgress is Load, counting documents in p (nil: no counting).
func LoadWithProgress(ctx context.Context, opts config.Desired, p *Progress) (model.State, error) {
	st, e, invalid := load(ctx, opts, p)
	switch {
	case e != nil:
		return model.State{}, reject(e)
	case len(invalid) > 0:
		return model.State{}, capped(invalid)
	}
	return st, nil
}

// MaxReportedDocuments is the most invalid documents one run reports, each
// with its own diagnostic; past it one desired:more-invalid diagnostic
// counts the rest.
const MaxReportedDocuments = 50

// capped returns the diagnostics of the invalid documents (already in
// ordinal order) cut at MaxReportedDocuments, plus the count of the rest.
func capped(invalid []*diag.Diagnostic) diag.Diagnostics {
	ds := make(diag.Diagnostics, 0, min(len(invalid), MaxReportedDocuments)+1)
	for _, e := range invalid[:min(len(invalid), MaxReportedDocuments)] {
		ds = append(ds, *e)
	}
	if n := len(invalid) - MaxReportedDocuments; n > 0 {
		ds = append(ds, diag.New(diag.DesiredMoreInvalid, diag.Subject{}).
			WithSummary("and "+strconv.Itoa(n)+" more invalid documents are not listed (the first "+strconv.Itoa(MaxReportedDocuments)+" by ordinal are)"))
	}
	return ds
}

// load returns the state, or the one diagnostic that stopped it, or the
// diagnostics of every invalid document (in ordinal order).
func load(ctx context.Context, opts config.Desired, p *Progress) (model.State, *diag.Diagnostic, []*diag.Diagnostic) {
	if err := ctx.Err(); err != nil {
		return model.State{}, interrupted(err), nil
	}
	o := normalize(opts)
	repo, closeRepo, e := openRepository(o.repo)
	if e != nil {
		return model.State{}, e, nil
	}

	commit, e := resolveCommit(repo, o.rev)
	if e != nil {
		closeRepo()
		return model.State{}, e, nil
	}
	docs, e, invalid := selectDocuments(ctx, repo, commit, o)
	if e != nil || len(invalid) > 0 {
		closeRepo()
		if ctx.Err() != nil {
			return model.State{}, interrupted(ctx.Err()), nil
		}
		return model.State{}, e, invalid
	}
	// decryptAll's dispatcher is the last user of repo and closes it, also
	// when Load has already returned on cancellation.
	p.setTotal(len(docs))
	values, e, invalid := decryptAll(ctx, repo, closeRepo, docs, o, p)
	if e != nil || len(invalid) > 0 {
		return model.State{}, e, invalid
	}
	secrets := make([]model.Secret, len(docs))
	for i, d := range docs {
		secrets[i] = model.Secret{
			Name:         d.name,
			Value:        values[i],
			SourceDigest: model.SourceDigest(d.path),
			Path:         d.path,
			Ordinal:      d.ordinal,
		}
	}
	sort.Slice(secrets, func(i, j int) bool { return secrets[i].Name < secrets[j].Name })
	return model.State{Commit: commit.Hash.String(), Scope: o.scope, Secrets: secrets}, nil, nil
}

func interrupted(cause error) *diag.Diagnostic {
	e := diag.New(ClassInterrupted, diag.Subject{}).
		WithSummary("reading the desired state was interrupted (signal or run timeout) before every document was decrypted and checked").
		WithCause(cause)
	return &e
}

// decryptAll reads, decrypts and canonicalizes every document with at most
// o.conc decryptions in flight. Blobs are read by one dispatcher goroutine
// (go-git repositories are not safe for concurrent use), in ordinal order,
// so at most o.conc encrypted documents are held in memory at once. A
// failing document does not stop the others: it returns the diagnostics
// of every invalid document in ordinal order (docs is in ordinal order),
// or the interruption.
func decryptAll(ctx context.Context, repo *repository, closeRepo func(), docs []*document, o *normalized, p *Progress) ([][]byte, *diag.Diagnostic, []*diag.Diagnostic) {
	values := make([][]byte, len(docs))
	errs := make([]*diag.Diagnostic, len(docs))
	sem := make(chan struct{}, o.conc)
	src := &keySources{ctx: ctx, timeout: o.keyTimeout, ages: &ageIdentities{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer closeRepo() // runs before wg.Wait: workers never touch repo
		for i, d := range docs {
			// After cancellation nothing new starts.
			if ctx.Err() != nil {
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			data, err := readBlob(repo, d.hash, o.maxBytes)
			if err != nil {
				if err == errBlobTooLarge {
					errs[i] = docError(ClassSourceTooLarge, d, o.show, "", "")
				} else {
					errs[i] = withDoc(repo.objectError(err), d, o.show)
				}
				<-sem
				continue
			}
			wg.Add(1)
			go func(i int, d *document, data []byte) {
				defer wg.Done()
				defer func() { <-sem }()
				v, e := decryptDocument(data, d, o.show, src)
				if e != nil {
					errs[i] = e
					return
				}
				values[i] = v
				p.addDone()
			}(i, d, data)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, interrupted(ctx.Err()), nil
	}
	if err := ctx.Err(); err != nil {
		return nil, interrupted(err), nil
	}
	var invalid []*diag.Diagnostic
	for _, e := range errs {
		if e != nil {
			invalid = append(invalid, e)
		}
	}
	if len(invalid) > 0 {
		return nil, nil, invalid
	}
	return values, nil, nil
}

// decryptDocument turns one committed blob into its canonical value.
func decryptDocument(data []byte, d *document, show bool, src *keySources) ([]byte, *diag.Diagnostic) {
	plain, f := decryptSOPS(data, d.format, src)
	if f != nil {
		return nil, docError(f.class, d, show, f.what, f.next)
	}
	v, err := canonical.Canonicalize(d.format, plain)
	clear(plain)
	if err != nil {
		// canonical's errors are *canonical.Error (its documented contract);
		// anything else would be a bug there, reported as plaintext:syntax
		// rather than a panic here.
		var ce *canonical.Error
		if !errors.As(err, &ce) {
			return nil, docError(ClassPlaintextSyntax, d, show, "", "")
		}
		// canonical knows the precise rule broken, so it chooses the action.
		return nil, docError(ce.Class, d, show, ce.What, ce.Next)
	}
	return v, nil
}
