package command

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/desired"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/logging"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// errRunTimeout is the cancellation cause of --run-timeout.
var errRunTimeout = errors.New("run timeout")

// invalidConfig ends a run whose configuration was rejected. Nothing is
// logged (the log settings may be the invalid ones); the diagnostics go to
// stderr, and the report is still written when its own setting resolved.
func invalidConfig(f *factory.Factory, start time.Time, resolved config.Options, err error) error {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) {
		ds = diag.Diagnostics{diag.New(diag.Internal, diag.Subject{})}
	}
	out := &exitcode.RunError{Status: vocab.StatusInvalid, Diagnostics: ds}
	if resolved.Output.ReportFile != "" {
		rep := report.New(f.Build.Version, "", vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{}, since(f, start))
		if werr := report.WriteFile(resolved.Output.ReportFile, rep); werr != nil {
			out.Diagnostics = append(out.Diagnostics, ReportFailure(werr))
		}
	}
	if resolved.Output.PlanFile != "" {
		v := planView("", nil, out.Diagnostics, resolved.Output.ShowResourceNames)
		if werr := planview.WriteFile(resolved.Output.PlanFile, v); werr != nil {
			out.Diagnostics = append(out.Diagnostics, PlanFailure(werr))
		}
	}
	return out
}

// ReportFailure is the diagnostic of a report write or probe error:
// report:not-regular-file for an existing target that is not a regular
// file, else report:write-failed naming the failed step; never the path.
func ReportFailure(err error) diag.Diagnostic {
	if errors.Is(err, wirefile.ErrNotRegular) {
		return diag.New(diag.ReportNotRegularFile, diag.Subject{})
	}
	return diag.New(diag.ReportWriteFailed, diag.Subject{}).WithSummary("the report file could not be written (step " + wirefile.StepOf(err) + ")")
}

// probeReportFile proves --report-file writable before any AWS call;
// errors are *wirefile.WriteError.
func probeReportFile(path string) error { return report.File.Probe(path) }

type runner struct {
	f     *factory.Factory
	opts  *Options
	log   *slog.Logger
	start time.Time
}

// outcome is what the final record and the report say.
type outcome struct {
	status       vocab.Status
	verification vocab.Verification
	counts       vocab.Counts
	revision     string
	// plan is the engine's shown plan (nil when none was built); diags
	// the run's diagnostics for the plan file (a rejected desired state,
	// the AWS set-up error, the interruption).
	plan  []planview.Operation
	diags diag.Diagnostics
}

// run executes one plan or sync with resolved options. It returns nil for
// exit 0 and otherwise a *exitcode.RunError.
func run(parent context.Context, f *factory.Factory, opts *Options, start time.Time) error {
	out := opts.Config.Output
	log, _ := logging.New(f.IOStreams.Out, logging.Options{Level: out.LogLevel, Format: out.LogFormat})
	r := &runner{f: f, opts: opts, log: log, start: start}

	ctx, cancel := context.WithTimeoutCause(parent, opts.Config.Run.Timeout, errRunTimeout)
	defer cancel()

	r.log.Info("run started", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldOperation, opts.Command))

	var repErr, planErr error
	var o outcome
	if out.ReportFile != "" {
		repErr = probeReportFile(out.ReportFile)
	}
	if out.PlanFile != "" {
		planErr = probePlanFile(out.PlanFile)
	}
	if repErr != nil || planErr != nil {
		o = outcome{status: vocab.StatusInvalid, verification: vocab.VerificationNotRun}
	} else {
		o = r.reconcile(ctx)
	}

	if ctx.Err() != nil && o.status != vocab.StatusConverged && o.status != vocab.StatusDrift && o.status != vocab.StatusConflict && o.status != vocab.StatusInvalid {
		// A failure while the run was being cancelled is the cancellation's
		// doing (SPEC §7.1: signals and the run timeout map to interrupted).
		o.status, o.verification = vocab.StatusInterrupted, vocab.VerificationNotRun
	}
	if o.status == vocab.StatusInterrupted {
		class := diag.InterruptedSignal
		if errors.Is(context.Cause(ctx), errRunTimeout) {
			class = diag.InterruptedTimeout
		}
		d := diag.New(class, diag.Subject{})
		r.log.Warn(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhaseComplete)}, d.Attrs()...)...)
		o.diags = append(o.diags, d)
	}

	detailed := opts.Mode == engine.ModePlan && opts.Config.Run.DetailedExitCode
	code := vocab.ExitCode(o.status, detailed)
	level := slog.LevelInfo
	if code != vocab.ExitOK && o.status != vocab.StatusDrift {
		level = slog.LevelError
	}
	dur := since(f, start)
	r.log.Log(context.Background(), level, "run finished",
		slog.String(vocab.FieldPhase, vocab.PhaseComplete),
		slog.String(vocab.FieldStatus, string(o.status)),
		slog.String(vocab.FieldVerification, string(o.verification)),
		slog.Int(vocab.FieldCount, o.counts.Operations()),
		slog.Int64(vocab.FieldDurationMS, dur))

	if out.ReportFile != "" && repErr == nil {
		rep := report.New(f.Build.Version, o.revision, o.status, o.verification, o.counts, dur)
		repErr = report.WriteFile(out.ReportFile, rep)
		if repErr == nil {
			r.log.Debug("report written", slog.String(vocab.FieldPhase, vocab.PhaseReport))
		}
	}
	var ds diag.Diagnostics
	if repErr != nil {
		d := ReportFailure(repErr)
		r.log.Error(d.Sentence(), append(append([]any{slog.String(vocab.FieldPhase, vocab.PhaseReport)}, d.Attrs()...),
			slog.String(vocab.FieldOperation, wirefile.StepOf(repErr)))...)
		ds = append(ds, d)
	}
	view := planView(o.revision, o.plan, append(slices.Clone(o.diags), ds...), out.ShowResourceNames)
	if out.PlanFile != "" && planErr == nil {
		planErr = planview.WriteFile(out.PlanFile, view)
		if planErr == nil {
			r.log.Debug("plan file written", slog.String(vocab.FieldPhase, vocab.PhaseReport))
		}
	}
	if planErr != nil {
		d := PlanFailure(planErr)
		r.log.Error(d.Sentence(), append(append([]any{slog.String(vocab.FieldPhase, vocab.PhaseReport)}, d.Attrs()...),
			slog.String(vocab.FieldOperation, wirefile.StepOf(planErr)))...)
		ds = append(ds, d)
	}
	if out.LogFormat == "text" {
		// The human rendering follows the text log; the JSON log stream
		// stays pure JSON records.
		_, _ = io.WriteString(f.IOStreams.Out, "\n"+planview.Text(view))
	}
	if code == vocab.ExitOK && len(ds) == 0 {
		return nil
	}
	return &exitcode.RunError{Status: o.status, Detailed: detailed, Diagnostics: ds}
}

func (r *runner) reconcile(ctx context.Context) outcome {
	invalid := outcome{status: vocab.StatusInvalid, verification: vocab.VerificationNotRun}
	interrupted := outcome{status: vocab.StatusInterrupted, verification: vocab.VerificationNotRun}

	port, err := r.f.NewPort(ctx, r.opts.Config.AWS)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted
		}
		var d diag.Diagnostic
		if !errors.As(err, &d) {
			d = diag.New(diag.AWSConfig, diag.Subject{})
		}
		r.log.Error(d.Sentence(), append([]any{slog.String(vocab.FieldPhase, vocab.PhaseAWS),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid))}, d.Attrs()...)...)
		invalid.diags = diag.Diagnostics{d}
		return invalid
	}

	loadStart := r.f.Now()
	state, err := r.load(ctx)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return interrupted
		}
		invalid.diags = r.logDesired(err)
		return invalid
	}
	r.log.Info("desired state loaded", slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.Int(vocab.FieldCount, len(state.Secrets)), slog.Int64(vocab.FieldDurationMS, r.f.Now().Sub(loadStart).Milliseconds()))

	res := r.f.RunEngine(ctx, engine.Config{Mode: r.opts.Mode, Engine: r.opts.Config.Engine}, state, port, r.log)
	o := outcome{status: res.Status, verification: res.Verification, counts: res.Counts, revision: state.Commit, plan: res.Plan, diags: res.Diagnostics}
	if o.verification == "" {
		o.verification = vocab.VerificationNotRun
	}
	if r.opts.Mode == engine.ModePlan {
		o.verification = vocab.VerificationNotRun
	}
	return o
}

// logDesired logs a rejected desired state: one record per diagnostic, with
// its class token and the document's label (ordinal, or path with
// --show-resource-names); the message is the diagnostic's own text. It
// returns the diagnostics (for the plan file).
func (r *runner) logDesired(err error) diag.Diagnostics {
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) == 0 {
		ds = diag.Diagnostics{diag.New(diag.DesiredInternal, diag.Subject{})}
	}
	for _, d := range ds {
		r.log.Error("desired state rejected: "+d.Error(), append([]any{
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
func (r *runner) load(ctx context.Context) (model.State, error) {
	if r.f.LoadDesiredCounted == nil {
		return r.f.LoadDesired(ctx, r.opts.Config.Desired)
	}
	docs := &desired.Progress{}
	stop := r.reportLoading(docs)
	defer stop()
	return r.f.LoadDesiredCounted(ctx, r.opts.Config.Desired, docs)
}

// reportLoading logs a "progress" record (phase plan, documents decrypted
// and selected) every engine.DefaultProgressInterval of the factory's clock
// while the desired state loads, also while a key service does not answer
// (issue 15); stop ends it before the next record.
func (r *runner) reportLoading(p *desired.Progress) (stop func()) {
	after := r.f.After
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
			r.log.Info("progress", slog.String(vocab.FieldPhase, vocab.PhasePlan),
				slog.Int64(vocab.FieldDone, p.Done()), slog.Int64(vocab.FieldTotal, p.Total()))
		}
	}()
	return func() { close(done); <-finished }
}
