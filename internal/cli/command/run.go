package command

import (
	"context"
	"errors"
	"io"
	"log/slog"
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
	if len(got.Diagnostics) == 0 {
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
	outs.scope = &scopeID{name: planview.DefaultScope, region: opts.Config.AWS.Region}
	return &invocation{f: f, opts: opts, log: log}, outs
}

// reconcile builds the AWS port, loads the desired state and runs the
// engine. It returns what the run reached and the commit it read; a
// rejected AWS set-up or desired state is stopped(...) (logged here), a
// cancellation before the engine is interrupted.
func (inv *invocation) reconcile(ctx context.Context) (engine.Result, string) {
	interrupted := engine.Result{Status: vocab.StatusInterrupted}
	port, err := inv.f.NewPort(ctx, inv.opts.Config.AWS)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted, ""
		}
		var d diag.Diagnostic
		if !errors.As(err, &d) {
			d = diag.New(diag.AWSConfig, diag.Subject{})
		}
		inv.log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhaseAWS),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid))}, d.Attrs()...)...)
		return stopped(diag.Diagnostics{d}), ""
	}

	loadStart := inv.f.Now()
	state, err := inv.load(ctx)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return interrupted, ""
		}
		return stopped(inv.logDesired(err)), ""
	}
	inv.log.Info("desired state loaded", slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.Int(vocab.FieldCount, len(state.Secrets)), slog.Int64(vocab.FieldDurationMS, inv.f.Now().Sub(loadStart).Milliseconds()))

	return inv.f.RunEngine(ctx, engine.Config{Mode: inv.opts.Mode, Engine: inv.opts.Config.Engine}, state, port, inv.log), state.Commit
}

// logDesired logs a rejected desired state: one record per diagnostic, with
// its class token and the document's label (ordinal, or path with
// --show-resource-names); the message is the diagnostic's own text. It
// returns the diagnostics (for the plan file).
func (inv *invocation) logDesired(err error) diag.Diagnostics {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) == 0 {
		ds = diag.Diagnostics{diag.New(diag.DesiredInternal, diag.Subject{})}
	}
	for _, d := range ds {
		inv.log.Error("desired state rejected: "+d.Error(), append([]any{
			slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid)),
		}, d.Attrs()...)...)
	}
	return ds
}

func since(f *factory.Factory, start time.Time) int64 {
	return f.Now().Sub(start).Milliseconds()
}

// load reads the desired state; with a counting loader it logs progress
// records meanwhile (reportLoading).
func (inv *invocation) load(ctx context.Context) (model.State, error) {
	if inv.f.LoadDesiredCounted == nil {
		return inv.f.LoadDesired(ctx, inv.opts.Config.Desired)
	}
	docs := &desired.Progress{}
	stop := inv.reportLoading(docs)
	defer stop()
	return inv.f.LoadDesiredCounted(ctx, inv.opts.Config.Desired, docs)
}

// reportLoading logs a "progress" record (phase plan, documents decrypted
// and selected) every engine.DefaultProgressInterval of the factory's clock
// while the desired state loads, also while a key service does not answer
// (so a slow KMS shows as progress, not silence); stop ends it before the next record.
func (inv *invocation) reportLoading(p *desired.Progress) (stop func()) {
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
			inv.log.Info("progress", slog.String(vocab.FieldPhase, vocab.PhasePlan),
				slog.Int64(vocab.FieldDone, p.Done()), slog.Int64(vocab.FieldTotal, p.Total()))
		}
	}()
	return func() { close(done); <-finished }
}
