package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Sources is what a run reads from outside itself. internal/cli/factory
// implements it for production (factory.Sources); tests fake it.
type Sources interface {
	// Ports builds the AWS port of every scope of scopes, in order, the
	// overlap rule checked over configured, every scope of the
	// configuration (factory.NewPorts). Errors: a diag.Diagnostics or a
	// diag.Diagnostic (aws:*, credentials:*, config:scope-overlap), or
	// ctx's error when ctx ends during the set-up. When the error holds
	// only credentials:assume-role diagnostics of scopes whose account
	// cannot be reached, the ports are returned beside it, those scopes'
	// marked Unreachable (SPEC §17); otherwise they are nil. parallel is
	// --parallel-scopes resolved: the set-up's concurrent STS calls (the
	// roles assumed at once) stay within it.
	Ports(ctx context.Context, scopes, configured []config.Scope, parallel int) ([]ScopePort, error)
	// Revision resolves o.Revision in o.RepoPath to its 40-hex commit
	// (desired.Resolve). Errors: diag.Diagnostics (git:*).
	Revision(o config.Desired) (string, error)
	// Open is the first step of one scope's load (desired.Open): the
	// outline known, nothing decrypted. Errors: diag.Diagnostics (git:*, a
	// structurally invalid document, interrupted).
	Open(ctx context.Context, o config.Desired) (Load, error)
}

// Load is one scope's desired state between the two steps of its load
// (*desired.Loading): its Arrival holds the outline, and Decrypt fills
// and finishes it (model.Arrival has the rules), returning the error it
// finished with.
type Load interface {
	Arrival() *model.Arrival
	Decrypt(ctx context.Context, p *desired.Progress, c *desired.Cache) error
	// Check is validate --no-decrypt's second step in Decrypt's place
	// (desired.Loading.Check): the checks that need no key, no value
	// published; the error as Decrypt's.
	Check(ctx context.Context, p *desired.Progress) error
}

// ScopePort is the AWS port of one scope of a run (SPEC §10).
type ScopePort struct {
	// Name is the scope's name (config.Scope.Name).
	Name string
	// Region is the Region the scope's calls go to: its aws-region, else
	// the SDK chain's.
	Region string
	// Bucket is an opaque key of the scope's quota bucket, (account,
	// Region, and the target when it is Parameter Store): ports with equal keys share one pace (internal/pace) and
	// AWS's request quotas. It holds the account id: never print or log
	// it.
	Bucket string
	// Unreachable is set when STS refused the scope's role or did not
	// answer (factory.Unreachable; SPEC §17): the scope has no Port, and
	// the run skips it under --max-unreachable-scopes.
	Unreachable bool
	// Port is the port of the scope's target (Secrets Manager, or
	// Parameter Store), calling AWS with the scope's credentials; it paces its calls with its bucket's
	// controller (engine.Paced).
	Port engine.Port
}

// Request is one plan or sync to execute.
type Request struct {
	Mode engine.Mode
	// Options are the run's resolved options: Scopes are the scopes run
	// (Scopes), Configured every scope of the configuration.
	Options config.Options
	// Log is the run's logger (no scope field; each scope's records get
	// one).
	Log *slog.Logger
	// Reviewed, when set, is the reviewed plan the run must equal (SPEC
	// §14; --reviewed-plan), already found reviewable (ReviewedPlan): it
	// must be of this repository-id and these scopes, checked before any
	// Sources call, and each scope, once planned and before anything is
	// applied anywhere, must plan what it holds (engine.ScopeRun.Reviewed),
	// else nothing is written (plan:stale).
	Reviewed *planview.View
	// Clock times the load ("desired state loaded") and paces its
	// progress records (engine.DefaultProgressInterval).
	Clock engine.Clock
}

// Outcome is what a run reached: the run's own stop, each scope's engine
// Result, and the commit it read.
type Outcome struct {
	// Run is the run's own stop: a Status when the run stopped as a whole
	// (its Diagnostics are the run's), "" when its scopes decided.
	Run engine.Result
	// Scopes are the run's scopes in configuration order, each with its
	// Result; nil when the run stopped before its scopes ran.
	Scopes []ScopeOutcome
	// Revision is the commit read; "" when the run ended before it, or
	// when a desired state was rejected (docs/results.md, git_revision).
	Revision string
	// Reviewed is the reviewed plan the run applied (--reviewed-plan,
	// every scope planned equal to it; SPEC §14): its commit and how many
	// operations it holds; nil when the run had none or did not apply it.
	Reviewed *planview.Reviewed
}

// ScopeOutcome is one scope's Result, with the scope's name and the
// Region shown for it ("" when the SDK's chain chose something that is no
// Region code): the one value of a scope's ending, from the run to every
// output (the command's ending holds it as it is).
type ScopeOutcome struct {
	Name, Region string
	// SourceTree is the Git tree id of the scope's source root at the
	// commit ("" when its documents were not opened) and Settings its
	// plan-shaping settings (config.Scope.PlanSettings): what the plan
	// file binds the scope's plan to (SPEC §14).
	SourceTree string
	Settings   []byte
	engine.Result
}

// Input is the scope as the plan view's input (unredacted: planview.Build
// applies the redaction rule), for the plan file and its renderings and
// for the comparison with a reviewed plan (scopeReview); the caller adds
// the scope's target (planview.ScopeInput.Target).
func (s ScopeOutcome) Input() planview.ScopeInput {
	return planview.ScopeInput{Name: s.Name, Region: s.Region, Status: s.Status, Verification: s.Verification,
		SourceTree: s.SourceTree, Settings: s.Settings, Operations: s.Plan, Diagnostics: s.Diagnostics, Failures: s.Failures}
}

// Stopped is the outcome of a run that stopped as a whole before any
// scope ran: status invalid with the diagnostics that stopped it.
func Stopped(ds diag.Diagnostics) Outcome {
	return Outcome{Run: engine.Result{Status: vocab.StatusInvalid, Diagnostics: ds}}
}

// interrupted is the outcome of a run cancelled before its scopes ran.
func interrupted() Outcome { return Outcome{Run: engine.Result{Status: vocab.StatusInterrupted}} }

// Execute runs the request's scopes (SPEC §10): it builds every scope's
// port, resolves the revision once, opens every scope's desired state at
// that commit (structure checked, nothing decrypted), then runs the scopes
// through engine.RunScopes (every scope planned before any is applied)
// while one goroutine decrypts the scopes' documents in order: each
// scope's first observation reads Secrets Manager meanwhile, and no scope
// is planned before its desired state is whole (model.Arrival;
// docs/reconciliation.md, "Decryption beside the first observation").
// Every invalid document of every scope is reported at once, each record
// naming its scope, and a rejected desired state ends every scope invalid
// with nothing written, as if nothing had been read. A rejected AWS set-up,
// revision or desired state is logged here; a cancellation before the
// engine is interrupted.
func Execute(ctx context.Context, src Sources, req Request) Outcome {
	scopes := req.Options.Scopes
	if req.Reviewed != nil {
		if ds := checkReviewed(req.Log, req.Reviewed, scopes); ds != nil {
			return Stopped(ds)
		}
	}
	// The commit is resolved first (a local Git read), so that every
	// ending after it — a refused AWS set-up, a rejected desired state —
	// shows the commit the run was given (docs/results.md, git_revision).
	commit, err := src.Revision(scopes[0].Desired)
	if err != nil {
		return Stopped(logDesired(req.Log, err))
	}
	ports, err := src.Ports(ctx, scopes, req.Options.Configured, req.Options.Run.ParallelScopes)
	var skipped map[int]diag.Diagnostic
	if err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		if skipped = skippable(scopes, ports, err, req.Options.Run.MaxUnreachable); skipped == nil {
			got := haltedScopes(req.Log, scopes, setUpFailed(req.Log, scopes, tooManyUnreachable(ports, err, req.Options.Run.MaxUnreachable)))
			got.Revision = commit
			return got
		}
	}

	got := Outcome{Scopes: make([]ScopeOutcome, len(scopes))}
	loads := make([]*scopeLoad, len(scopes))
	opened := true
	for i, sc := range scopes {
		got.Scopes[i] = ScopeOutcome{Name: sc.Name, Region: shownRegion(ports[i].Region), Settings: sc.PlanSettings()}
		o := sc.Desired
		o.Revision = commit
		loads[i] = &scopeLoad{log: req.Log.With(slog.String(vocab.FieldScope, sc.Name))}
		if loads[i].load, loads[i].err = src.Open(ctx, o); loads[i].err != nil {
			opened = false
		} else {
			got.Scopes[i].SourceTree = loads[i].load.Arrival().Outline().SourceTree
		}
	}
	// Scopes over one source root select the same blobs at the one commit:
	// each is decrypted once for the run, and the cache is dropped as soon
	// as the loads end (the states keep the values they need). One scope
	// has nothing to share: its cache would only hold an entry per
	// document while the first observation runs (14 MB at 50,000).
	var cache *desired.Cache
	if len(scopes) > 1 {
		cache = desired.NewCache()
	}
	ectx, stopEngine := context.WithCancel(ctx)
	defer stopEngine()
	decrypted := make(chan struct{})
	go func() {
		defer close(decrypted)
		defer cache.Drop()
		for _, l := range loads {
			if l.err == nil {
				l.decrypt(ctx, req.Clock, cache, stopEngine)
			}
		}
	}()
	if !opened {
		// Nothing is read from AWS; the other scopes' documents are still
		// decrypted, so that every invalid one is reported at once.
		<-decrypted
		return rejected(ctx, got, loads, commit, scopes)
	}

	runs := make([]engine.ScopeRun, 0, len(scopes))
	ran := make([]int, 0, len(scopes)) // the index in scopes of each of runs
	tally := &reviewTally{}
	var unreachable []string
	for i, sc := range scopes {
		if _, ok := skipped[i]; ok {
			unreachable = append(unreachable, sc.Name)
		}
	}
	for i, sc := range scopes {
		if d, ok := skipped[i]; ok {
			got.Scopes[i].Result = unreachableScope(loads[i].log, d)
			continue
		}
		a := loads[i].load.Arrival()
		ran = append(ran, i)
		runs = append(runs, engine.ScopeRun{Bucket: ports[i].Bucket, Arrival: a, Port: ports[i].Port, Log: loads[i].log,
			Config: engine.Config{Mode: req.Mode, Scope: sc.Name, Engine: sc.Engine, Siblings: siblings(req.Options, a.Outline().Scope), Listed: listed(sc), ReplicasSetting: sc.SettingSubject(config.ReplicaRegions), AdoptSetting: sc.SettingSubject(config.Adopt)}})
		if v := req.Reviewed; v != nil {
			runs[len(runs)-1].Reviewed = scopeReview{reviewed: v.Scopes[i], salt: v.Salt(), namesShown: v.NamesShown,
				scope: got.Scopes[i], showNames: req.Options.Output.ShowResourceNames, commit: v.GitRevision, tally: tally, skipped: unreachable}
		}
	}
	results := engine.RunScopes(ectx, runs, req.Options.Run.ParallelScopes, req.Log)
	if req.Reviewed != nil {
		got.Reviewed = tally.applied(len(runs), req.Reviewed.GitRevision)
	}
	<-decrypted
	for _, l := range loads {
		if l.err != nil {
			return rejected(ctx, got, loads, commit, scopes)
		}
	}
	for k, r := range results {
		got.Scopes[ran[k]].Result = r
	}
	got.Revision = commit
	return got
}

// skippable is the scopes a run may skip because their account cannot be
// reached (SPEC §17), by index in scopes, each with the
// credentials:scope-unreachable diagnostic it ends with: when the AWS
// set-up's error err holds only credentials:assume-role diagnostics of
// scopes whose ports are marked Unreachable (Sources.Ports returned the
// ports beside it), and there are at most max of them. nil when the run
// cannot go on: any other problem, more than max such scopes, or max 0
// (all or nothing, the default).
func skippable(scopes []config.Scope, ports []ScopePort, err error, max int) map[int]diag.Diagnostic {
	var ds diag.Diagnostics
	if max == 0 || len(ports) != len(scopes) || !errors.As(err, &ds) {
		return nil
	}
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = sc.Name
	}
	out := map[int]diag.Diagnostic{}
	for _, d := range ds {
		i := slices.Index(names, ScopeOf(d, names))
		if d.Class != diag.CredentialsAssumeRole || i < 0 || !ports[i].Unreachable {
			return nil
		}
		out[i] = diag.New(diag.CredentialsScopeUnreachable, d.Subject)
	}
	if len(out) == 0 || len(out) > max {
		return nil
	}
	return out
}

// tooManyUnreachable is err, the AWS set-up's error, with one more
// diagnostic when --max-unreachable-scopes is set and the scopes whose
// account cannot be reached are more than it allows (SPEC §17): the run's
// own credentials:scope-unreachable, saying that nothing was applied
// anywhere and why; err as it is otherwise.
func tooManyUnreachable(ports []ScopePort, err error, max int) error {
	var ds diag.Diagnostics
	if max == 0 || !errors.As(err, &ds) {
		return err
	}
	n := 0
	for _, p := range ports {
		if p.Unreachable {
			n++
		}
	}
	if n <= max {
		return err
	}
	d := diag.New(diag.CredentialsScopeUnreachable, diag.Subject{Setting: config.MaxUnreachable}).
		WithSummary(fmt.Sprintf("%d scopes could not be reached, more than --max-unreachable-scopes %d allows, so no scope was read or changed", n, max)).
		WithNext("make the accounts reachable (their status in AWS Organizations, the roles' trust policies), or remove their scopes from the config file in a reviewed change, then re-run; raise --max-unreachable-scopes only when skipping that many accounts is acceptable")
	return append(slices.Clone(ds), d)
}

// unreachableScope is the Result of a scope skipped because its account
// cannot be reached (skippable): status unreachable, nothing read, its
// diagnostic d logged once on the scope's logger.
func unreachableScope(log *slog.Logger, d diag.Diagnostic) engine.Result {
	log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhaseAWS),
		slog.String(vocab.FieldStatus, string(vocab.StatusUnreachable))}, d.Attrs()...)...)
	return engine.Result{Status: vocab.StatusUnreachable, Verification: vocab.VerificationNotRun, Diagnostics: diag.Diagnostics{d}}
}

// shownRegion is the Region shown for a scope: the Region the SDK chain
// chose only when it is a Region code (the plan file accepts no other
// text); AWS_REGION may hold anything an endpoint override accepts.
func shownRegion(region string) string {
	if !model.ValidRegion(region) {
		return ""
	}
	return region
}

// scopeLoad is one scope's desired state as the run loads it: opened
// (load; err when Open failed), then decrypted on the run's decrypting
// goroutine, which sets err when the desired state is rejected.
type scopeLoad struct {
	log  *slog.Logger
	load Load
	err  error
}

// decrypt is the second step of one scope's load, on the run's
// decrypting goroutine: it decrypts with progress records meanwhile
// (reportLoading), logs "desired state loaded", and on a rejected desired
// state stops the engine's observations (stop: nothing of the run will be
// planned).
func (l *scopeLoad) decrypt(ctx context.Context, clock engine.Clock, c *desired.Cache, stop context.CancelFunc) {
	start := clock.Now()
	docs := &desired.Progress{}
	end := reportLoading(clock, docs, l.log)
	l.err = l.load.Decrypt(ctx, docs, c)
	end()
	if l.err != nil {
		stop()
		return
	}
	l.log.Info("desired state loaded", slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.Int(vocab.FieldCount, len(l.load.Arrival().Outline().Secrets)), slog.Int64(vocab.FieldDurationMS, clock.Now().Sub(start).Milliseconds()))
}

// rejected is the run's end when a scope's desired state was rejected (or
// its load interrupted): every scope is invalid, those without an invalid
// document of their own too, with every scope's diagnostics logged and
// reported, and the commit it read (docs/results.md, git_revision),
// whatever the first observations read meanwhile: nothing was written.
func rejected(ctx context.Context, got Outcome, loads []*scopeLoad, commit string, scopes []config.Scope) Outcome {
	for _, l := range loads {
		if err := l.err; err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return interrupted()
		}
	}
	for i, l := range loads {
		got.Scopes[i].Result = engine.Result{Status: vocab.StatusInvalid}
		if l.err != nil {
			got.Scopes[i].Result = Stopped(logDesired(l.log, adviseRetiring(l.err, scopes[i]))).Run
		}
	}
	got.Revision = commit
	return got
}

// listed is the name of sc for the engine's gate advice (engine.Config.Listed):
// its name when it is an entry of the config file's scopes:, else "".
func listed(sc config.Scope) string {
	if sc.Listed {
		return sc.Name
	}
	return ""
}

// adviseRetiring gives source:missing-root (a source root absent from the
// commit, as when every document of a retired scope was deleted) the next
// action that retires scope sc in the form that works in its mode:
// --allow-empty alone without scopes:, --scope NAME --allow-empty (or
// allow-empty in its entry) for a listed scope. err is returned as it is
// when it holds no such diagnostic.
func adviseRetiring(err error, sc config.Scope) error {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		return err
	}
	out := slices.Clone(ds)
	for i, d := range out {
		if d.Class == diag.SourceMissingRoot {
			out[i] = d.WithNext(retiringNext(sc))
		}
	}
	return out
}

// retiringNext is source:missing-root's next action for scope sc
// (adviseRetiring).
func retiringNext(sc config.Scope) string {
	where := "allow-empty: true in the config file"
	if sc.Listed {
		where = "allow-empty: true in its scopes: entry"
	}
	return "check --source-root against the committed tree (it is case-sensitive), or use '.' for the whole repository; to retire the scope (every document deleted, so Git dropped the directory), re-run with " +
		sc.OneOff("--"+config.AllowEmpty) + " (or set " + where + "): a source root absent from the commit is then an empty scope, whose secrets are scheduled for deletion within --max-deletions"
}

// siblings returns the scope digests of the configuration's scopes other
// than own (config.Options.Configured, --scope or not): secrets they own
// are live, never orphans of own (plan.Orphans).
func siblings(o config.Options, own model.Scope) []string {
	var out []string
	for _, sc := range o.Configured {
		if d := sc.Identity().Digest(); d != own.Digest() && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// setUpFailed logs the diagnostics of a rejected AWS set-up (Sources.Ports:
// SDK configuration, overlapping scopes, STS) and returns the run they end:
// invalid (exit 3), or observation-failed (exit 5) when STS refused or
// failed (credentials:*): AWS was asked, and nothing was read.
func setUpFailed(log *slog.Logger, scopes []config.Scope, err error) Outcome {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		var d diag.Diagnostic
		if !errors.As(err, &d) {
			d = diag.New(diag.AWSConfig, diag.Subject{})
		}
		ds = diag.Diagnostics{d}
	}
	got := Stopped(ds)
	if ds.ExitCode() == vocab.ExitApply {
		got.Run.Status = vocab.StatusObservationFailed
	}
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = sc.Name
	}
	for _, d := range ds {
		attrs := []any{slog.String(vocab.FieldPhase, vocab.PhaseAWS), slog.String(vocab.FieldStatus, string(got.Run.Status))}
		if name := ScopeOf(d, names); name != "" {
			attrs = append(attrs, slog.String(vocab.FieldScope, name))
		}
		log.Error(d.Sentence(), append(attrs, d.Attrs()...)...)
	}
	return got
}

// haltedScopes is got, the end of a run whose AWS set-up failed
// (setUpFailed), with a section per scope when the run has several and a
// diagnostic is about one of them: each scope says what stopped it — its
// own set-up's diagnostics (its status the one they imply), or that
// another scope's failed (observe:halted, naming the first that did, the
// run's status) — instead of the run's status with no reason. The run
// keeps its status and its own diagnostics.
func haltedScopes(log *slog.Logger, scopes []config.Scope, got Outcome) Outcome {
	names := make([]string, len(scopes))
	for i, sc := range scopes {
		names[i] = sc.Name
	}
	byScope := map[string]diag.Diagnostics{}
	var failed []string
	var own diag.Diagnostics
	for _, d := range got.Run.Diagnostics {
		name := ScopeOf(d, names)
		if name == "" {
			own = append(own, d)
			continue
		}
		byScope[name] = append(byScope[name], d)
		if !slices.Contains(failed, name) {
			failed = append(failed, name)
		}
	}
	if len(scopes) < 2 || len(failed) == 0 {
		return got
	}
	halted := diag.New(diag.ObserveHalted, diag.Subject{}).
		WithSummary("halted: scope " + failed[0] + " failed before any scope was read, so this scope was not observed")
	got.Scopes = make([]ScopeOutcome, len(scopes))
	for i, sc := range scopes {
		r := engine.Result{Status: got.Run.Status, Verification: vocab.VerificationNotRun, Diagnostics: byScope[sc.Name]}
		if len(r.Diagnostics) > 0 {
			r.Status = vocab.StatusInvalid
			if r.Diagnostics.ExitCode() == vocab.ExitApply {
				r.Status = vocab.StatusObservationFailed
			}
		} else {
			r.Diagnostics = diag.Diagnostics{halted}
			log.Error(halted.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhaseAWS),
				slog.String(vocab.FieldStatus, string(r.Status)), slog.String(vocab.FieldScope, sc.Name)}, halted.Attrs()...)...)
		}
		got.Scopes[i] = ScopeOutcome{Name: sc.Name, Region: shownRegion(sc.AWS.Region), Result: r}
	}
	got.Run.Diagnostics = own
	return got
}

// ScopeOf is the name of the scope, of the run's scopes names, that d is
// about: the scope of a setting scopes.<name>.<key> (config.Scope.SettingName),
// else the run's only scope when d is not the run's own (RunLevel); ""
// when d is the run's.
func ScopeOf(d diag.Diagnostic, names []string) string {
	if rest, ok := strings.CutPrefix(d.Subject.Setting, config.ScopesKey+"."); ok {
		if name, _, ok := strings.Cut(rest, "."); ok && slices.Contains(names, name) {
			return name
		}
	}
	if len(names) == 1 && !RunLevel(d.Class) {
		return names[0]
	}
	return ""
}

// RunLevel reports whether a diagnostic of class is the run's rather than
// a scope's: the command line, the configuration, the commit (one per
// run), the output files, the reviewed plan file and an interruption.
func RunLevel(class string) bool {
	switch diag.FamilyOf(class) {
	case diag.FamilyUsage, diag.FamilyConfig, diag.FamilyGit, diag.FamilyReport, diag.FamilyPlanfile, diag.FamilyPlan, diag.FamilyInterrupted:
		return true
	}
	return false
}

// logDesired logs a rejected desired state: one record per diagnostic, with
// its class token and the document's label (ordinal, or path with
// --show-resource-names); the message is the diagnostic's own text. It
// returns the diagnostics (for the plan file).
func logDesired(log *slog.Logger, err error) diag.Diagnostics {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) == 0 {
		ds = diag.Diagnostics{diag.New(diag.DesiredInternal, diag.Subject{})}
	}
	for _, d := range ds {
		log.Error("desired state rejected: "+d.Error(), append([]any{
			slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid)),
		}, d.Attrs()...)...)
	}
	return ds
}

// reportLoading logs a "progress" record (phase plan, documents decrypted
// and selected) every engine.DefaultProgressInterval of clock while the
// desired state loads, also while a key service does not answer (so a
// slow KMS shows as progress, not silence); stop ends it before the next
// record.
func reportLoading(clock engine.Clock, p *desired.Progress, log *slog.Logger) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-clock.After(engine.DefaultProgressInterval):
			}
			select {
			case <-done:
				return
			default:
			}
			log.Info("progress", slog.String(vocab.FieldPhase, vocab.PhasePlan),
				slog.Int64(vocab.FieldDone, p.Done()), slog.Int64(vocab.FieldTotal, p.Total()))
		}
	}()
	return func() { close(done); <-finished }
}
