package command

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/logging"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// invalidConfig ends a run whose configuration was rejected. Nothing is
// logged (the log settings may be the invalid ones); the diagnostics go to
// stderr, and the report and the plan file are still written when their
// own settings resolved.
func invalidConfig(f *factory.Factory, start time.Time, resolved config.Options, err error) error {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		ds = diag.Diagnostics{diag.New(diag.Internal, diag.Subject{})}
	}
	out := resolved.Output
	outs := newOutputs(f.Build.Version, out.ReportFile, out.PlanFile, out.ShowResourceNames, nil, nil)
	ds = append(ds, outs.probe()...)
	return outs.write(conclude(stopped(ds), "", how{durationMS: since(f, start)}))
}

// invocation is one plan or sync of the CLI: the factory, the resolved
// options and the run's logger.
type invocation struct {
	f    *factory.Factory
	opts *Options
	log  *slog.Logger
}

// run executes one plan or sync with resolved options: resolve the outputs
// (each proves itself writable), reconcile, write the ending. It returns
// nil for exit 0 and otherwise a *exitcode.RunError.
func run(parent context.Context, f *factory.Factory, opts *Options, start time.Time) error {
	ctx, cancel := context.WithTimeoutCause(parent, opts.Config.Run.Timeout, errRunTimeout)
	defer cancel()
	inv, outs := resolve(f, opts)
	got, revision := stopped(outs.probe()), ""
	if len(got.run.Diagnostics) == 0 {
		got, revision = inv.reconcile(ctx)
	}
	h := how{mode: opts.Mode, detailed: opts.Mode == engine.ModePlan && opts.Config.Run.DetailedExitCode, durationMS: since(f, start)}
	if ctx.Err() != nil {
		h.cause = context.Cause(ctx)
	}
	return outs.write(conclude(got, revision, h))
}

// resolve builds the run's logger, logs "run started", and returns the
// invocation and its outputs.
func resolve(f *factory.Factory, opts *Options) (*invocation, *outputs) {
	out := opts.Config.Output
	log, _ := logging.New(f.IOStreams.Out, logging.Options{Level: out.LogLevel, Format: out.LogFormat})
	log.Info("run started", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldOperation, opts.Command))
	var text io.Writer
	if out.LogFormat == "text" {
		text = f.IOStreams.Out
	}
	outs := newOutputs(f.Build.Version, out.ReportFile, out.PlanFile, out.ShowResourceNames, log, text)
	outs.pointer = opts.Command == "plan"
	for _, sc := range scopesOf(opts.Config) {
		outs.scopes = append(outs.scopes, scopeID{name: sc.name, region: sc.aws.Region})
	}
	return &invocation{f: f, opts: opts, log: log}, outs
}

// reconcile runs the run's scopes (SPEC §10; one named default without
// scopes:): it builds every scope's port, resolves the revision once,
// opens every scope's desired state at that commit (structure checked,
// nothing decrypted: desired.Open), then runs the scopes through
// engine.RunScopes (every scope planned before any is applied) while one
// goroutine decrypts the scopes' documents in order: each scope's first
// observation reads Secrets Manager meanwhile, and no scope is planned
// before its desired state is whole (engine.Values; docs/reconciliation.md,
// "Decryption beside the first observation"). Every invalid document of
// every scope is reported at once, each record naming its scope, and a
// rejected desired state ends every scope invalid with nothing written,
// as if nothing had been read. It returns what the run reached and the
// commit it read; a rejected AWS set-up, revision or desired state is
// logged here, a cancellation before the engine is interrupted.
func (inv *invocation) reconcile(ctx context.Context) (reached, string) {
	interrupted := reached{run: engine.Result{Status: vocab.StatusInterrupted}}
	scopes := scopesOf(inv.opts.Config)
	ports, err := inv.ports(ctx, scopes)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted, ""
		}
		return inv.setUpFailed(err), ""
	}

	commit := ""
	if inv.f.ResolveRevision != nil {
		if commit, err = inv.f.ResolveRevision(scopes[0].desired); err != nil {
			return stopped(inv.logDesired(inv.log, err)), ""
		}
	}
	got := reached{scopes: make([]scopeReached, len(scopes))}
	for i, sc := range scopes {
		got.scopes[i] = scopeReached{name: sc.name, region: ports[i].region}
	}
	loads := make([]*scopeLoad, len(scopes))
	opened := true
	for i, sc := range scopes {
		o := sc.desired
		if commit != "" {
			o.Revision = commit
		}
		loads[i] = &scopeLoad{log: inv.log.With(slog.String(vocab.FieldScope, sc.name)), done: make(chan struct{})}
		if loads[i].l, err = inv.open(ctx, o); err != nil {
			loads[i].fail(err)
			opened = false
		} else if commit == "" {
			commit = loads[i].l.Outline().Commit
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
			if l.l != nil {
				inv.decrypt(ctx, l, cache, stopEngine)
			}
		}
	}()
	if !opened {
		// Nothing is read from AWS; the other scopes' documents are still
		// decrypted, so that every invalid one is reported at once.
		<-decrypted
		return inv.rejected(ctx, got, loads)
	}

	runs := make([]engine.ScopeRun, len(scopes))
	for i, sc := range scopes {
		outline := loads[i].l.Outline()
		runs[i] = engine.ScopeRun{Bucket: ports[i].bucket, Config: engine.Config{Mode: inv.opts.Mode, Engine: sc.engine, Siblings: siblings(inv.opts.Config, outline.Scope)},
			Want: outline, Values: loads[i], Port: ports[i].port, Log: loads[i].log}
	}
	results := inv.f.RunAll(ectx, runs, inv.log)
	<-decrypted
	for _, l := range loads {
		if l.err != nil {
			return inv.rejected(ctx, got, loads)
		}
	}
	for i, r := range results {
		got.scopes[i].Result = r
	}
	return got, commit
}

// scopeLoad is one scope's desired state as the run loads it: opened
// (l, the outline known), then decrypted by the run's decrypting goroutine,
// which sets st or err and closes done.
type scopeLoad struct {
	log  *slog.Logger
	l    desiredLoading
	done chan struct{}
	st   model.State
	err  error
}

// fail records a load that failed before its decryption began.
func (l *scopeLoad) fail(err error) {
	l.err = err
	close(l.done)
}

// Wait is the scope's engine.Values: it returns the decrypted state once
// the goroutine has it, or ctx's error when ctx ends first. The state is
// handed over: the scope's load keeps only its error.
func (l *scopeLoad) Wait(ctx context.Context) (model.State, error) {
	select {
	case <-l.done:
		st := l.st
		l.st = model.State{}
		return st, l.err
	case <-ctx.Done():
		return model.State{}, ctx.Err()
	}
}

// Decrypted is the scope's engine.Values: a value already decrypted
// (desired.Loading.Decrypted).
func (l *scopeLoad) Decrypted(name string) []byte { return l.l.Decrypted(name) }

// desiredLoading is a desired state between its two steps
// (desired.Loading): the outline, the values decrypted so far, then the
// decrypted state.
type desiredLoading interface {
	Outline() model.State
	Decrypted(name string) []byte
	Decrypt(ctx context.Context, p *desired.Progress, c *desired.Cache) (model.State, error)
}

// open is the first step of one scope's load (desired.Open): the outline,
// or the diagnostics of a repository, a revision or a structurally invalid
// document. Test factories without OpenDesired load whole at once
// (LoadDesired), their outline being the whole state.
func (inv *invocation) open(ctx context.Context, o config.Desired) (desiredLoading, error) {
	if inv.f.OpenDesired != nil {
		l, err := inv.f.OpenDesired(ctx, o)
		if err != nil {
			return nil, err
		}
		return l, nil
	}
	st, err := inv.f.LoadDesired(ctx, o)
	if err != nil {
		return nil, err
	}
	return loaded(st), nil
}

// loaded is a desired state that was whole when opened.
type loaded model.State

func (s loaded) Outline() model.State { return model.State(s) }

func (s loaded) Decrypted(name string) []byte {
	i, ok := slices.BinarySearchFunc(s.Secrets, name, func(sec model.Secret, n string) int { return strings.Compare(sec.Name, n) })
	if !ok {
		return nil
	}
	return s.Secrets[i].Value
}

func (s loaded) Decrypt(context.Context, *desired.Progress, *desired.Cache) (model.State, error) {
	return model.State(s), nil
}

// decrypt is the second step of one scope's load, on the run's decrypting
// goroutine: it decrypts with progress records meanwhile (reportLoading),
// logs "desired state loaded", and on a rejected desired state logs its
// diagnostics and stops the engine's observations (stop: nothing of the
// run will be planned).
func (inv *invocation) decrypt(ctx context.Context, l *scopeLoad, c *desired.Cache, stop context.CancelFunc) {
	defer close(l.done)
	start := inv.f.Now()
	docs := &desired.Progress{}
	end := inv.reportLoading(docs, l.log)
	l.st, l.err = l.l.Decrypt(ctx, docs, c)
	end()
	if l.err != nil {
		stop()
		return
	}
	l.log.Info("desired state loaded", slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.Int(vocab.FieldCount, len(l.st.Secrets)), slog.Int64(vocab.FieldDurationMS, inv.f.Now().Sub(start).Milliseconds()))
}

// rejected is the run's end when a scope's desired state was rejected (or
// its load interrupted): every scope is invalid, those without an invalid
// document of their own too, with every scope's diagnostics logged and
// reported, and no revision (docs/results.md, git_revision), whatever the
// first observations read meanwhile: nothing was written.
func (inv *invocation) rejected(ctx context.Context, got reached, loads []*scopeLoad) (reached, string) {
	for _, l := range loads {
		if err := l.err; err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return reached{run: engine.Result{Status: vocab.StatusInterrupted}}, ""
		}
	}
	for i, l := range loads {
		got.scopes[i].Result = engine.Result{Status: vocab.StatusInvalid}
		if l.err != nil {
			got.scopes[i].Result = stopped(inv.logDesired(l.log, l.err)).run
		}
	}
	return got, ""
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

// runScope is one scope of the run as the command runs it (SPEC §10): its
// name and the options its loader, engine and AWS port take.
type runScope struct {
	name    string
	desired config.Desired
	engine  config.Engine
	aws     config.AWS
	listed  bool // an entry of the config file's scopes: (config.Scope.Listed)
}

// scopesOf returns the run's scopes (config.Options.Scopes, in
// configuration order); options that hold none (built by hand, not by
// config.Resolve) are one scope named default from the top-level settings.
func scopesOf(o config.Options) []runScope {
	if len(o.Scopes) == 0 {
		return []runScope{{name: planview.DefaultScope, desired: o.Desired, engine: o.Engine, aws: o.AWS}}
	}
	out := make([]runScope, len(o.Scopes))
	for i, sc := range o.Scopes {
		out[i] = runScope{name: sc.Name, desired: sc.Desired, engine: sc.Engine, aws: sc.AWS, listed: sc.Listed}
	}
	return out
}

// scopePort is the AWS port of one scope, its Region ("" when the SDK's
// chain chose it) and its quota bucket key (never logged: it may hold an
// account id).
type scopePort struct {
	region, bucket string
	port           engine.Port
}

// ports builds the port of every scope, in order (Factory.Ports: each
// scope's credentials and Region, its quota bucket, the overlap rule over
// every configured scope, --scope or not).
func (inv *invocation) ports(ctx context.Context, scopes []runScope) ([]scopePort, error) {
	cs := make([]config.Scope, len(scopes))
	for i, sc := range scopes {
		cs[i] = config.Scope{Name: sc.name, Desired: sc.desired, Engine: sc.engine, AWS: sc.aws, Listed: sc.listed}
	}
	ps, err := inv.f.Ports(ctx, cs, inv.opts.Config.Configured)
	if err != nil {
		return nil, err
	}
	out := make([]scopePort, len(ps))
	for i, p := range ps {
		// The Region the SDK chain chose is shown only when it is a Region
		// code (the plan file accepts no other text); AWS_REGION may hold
		// anything an endpoint override accepts.
		region := p.Region
		if !model.ValidRegion(region) {
			region = ""
		}
		out[i] = scopePort{region: region, bucket: p.Bucket, port: p.Port}
	}
	return out, nil
}

// setUpFailed logs the diagnostics of a rejected AWS set-up (factory.Ports:
// SDK configuration, overlapping scopes, STS) and returns the run they end:
// invalid (exit 3), or observation-failed (exit 5) when STS refused or
// failed (credentials:*): AWS was asked, and nothing was read.
func (inv *invocation) setUpFailed(err error) reached {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		var d diag.Diagnostic
		if !errors.As(err, &d) {
			d = diag.New(diag.AWSConfig, diag.Subject{})
		}
		ds = diag.Diagnostics{d}
	}
	got := stopped(ds)
	if ds.ExitCode() == vocab.ExitApply {
		got.run.Status = vocab.StatusObservationFailed
	}
	var names []string
	for _, sc := range scopesOf(inv.opts.Config) {
		names = append(names, sc.name)
	}
	for _, d := range ds {
		attrs := []any{slog.String(vocab.FieldPhase, vocab.PhaseAWS), slog.String(vocab.FieldStatus, string(got.run.Status))}
		if name := scopeOf(d, names); name != "" {
			attrs = append(attrs, slog.String(vocab.FieldScope, name))
		}
		inv.log.Error(d.Sentence(), append(attrs, d.Attrs()...)...)
	}
	return got
}

// scopeOf is the name of the scope, of the run's scopes names, that d is
// about: the scope of a setting scopes.<name>.<key> (config.Scope.SettingName),
// else the run's only scope when d is not the run's own (runLevel); ""
// when d is the run's.
func scopeOf(d diag.Diagnostic, names []string) string {
	if rest, ok := strings.CutPrefix(d.Subject.Setting, config.ScopesKey+"."); ok {
		if name, _, ok := strings.Cut(rest, "."); ok && slices.Contains(names, name) {
			return name
		}
	}
	if len(names) == 1 && !runLevel(d.Class) {
		return names[0]
	}
	return ""
}

// logDesired logs a rejected desired state: one record per diagnostic, with
// its class token and the document's label (ordinal, or path with
// --show-resource-names); the message is the diagnostic's own text. It
// returns the diagnostics (for the plan file).
func (inv *invocation) logDesired(log *slog.Logger, err error) diag.Diagnostics {
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

func since(f *factory.Factory, start time.Time) int64 {
	return f.Now().Sub(start).Milliseconds()
}

// reportLoading logs a "progress" record (phase plan, documents decrypted
// and selected) every engine.DefaultProgressInterval of the factory's clock
// while the desired state loads, also while a key service does not answer
// (so a slow KMS shows as progress, not silence); stop ends it before the next record.
func (inv *invocation) reportLoading(p *desired.Progress, log *slog.Logger) (stop func()) {
	after := inv.f.After
	if after == nil {
		after = time.After
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-after(engine.DefaultProgressInterval):
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
