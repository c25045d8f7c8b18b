package importer

import (
	"context"
	"errors"
	"log/slog"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Lister is a port that lists every name under a prefix whatever its tags
// (awssm.Adapter, awsps.Adapter: ListNames). Error contract as
// engine.Port's.
type Lister interface {
	ListNames(ctx context.Context, prefix string) ([]string, error)
}

// Request is one import (SPEC §18).
type Request struct {
	// Options are the run's resolved options; Scopes holds the one scope
	// imported, Configured every scope of the configuration.
	Options config.Options
	// Match are globs over the name relative to the prefix (path.Match:
	// "*" within one segment); nil = every name.
	Match []string
	// DryRun lists and describes only: no value is read, nothing written.
	DryRun bool
	// RotatedKeys are the keys (RFC 6901 pointers) of a rotation-enabled
	// secret that AWS owns, listed in the new aws-owned entry and left out
	// of its document unless CopyRotated; used when no aws-owned entry of
	// the scope matches the secret already.
	RotatedKeys []string
	CopyRotated bool
	// Log receives the import's records (no value; names only when
	// Options.Output.ShowResourceNames).
	Log   *slog.Logger
	Clock engine.Clock
	// Sops encrypts (nil in a dry run); Git stages and writes the tree.
	Sops Encrypter
	Git  *Git
	// Workers bounds the encryptions run at once (0: one per CPU the Go
	// runtime uses, runtime.GOMAXPROCS).
	Workers int
}

// Document is one document import wrote (or would write, in a dry run).
type Document struct {
	// Ordinal is the secret's resource ordinal among the names listed
	// (sorted); Name its name; Path its repo-relative path (in a dry run
	// the stem with the suffix ".sops.*": the value decides).
	Ordinal    int
	Name, Path string
	// AWSOwned is the aws-owned entry added for it (nil: none).
	AWSOwned *model.AWSOwned
}

// Result is what an import reached: the outcome of the plan of the
// written tree (or the stop before it), the documents written, what the
// scope's configuration gains, and the skipped names' warnings.
type Result struct {
	Outcome  run.Outcome
	Written  []Document
	Adopt    []string
	AWSOwned []model.AWSOwned
}

// candidate is one listed name on its way to a document.
type candidate struct {
	ordinal int
	name    string
	obs     plan.ObservedSecret
	stem    string
	owned   *model.AWSOwned // the aws-owned entry that applies (config's or new)
	added   bool            // owned is new (not in the configuration)
	value   Value
	path    string // repo-relative
	config  string // the .sops.yaml
	doc     []byte // the encrypted document
}

// Run imports the unowned secrets of the request's scope (SPEC §18): it
// lists the names under the prefix, describes each, skips (with a warning
// each) what adoption would refuse or no document can hold, checks (in a
// dry run, for every suffix the unread value could give) that each
// document has a creation rule, and, unless a dry run, reads the values, checks every document's creation rule
// (none → refused, nothing written), encrypts every document, writes
// them (whole files only), stages them, and plans the staged tree with
// the names added to adopt: each must plan adopt with value equal, else
// the documents are removed and unstaged (exit 3, import:not-adopted).
func Run(ctx context.Context, src run.Sources, req Request) Result {
	sc := req.Options.Scopes[0]
	show := req.Options.Output.ShowResourceNames
	log := req.Log.With(slog.String(vocab.FieldScope, sc.Name))
	ports, err := src.Ports(ctx, req.Options.Scopes[:1], req.Options.Configured, req.Options.Run.ParallelScopes)
	if err != nil {
		return stopped(log, vocab.PhaseAWS, setUp(err))
	}
	port := ports[0].Port
	lister, ok := port.(Lister)
	if !ok {
		return stopped(log, vocab.PhaseAWS, diag.Diagnostics{diag.New(diag.Internal, diag.Subject{})})
	}
	prefix := sc.Desired.SecretPrefix
	names, err := lister.ListNames(ctx, prefix)
	if err != nil {
		return observeFailed(ctx, log, err)
	}
	names = matching(names, prefix, req.Match)
	log.Info("secrets listed", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, len(names)))
	cands, err := describeAll(ctx, port, names, sc.Engine.Concurrency)
	if err != nil {
		return observeFailed(ctx, log, err)
	}
	removeLeftovers(filepath.Join(req.Git.Top, filepath.FromSlash(sc.Desired.SourceRoot)))
	var warns diag.Diagnostics
	cands, warns = req.admit(cands, ports[0].Region, show)
	if req.DryRun {
		if ds := req.dryRules(cands, show); len(ds) > 0 {
			return stopped(log, vocab.PhasePlan, append(warns, ds...))
		}
		return req.dryRun(log, cands, warns)
	}
	cands, more, err := req.readValues(ctx, port, cands, show)
	if err != nil {
		return observeFailed(ctx, log, err)
	}
	warns = append(warns, more...)
	if ds := req.rules(cands, show); len(ds) > 0 {
		return stopped(log, vocab.PhasePlan, append(warns, ds...))
	}
	cands, more, ds := req.encrypt(ctx, cands, show)
	warns = append(warns, more...)
	if len(ds) > 0 {
		return stopped(log, vocab.PhasePlan, append(warns, ds...))
	}
	logWarnings(log, warns)
	return req.writeAndProve(ctx, src, log, cands, warns)
}

// matching keeps the names whose part after the prefix matches one of the
// globs (all when there is none).
func matching(names []string, prefix string, globs []string) []string {
	if len(globs) == 0 {
		return names
	}
	var out []string
	for _, n := range names {
		rel := strings.TrimPrefix(n, prefix+"/")
		for _, g := range globs {
			if ok, _ := path.Match(g, rel); ok {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// describeAll observes every name (Describe), at most concurrency at
// once; the candidates keep the names' order and their 1-based ordinals.
func describeAll(ctx context.Context, port engine.Port, names []string, concurrency int) ([]candidate, error) {
	out := make([]candidate, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, max(concurrency, 1))
	var wg sync.WaitGroup
	for i, n := range names {
		out[i] = candidate{ordinal: i + 1, name: n}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i].obs, errs[i] = port.Describe(ctx, n)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, e := range errs {
			if e != nil {
				return nil, e
			}
		}
	}
	return out, nil
}

// skip is the warning of a candidate import leaves alone.
func skip(class string, c candidate, show bool) diag.Diagnostic {
	return diag.New(class, diag.Document(c.ordinal, c.name, show))
}

// admit keeps the candidates adoption would take by their metadata and
// that map to a free document path; each other gets its warning. A
// secret this scope owns is left out silently (it is managed already).
func (req Request) admit(cands []candidate, region string, show bool) ([]candidate, diag.Diagnostics) {
	sc := req.Options.Scopes[0]
	var out []candidate
	var warns diag.Diagnostics
	stems := map[string]bool{}
	for _, c := range cands {
		o := c.obs
		if !o.Exists || o.Owned(sc.Identity().Digest()) {
			continue
		}
		if class := refusedByMetadata(o, sc.Engine.Replicas, region); class != "" {
			warns = append(warns, skip(class, c, show))
			continue
		}
		stem, err := DocumentStem(sc.Desired.SecretPrefix, sc.Desired.SourceRoot, c.name)
		if err != nil || sc.Desired.Target.CheckName(c.name) != nil {
			warns = append(warns, skip(diag.WarningImportName, c, show))
			continue
		}
		folded := strings.ToLower(stem)
		if stems[folded] || taken(req.Git.Top, stem, suffixes()) {
			warns = append(warns, skip(diag.WarningImportCollision, c, show))
			continue
		}
		stems[folded] = true
		c.stem = stem
		if e, ok := model.AWSOwnedFor(sc.Engine.AWSOwned, sc.Desired.SecretPrefix, c.name); ok {
			c.owned = &e
		} else if o.RotationEnabled {
			e := model.AWSOwned{Secret: strings.TrimPrefix(c.name, sc.Desired.SecretPrefix+"/"), Keys: slices.Clone(req.RotatedKeys)}
			c.owned, c.added = &e, true
		}
		out = append(out, c)
	}
	return out, warns
}

// refusedByMetadata is the warning class of a secret adoption refuses by
// its metadata alone (SPEC §11, §12, §13): "" when none does.
func refusedByMetadata(o plan.ObservedSecret, replicas []model.Replica, region string) string {
	for k := range o.Tags {
		if strings.HasPrefix(strings.ToLower(k), model.TagPrefix) {
			return diag.WarningImportManaged
		}
	}
	switch {
	case o.OwningService != "":
		return diag.WarningImportServiceOwned
	case o.Deleted, o.Shape != "", len(o.CurrentVersionIDs()) != 1, o.Replica(), o.PrimaryRegion != "" && o.PrimaryRegion != region:
		return diag.WarningImportUnadoptable
	}
	for _, v := range o.Versions {
		if slices.Contains(v.Stages, plan.StagePending) && !slices.Contains(v.Stages, plan.StageCurrent) {
			return diag.WarningImportUnadoptable
		}
	}
	for _, r := range o.ReplicaRegions {
		if !slices.ContainsFunc(replicas, func(m model.Replica) bool { return m.Region == r }) {
			return diag.WarningImportReplicated
		}
	}
	return ""
}

// suffixes are the document suffixes (model.Suffixes).
func suffixes() []string {
	out := make([]string, len(model.Suffixes))
	for i, s := range model.Suffixes {
		out[i] = s.Suffix
	}
	return out
}

// logWarnings logs each skipped name's warning.
func logWarnings(log *slog.Logger, warns diag.Diagnostics) {
	for _, d := range warns {
		log.Warn(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, d.Attrs()...)...)
	}
}

// stopped is the result of an import refused before anything was
// written: status invalid (or the diagnostics' own exit family) with ds,
// each logged.
func stopped(log *slog.Logger, phase string, ds diag.Diagnostics) Result {
	got := run.Stopped(ds)
	if ds.ExitCode() == vocab.ExitApply {
		got.Run.Status = vocab.StatusObservationFailed
	}
	for _, d := range ds {
		lvl := slog.LevelError
		if diag.IsWarning(d.Class) {
			lvl = slog.LevelWarn
		}
		log.Log(context.Background(), lvl, d.Sentence(), append([]any{slog.String(vocab.FieldPhase, phase),
			slog.String(vocab.FieldStatus, string(got.Run.Status))}, d.Attrs()...)...)
	}
	return Result{Outcome: got}
}

// setUp is the diagnostics of a refused AWS set-up (run.Sources.Ports).
func setUp(err error) diag.Diagnostics {
	var ds diag.Diagnostics
	if errors.As(err, &ds) {
		return ds
	}
	var d diag.Diagnostic
	if !errors.As(err, &d) {
		d = diag.New(diag.AWSConfig, diag.Subject{})
	}
	return diag.Diagnostics{d}
}

// observeFailed is the result of a listing, a describe or a read that
// failed: observe:failed with the AWS error code logged, or interrupted.
func observeFailed(ctx context.Context, log *slog.Logger, err error) Result {
	if ctx.Err() != nil {
		return Result{Outcome: run.Outcome{Run: engine.Result{Status: vocab.StatusInterrupted}}}
	}
	d := diag.New(diag.ObserveFailed, diag.Subject{})
	attrs := []any{slog.String(vocab.FieldPhase, vocab.PhaseAWS), slog.String(vocab.FieldStatus, string(vocab.StatusObservationFailed))}
	var ae *engine.Error
	if errors.As(err, &ae) {
		attrs = append(attrs, slog.String(vocab.FieldErrorCode, ae.Code), slog.String(vocab.FieldFaultClass, ae.Fault))
	}
	log.Error(d.Sentence(), append(attrs, d.Attrs()...)...)
	got := run.Stopped(diag.Diagnostics{d})
	got.Run.Status = vocab.StatusObservationFailed
	return Result{Outcome: got}
}
