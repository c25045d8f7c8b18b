package desired

import (
	"context"
	"errors"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired/decryptor"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired/gitsource"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Resolve resolves opts.Revision in opts.RepoPath to its 40-hex commit
// once (SPEC §2.1): a run of several scopes opens every scope at that
// commit (Open with Revision set to it), so a branch that moves while the
// run reads cannot give two scopes two commits. Errors are
// diag.Diagnostics: git:repository, git:revision.
func Resolve(opts config.Desired) (string, error) {
	repo, e := gitsource.Open(opts.RepoPath)
	if e != nil {
		return "", diag.Diagnostics{*e}
	}
	defer repo.Close()
	commit, e := resolveIn(repo, opts)
	if e != nil {
		return "", diag.Diagnostics{*e}
	}
	return commit.Hash, nil
}

// resolveIn resolves opts.Revision in repo: a commit-ish, or also a
// tree's id when opts.AllowTree (validate).
func resolveIn(repo *gitsource.Repository, opts config.Desired) (gitsource.Commit, *diag.Diagnostic) {
	if opts.AllowTree {
		return repo.ResolveTree(opts.Revision)
	}
	return repo.Resolve(opts.Revision)
}

// Progress counts the documents of one Decrypt, for a progress reporter that
// samples it at its own interval: Total is known once
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

// Loading is one scope's desired state between the two steps of its load
// (SPEC §3.2). Open resolves the commit, walks the tree and checks the
// structure of every document, so the outline (every desired secret's
// name and source, without its value) is known: it is the Arrival's.
// Decrypt then decrypts and checks every document, publishing each value
// in the Arrival as soon as it is known and finishing it at the end. The
// engine reads Secrets Manager with the outline meanwhile and builds no
// plan before the Arrival is finished (docs/reconciliation.md,
// "Decryption beside the first observation").
//
// A Loading is used by one goroutine; Decrypt is called at most once (it
// closes the repository); Close releases one whose Decrypt is never called.
type Loading struct {
	opts    config.Desired
	repo    *gitsource.Repository
	docs    []*document
	arrival *model.Arrival
	// position holds each document's index in the outline (the documents
	// are in ordinal order, the outline in name order).
	position []int
}

// Open is the first step of a scope's load, the package's one entry point
// (SPEC §3): it resolves opts.Revision once to a 40-hex commit, walks the
// committed tree under the source root, selects the documents by the
// suffix table (model.Suffixes) and checks every structural rule (file
// type, size, name, collision) for every document before any is
// decrypted, so no key service is called for a commit that is already
// invalid. The Loading's Arrival holds the outline: the commit, the scope
// and the secrets ordered by name, each with its Name, Kind, SourceDigest,
// Path and Ordinal.
//
// Every error is a diag.Diagnostics (registered classes, the document's
// ordinal, its path only with ShowResourceNames): a repository or
// revision failure is one diagnostic (git:*); otherwise every
// structurally invalid document, in ordinal order, at most
// MaxReportedDocuments of them, then one desired:more-invalid diagnostic
// counting the rest; an ended ctx is class interrupted wrapping ctx.Err().
// The repository may be any shape CI produces (shallow, sparse, partial,
// linked worktree, shared); see gitsource.Open for the extensions it reads.
func Open(ctx context.Context, opts config.Desired) (*Loading, error) {
	if err := ctx.Err(); err != nil {
		return nil, interrupted(err)
	}
	repo, e := gitsource.Open(opts.RepoPath)
	if e != nil {
		return nil, diag.Diagnostics{*e}
	}
	commit, e := resolveIn(repo, opts)
	if e != nil {
		repo.Close()
		return nil, diag.Diagnostics{*e}
	}
	docs, ds := selectDocuments(ctx, repo, commit, opts)
	if ds != nil {
		repo.Close()
		return nil, ds
	}
	tree, e := repo.RootTree(commit, opts.SourceRoot, missingRoot(opts))
	if e != nil {
		repo.Close()
		return nil, diag.Diagnostics{*e}
	}
	order := make([]int, len(docs))
	for i, d := range docs {
		order[i] = i
		d.source = model.SourceDigest(d.Path)
	}
	sort.Slice(order, func(i, j int) bool { return docs[order[i]].name < docs[order[j]].name })
	secrets := make([]model.Secret, len(order))
	position := make([]int, len(docs))
	for i, k := range order {
		secrets[i] = docs[k].secret()
		position[k] = i
	}
	scope := model.Scope{RepositoryID: opts.RepositoryID, SourceRoot: opts.SourceRoot, Prefix: opts.SecretPrefix, Target: opts.Target}
	outline := model.State{Commit: commit.Hash, SourceTree: tree, Scope: scope, Secrets: secrets}
	return &Loading{opts: opts, repo: repo, docs: docs, arrival: model.NewArrival(outline), position: position}, nil
}

// Arrival is the desired state as Decrypt delivers it: its outline at
// once, each value as its document is decrypted and checked, finished when
// Decrypt returns (model.Arrival has the rules).
func (l *Loading) Arrival() *model.Arrival { return l.arrival }

// Decrypt is the second step: it decrypts every document with the SOPS
// library (MAC verified; at most opts.Concurrency decryptions in flight,
// sharing decryptions with the run's other loads through c, nil: none
// shared; counting documents in p, nil: none counted) and turns each
// plaintext into its canonical value (internal/canonical). A failing
// document does not stop the others, so a commit with several invalid
// documents is fixed in one CI run. It finishes the Arrival, and returns
// the same error: nil with every value published; else a diag.Diagnostics
// of every invalid document in ordinal order (capped as Open's); or,
// when ctx ends, class interrupted wrapping ctx.Err(), promptly, even
// while a key-service call is in flight (the call is cancelled with ctx).
// Each remote key-service call (AWS KMS and the other remote SOPS key
// services) is bounded by opts.KeyServiceTimeout (--operation-timeout);
// one that runs out fails its document with decrypt:key-service. Decrypt
// closes the repository.
func (l *Loading) Decrypt(ctx context.Context, p *Progress, c *Cache) error {
	return l.decrypt(ctx, p, c, nil)
}

// Close releases the repository of a Loading whose Decrypt is never
// called; it does nothing after Decrypt.
func (l *Loading) Close() {
	if l.repo != nil {
		l.repo.Close()
		l.repo = nil
	}
}

// decrypt is Decrypt with the key-service bound started by afterFunc
// (nil: the real clock).
func (l *Loading) decrypt(ctx context.Context, p *Progress, c *Cache, afterFunc decryptor.AfterFunc) error {
	err := l.decryptAll(ctx, p, c, afterFunc, false)
	l.arrival.Finish(err)
	return err
}

// Check is the second step of validate --no-decrypt (SPEC §15), in
// Decrypt's place: it reads every document and applies the checks that
// need no key (decryptor.Decryptor.Check: a SOPS document of the
// suffix's format with its MAC, every leaf its own rules say is encrypted
// in ciphertext form, the whole-value envelope, a key the allow-list
// permits), with Decrypt's concurrency, progress, ordinals, subjects and
// cap. Nothing is decrypted and no key service is contacted; no value is
// published, and the Arrival finishes without values (model.ErrIncomplete
// when every document passed). It returns nil when every document passed,
// else Decrypt's errors. Check closes the repository; it is called
// instead of Decrypt, at most once.
func (l *Loading) Check(ctx context.Context, p *Progress) error {
	err := l.decryptAll(ctx, p, nil, nil, true)
	if err == nil {
		l.arrival.Finish(model.ErrIncomplete)
	} else {
		l.arrival.Finish(err)
	}
	return err
}

func (l *Loading) decryptAll(ctx context.Context, p *Progress, c *Cache, afterFunc decryptor.AfterFunc, structural bool) error {
	repo := l.repo
	if repo == nil {
		return diag.Diagnostics{diag.New(diag.DesiredInternal, diag.Subject{})}
	}
	l.repo = nil
	if err := ctx.Err(); err != nil {
		repo.Close()
		return interrupted(err)
	}
	p.setTotal(len(l.docs))
	// At most GOMAXPROCS documents use the CPU at once; the others of the
	// opts.Concurrency in flight wait for a slot, or for a remote key
	// service (Waiting gives the slot back for the call). A decryption is
	// CPU work (age's X25519, SOPS's parsing, canonicalisation), so more
	// runnable decryptions than CPUs add nothing to the load's speed, and
	// beside the first observation they queued ahead of every SDK call's
	// goroutine (about 4 ms per 20 ms call at 28 on two CPUs).
	cpu := make(chan struct{}, runtime.GOMAXPROCS(0))
	dec := decryptor.New(ctx, decryptor.Options{
		MaxEncryptedBytes: l.opts.MaxEncryptedBytes, KeyServiceTimeout: l.opts.KeyServiceTimeout,
		KeyServices: l.opts.KeyServices, AfterFunc: afterFunc,
		Waiting: func() func() {
			<-cpu
			return func() { cpu <- struct{}{} }
		}})
	// decryptAll's dispatcher is the last user of repo and closes it, also
	// when Decrypt has already returned on cancellation.
	work := func(data []byte, d *document) ([]byte, *diag.Diagnostic) { return decryptDocument(dec, data, d) }
	if structural {
		work = func(data []byte, d *document) ([]byte, *diag.Diagnostic) {
			return nil, dec.Check(data, d.Suffix.Format)
		}
	}
	if ds := decryptAll(ctx, repo, l.docs, work, l.opts, p, c, l.arrival, l.position, cpu); ds != nil {
		return ds
	}
	return nil
}

// MaxReportedDocuments is the most invalid documents one run reports, each
// with its own diagnostic; past it one desired:more-invalid diagnostic
// counts the rest.
const MaxReportedDocuments = 50

// capped returns the diagnostics of the invalid documents (in ordinal
// order; nil entries are valid documents) cut at MaxReportedDocuments, plus
// the count of the rest; nil when there is none.
func capped(all []*diag.Diagnostic) diag.Diagnostics {
	var invalid []*diag.Diagnostic
	for _, e := range all {
		if e != nil {
			invalid = append(invalid, e)
		}
	}
	if len(invalid) == 0 {
		return nil
	}
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

// interrupted is the load's diagnostic when ctx ends; it wraps cause, so
// errors.Is(err, context.Canceled) or context.DeadlineExceeded holds.
func interrupted(cause error) diag.Diagnostics {
	return diag.Diagnostics{diag.New(diag.Interrupted, diag.Subject{}).
		WithSummary("reading the desired state was interrupted (signal or run timeout) before every document was decrypted and checked").
		WithCause(cause)}
}

// decryptAll reads every document and hands it to work (decryptDocument:
// decrypt and canonicalize; or the structural checks of Check, whose
// value is nil and never published) with at most
// opts.Concurrency decryptions in flight, and returns the canonical values
// in ordinal order. Blobs are read by one dispatcher goroutine (go-git
// repositories are not safe for concurrent use), in ordinal order, so at
// most opts.Concurrency encrypted documents are held in memory at once; the
// dispatcher closes repo when it is done. A blob that c already holds
// (another scope of the run selected it) is neither read nor decrypted
// again; one another load is decrypting is waited for. A failing document
// does not stop the others: it returns the diagnostics of every invalid
// document in ordinal order (docs is in ordinal order, capped), or the
// interruption. Each valid value is published in a at once, at the
// document's position in the outline.
// A decryption holds one of cpu's slots while it runs on the CPU (the
// decryptor gives it back during a remote key-service call).
func decryptAll(ctx context.Context, repo *gitsource.Repository, docs []*document, work func([]byte, *document) ([]byte, *diag.Diagnostic), opts config.Desired, p *Progress, c *Cache, a *model.Arrival, position []int, cpu chan struct{}) diag.Diagnostics {
	errs := make([]*diag.Diagnostic, len(docs))
	sem := make(chan struct{}, opts.Concurrency)
	settings := settingsKey(opts)
	// take records document i's outcome (its own subject on a copy of the
	// entry's diagnostic).
	take := func(i int, d *document, ent *cacheEntry) {
		v, e := ent.outcome()
		if e == nil {
			e = fitsTarget(opts, len(v))
		}
		if e != nil {
			errs[i] = d.about(e, opts.ShowResourceNames)
			return
		}
		if v != nil {
			a.Publish(position[i], v)
		}
		p.addDone()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer repo.Close() // runs before wg.Wait: workers never touch repo
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
			// Every entry claimed here is finished, so no load waits forever.
			ent, mine := c.claim(cacheKey{blob: d.Blob(), format: d.Suffix.Format, settings: settings})
			var data []byte
			if mine {
				var e *diag.Diagnostic
				if data, e = repo.Read(d.Document, opts.MaxEncryptedBytes); e != nil {
					ent.finish(nil, e)
					take(i, d, ent)
					<-sem
					continue
				}
			}
			wg.Add(1)
			go func(i int, d *document, data []byte, ent *cacheEntry, mine bool) {
				defer wg.Done()
				defer func() { <-sem }()
				if mine {
					// A CPU slot for the decryption (released while a
					// remote key service is called: Options.Waiting).
					select {
					case cpu <- struct{}{}:
					case <-ctx.Done():
						ent.finish(nil, problem(diag.Interrupted, "", ""))
						return
					}
					v, e := func() ([]byte, *diag.Diagnostic) {
						defer func() { <-cpu }()
						return work(data, d)
					}()
					ent.finish(v, e)
				} else if !ent.wait(ctx) {
					return
				}
				take(i, d, ent)
			}(i, d, data, ent, mine)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return interrupted(ctx.Err())
	}
	if err := ctx.Err(); err != nil {
		return interrupted(err)
	}
	return capped(errs)
}

// decryptDocument turns one committed blob into its canonical value; the
// diagnostic has no subject.
func decryptDocument(dec *decryptor.Decryptor, data []byte, d *document) ([]byte, *diag.Diagnostic) {
	plain, e := dec.Decrypt(data, d.Suffix.Format)
	if e != nil {
		return nil, e
	}
	v, err := canonical.Canonicalize(d.Suffix.Format, plain)
	clear(plain)
	if err != nil {
		// canonical's errors are *canonical.Error (its documented contract);
		// anything else would be a bug there, reported as plaintext:syntax
		// rather than a panic here.
		var ce *canonical.Error
		if !errors.As(err, &ce) {
			return nil, problem(diag.PlaintextSyntax, "", "")
		}
		// canonical knows the precise rule broken, so it chooses the action.
		return nil, problem(ce.Class, ce.What, ce.Next)
	}
	return v, nil
}

// document is one selected document of the commit: where it is, its
// ordinal (1-based position by repo path, assigned before any check, so a
// document keeps its ordinal whatever fails) and the secret it names.
type document struct {
	gitsource.Document
	ordinal int
	name    string
	// source is model.SourceDigest(Path), set by Open.
	source string
}

// secret is the desired secret of the document, without its value (the
// outline's).
func (d *document) secret() model.Secret {
	return model.Secret{Name: d.name, Kind: d.Suffix.Format.Kind(), SourceDigest: d.source, Path: d.Path, Ordinal: d.ordinal}
}

// about ties a diagnostic without a subject to the document: its ordinal,
// and its path only when resource names may be shown.
func (d *document) about(e *diag.Diagnostic, show bool) *diag.Diagnostic {
	e.Subject = diag.Document(d.ordinal, d.Path, show)
	return e
}

// problem builds a diagnostic of a registered class without a subject;
// what and next are "" for the registry's summary and next action (the
// usual case: the registry is the one place a class's text is written); a
// site passes its own only for a precise reason within the class that
// calls for a different action (a name-rule reason, a canonical rule).
func problem(class, what, next string) *diag.Diagnostic {
	e := diag.New(class, diag.Subject{}).WithSummary(what).WithNext(next)
	return &e
}

// missingRoot is what an absent source root is (gitsource.MissingRoot):
// an empty desired set with allow-empty, else source:missing-root.
func missingRoot(opts config.Desired) gitsource.MissingRoot {
	if opts.AllowEmpty {
		return gitsource.MissingRootIsEmpty
	}
	return gitsource.MissingRootFails
}

// selectDocuments lists the documents of commit under the source root,
// assigns ordinals in repo-path order and names, and checks every
// structural rule (SPEC §3.1, §3.4) for every document before any
// decryption, so no key service is called for a commit that is already
// invalid. It returns the documents, or the one diagnostic that stopped
// the listing (tree, root, repository, interruption), or the diagnostics of
// every structurally invalid document in ordinal order (capped).
func selectDocuments(ctx context.Context, repo *gitsource.Repository, commit gitsource.Commit, opts config.Desired) ([]*document, diag.Diagnostics) {
	listed, e := repo.List(ctx, commit, opts.SourceRoot, missingRoot(opts))
	if err := ctx.Err(); err != nil {
		return nil, interrupted(err)
	}
	if e != nil {
		return nil, diag.Diagnostics{*e}
	}
	docs := make([]*document, len(listed))
	byName := make(map[string]*document, len(listed))
	invalid := make([]*diag.Diagnostic, len(listed))
	for i := range listed {
		if err := ctx.Err(); err != nil {
			return nil, interrupted(err)
		}
		d := &document{Document: listed[i], ordinal: i + 1}
		docs[i] = d
		e, stop := repo.Check(d.Document, opts.MaxEncryptedBytes)
		if e == nil {
			e = checkName(d, opts, byName)
		}
		if stop {
			return nil, diag.Diagnostics{*d.about(e, opts.ShowResourceNames)}
		}
		if e != nil {
			invalid[i] = d.about(e, opts.ShowResourceNames)
		}
	}
	if ds := capped(invalid); ds != nil {
		return nil, ds
	}
	return docs, nil
}

// checkName applies the name rules to one document whose Git side is
// valid (SPEC §3.4: a name before the suffix, the secret-name rule, no
// collision with an earlier document) and records its name in byName.
func checkName(d *document, opts config.Desired, byName map[string]*document) *diag.Diagnostic {
	stem := strings.TrimSuffix(d.Rel, d.Suffix.Suffix)
	if stem == "" || strings.HasSuffix(stem, "/") {
		return problem(diag.NameInvalid,
			"the document's file name is only a suffix, so it names no secret",
			"give the file a name before its .sops.* suffix")
	}
	d.name = model.SecretName(opts.SecretPrefix, d.Rel, d.Suffix.Suffix)
	if err := model.ValidateName(d.name); err != nil {
		what, next := nameReason(err)
		return problem(diag.NameInvalid, what, next)
	}
	if e := checkTarget(opts.Target, d); e != nil {
		return e
	}
	if prev, dup := byName[d.name]; dup {
		label := model.Redaction{ShowNames: opts.ShowResourceNames}.Label(prev.ordinal, prev.Path)
		return problem(diag.NameCollision, "the document maps to the same secret name as document "+label, "")
	}
	byName[d.name] = d
	return nil
}
