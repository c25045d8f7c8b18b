package command

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/logging"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/policy"
	"github.com/sops-aws-sync/sops-aws-sync/internal/run"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// invalidConfig ends a run whose configuration was rejected. Nothing is
// logged (the log settings may be the invalid ones); the diagnostics go to
// stderr, and the report and the plan file are still written when their
// own settings resolved.
func invalidConfig(f *factory.Factory, start time.Time, resolved config.Options, changesFile string, err error) error {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		ds = diag.Diagnostics{diag.New(diag.Internal, diag.Subject{})}
	}
	out := resolved.Output
	outs := newOutputs(f.Build.Version, out.ReportFile, out.PlanFile, out.ShowResourceNames, nil, nil).withChanges(f.Build.Version, changesFile)
	ds = append(ds, outs.probe()...)
	return outs.write(conclude(run.Stopped(ds), how{durationMS: since(f, start)}))
}

// reconcile runs one plan or sync with resolved options: resolve the
// outputs (each proves itself writable), compile plan --policy's policies,
// execute the run (run.Execute over the factory's Sources), conclude,
// check the plan with the policies (checkPolicy), write the ending. It returns nil for
// exit 0 and otherwise a *exitcode.RunError.
func reconcile(parent context.Context, f *factory.Factory, opts *Options, start time.Time) error {
	ctx, cancel := context.WithTimeoutCause(parent, opts.Config.Run.Timeout, errRunTimeout)
	defer cancel()
	req, outs := resolve(f, opts)
	got := run.Stopped(outs.probe())
	if len(got.Run.Diagnostics) == 0 && opts.ReviewedPlan != "" {
		var ds diag.Diagnostics
		req.Reviewed, ds = readReviewed(req.Log, opts.ReviewedPlan)
		got = run.Stopped(ds)
	}
	var pol *policy.Set
	if len(got.Run.Diagnostics) == 0 && opts.Config.Run.Policy != "" {
		var ds diag.Diagnostics
		pol, ds = loadPolicy(ctx, req.Log, opts.Config)
		got = run.Stopped(ds)
	}
	if len(got.Run.Diagnostics) == 0 {
		got = run.Execute(ctx, f.Sources, req)
	}
	h := how{detailed: opts.Mode == engine.ModePlan && opts.Config.Run.DetailedExitCode, durationMS: since(f, start)}
	if ctx.Err() != nil {
		h.cause = context.Cause(ctx)
	}
	return outs.write(checkPolicy(ctx, req.Log, pol, outs, conclude(got, h)))
}

// resolve builds the run's logger, logs "run started", and returns the
// run's request and its outputs.
func resolve(f *factory.Factory, opts *Options) (run.Request, *outputs) {
	out := opts.Config.Output
	log, _ := logging.New(f.IOStreams.Out, logging.Options{Level: out.LogLevel, Format: out.LogFormat})
	log.Info("run started", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldOperation, opts.Command))
	var text io.Writer
	if out.LogFormat == "text" {
		text = f.IOStreams.Out
	}
	outs := newOutputs(f.Build.Version, out.ReportFile, out.PlanFile, out.ShowResourceNames, log, text).withChanges(f.Build.Version, opts.ChangesFile)
	outs.pointer = opts.Command == "plan"
	outs.scopes = opts.Config.Scopes
	outs.command, outs.repositoryID = opts.Command, outs.scopes[0].Desired.RepositoryID
	return run.Request{Mode: opts.Mode, Options: opts.Config, Log: log, Clock: f.Clock}, outs
}

// readReviewed reads the reviewed plan file at path (planview.ReadFile)
// and checks that it can be applied (run.ReviewedPlan). A file that
// cannot be read or is no plan is its planfile:* class, one that is no
// reviewable plan plan:not-reviewable; each is logged, and nothing is
// read from Git or AWS (exit 3).
func readReviewed(log *slog.Logger, path string) (*planview.View, diag.Diagnostics) {
	v, err := planview.ReadFile(path)
	var ds diag.Diagnostics
	if err != nil {
		class, reason := diag.PlanfileUnreadable, ""
		var pe *planview.Error
		if errors.As(err, &pe) {
			class, reason = pe.Class, "the reviewed plan file cannot be used: "+pe.Reason
		}
		ds = diag.Diagnostics{diag.New(class, diag.Subject{}).WithSummary(reason)}
	} else {
		ds = run.ReviewedPlan(v)
	}
	for _, d := range ds {
		log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid))}, d.Attrs()...)...)
	}
	if ds != nil {
		return nil, ds
	}
	return &v, nil
}

func since(f *factory.Factory, start time.Time) int64 {
	return f.Clock.Now().Sub(start).Milliseconds()
}
