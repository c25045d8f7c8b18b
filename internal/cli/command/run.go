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
	for _, sc := range scopesOf(opts.Config) {
		outs.scopes = append(outs.scopes, scopeID{name: sc.name, region: sc.aws.Region})
	}
	return &invocation{f: f, opts: opts, log: log}, outs
}

// reconcile runs the run's scopes (SPEC §10; one named default without
// scopes:): it builds every scope's port, resolves the revision once,
// loads every scope's desired state at that commit (every invalid document
// of every scope reported at once, each record naming its scope), and runs
// them through engine.RunScopes (every scope planned before any is
// applied). It returns what the run reached and the commit it read; a
// rejected AWS set-up, revision or desired state is logged here, a
// cancellation before the engine is interrupted.
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
	states, ok := make([]model.State, len(scopes)), true
	got := reached{scopes: make([]scopeReached, len(scopes))}
	// Scopes over one source root select the same blobs at the one commit:
	// each is decrypted once for the run, and the cache is dropped as soon
	// as the loads end (the states keep the values they need).
	cache := desired.NewCache()
	defer cache.Drop()
	for i, sc := range scopes {
		got.scopes[i] = scopeReached{name: sc.name, region: ports[i].region}
		o := sc.desired
		if commit != "" {
			o.Revision = commit
		}
		log := inv.log.With(slog.String(vocab.FieldScope, sc.name))
		loadStart := inv.f.Now()
		st, err := inv.load(ctx, o, log, cache)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return interrupted, ""
			}
			got.scopes[i].Result = stopped(inv.logDesired(log, err)).run
			ok = false
			continue
		}
		log.Info("desired state loaded", slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.Int(vocab.FieldCount, len(st.Secrets)), slog.Int64(vocab.FieldDurationMS, inv.f.Now().Sub(loadStart).Milliseconds()))
		states[i] = st
		if commit == "" {
			commit = st.Commit
		}
	}
	cache.Drop()
	if !ok {
		// Nothing was read from AWS: every scope of the run is refused,
		// those without an invalid document of their own too.
		for i := range got.scopes {
			if got.scopes[i].Status == "" {
				got.scopes[i].Status = vocab.StatusInvalid
			}
		}
		// As for one scope: a rejected desired state reports no revision
		// (docs/results.md, git_revision).
		return got, ""
	}

	runs := make([]engine.ScopeRun, len(scopes))
	for i, sc := range scopes {
		runs[i] = engine.ScopeRun{Bucket: ports[i].bucket, Config: engine.Config{Mode: inv.opts.Mode, Engine: sc.engine, Siblings: siblings(inv.opts.Config, states[i].Scope)},
			Want: states[i], Port: ports[i].port, Log: inv.log.With(slog.String(vocab.FieldScope, sc.name))}
	}
	for i, r := range inv.f.RunAll(ctx, runs, inv.log) {
		got.scopes[i].Result = r
	}
	return got, commit
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

// load reads the desired state, sharing decryptions with the run's other
// loads through c; with a counting loader it logs progress records
// meanwhile (reportLoading).
func (inv *invocation) load(ctx context.Context, o config.Desired, log *slog.Logger, c *desired.Cache) (model.State, error) {
	if inv.f.LoadDesiredCounted == nil {
		return inv.f.LoadDesired(ctx, o)
	}
	docs := &desired.Progress{}
	stop := inv.reportLoading(docs, log)
	defer stop()
	return inv.f.LoadDesiredCounted(ctx, o, docs, c)
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
