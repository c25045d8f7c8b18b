package reconcile

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/exitcode"
	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/factory"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/logging"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Request is one plan or sync invocation.
type Request struct {
	// Command is "plan" or "sync".
	Command string
	Mode    engine.Mode
	// Flags are the flags given explicitly, with raw values.
	Flags map[string]string
}

// errRunTimeout is the cancellation cause of --run-timeout.
var errRunTimeout = errors.New("run timeout")

// Error classes logged by Run besides the desired-state and engine classes.
const (
	ClassInterruptedSignal  = "interrupted:signal"
	ClassInterruptedTimeout = "interrupted:run-timeout"
	ClassReportWrite        = "report:write-failed"
)

// Run executes one plan or sync. It returns nil for exit 0 and otherwise an
// error that exitcode.For maps: *exitcode.RunError for a run outcome, or one
// carrying a *config.Error diagnostic.
func Run(ctx context.Context, f *factory.Factory, req Request) error {
	start := f.Now()
	opts, cerr := config.Resolve(config.Input{
		Command:  req.Command,
		Flags:    req.Flags,
		Environ:  f.Environ(),
		ReadFile: f.ReadFile,
	})
	if cerr != nil {
		// Nothing is logged (the log settings may be the invalid ones); the
		// diagnostic goes to stderr, and the report is still written when
		// its own setting resolved.
		out := &exitcode.RunError{Status: vocab.StatusInvalid, Diagnostic: cerr}
		if opts.Output.ReportFile != "" {
			rep := report.New(f.Build.Version, "", vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{}, since(f, start))
			if err := report.WriteFile(opts.Output.ReportFile, rep); err != nil {
				out.ReportErr = err
			}
		}
		return out
	}

	log, _ := logging.New(f.IOStreams.Out, logging.Options{Level: opts.Output.LogLevel, Format: opts.Output.LogFormat})
	r := &runner{f: f, opts: opts, req: req, log: log, start: start}
	return r.run(ctx)
}

type runner struct {
	f     *factory.Factory
	opts  config.Options
	req   Request
	log   *slog.Logger
	start time.Time
}

// outcome is what the final record and the report say.
type outcome struct {
	status       vocab.Status
	verification vocab.Verification
	counts       vocab.Counts
	revision     string
}

func (r *runner) run(parent context.Context) error {
	ctx, cancel := context.WithTimeoutCause(parent, r.opts.Run.Timeout, errRunTimeout)
	defer cancel()

	r.log.Info("run started", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldOperation, r.req.Command))
	o := r.reconcile(ctx)

	if ctx.Err() != nil && o.status != vocab.StatusConverged && o.status != vocab.StatusDrift && o.status != vocab.StatusConflict && o.status != vocab.StatusInvalid {
		// A failure while the run was being cancelled is the cancellation's
		// doing (SPEC §7.1: signals and the run timeout map to interrupted).
		o.status, o.verification = vocab.StatusInterrupted, vocab.VerificationNotRun
	}
	if o.status == vocab.StatusInterrupted {
		class := ClassInterruptedSignal
		if errors.Is(context.Cause(ctx), errRunTimeout) {
			class = ClassInterruptedTimeout
		}
		r.log.Warn("run interrupted; re-run to finish (nothing is rolled back, the next run resumes from observed state)",
			slog.String(vocab.FieldPhase, vocab.PhaseComplete), slog.String(vocab.FieldErrorClass, class))
	}

	detailed := r.req.Mode == engine.ModePlan && r.opts.Run.DetailedExitCode
	code := vocab.ExitCode(o.status, detailed)
	level := slog.LevelInfo
	if code != vocab.ExitOK && o.status != vocab.StatusDrift {
		level = slog.LevelError
	}
	dur := since(r.f, r.start)
	r.log.Log(context.Background(), level, "run finished",
		slog.String(vocab.FieldPhase, vocab.PhaseComplete),
		slog.String(vocab.FieldStatus, string(o.status)),
		slog.String(vocab.FieldVerification, string(o.verification)),
		slog.Int(vocab.FieldCount, o.counts.Operations()),
		slog.Int64(vocab.FieldDurationMS, dur))

	var repErr error
	if r.opts.Output.ReportFile != "" {
		rep := report.New(r.f.Build.Version, o.revision, o.status, o.verification, o.counts, dur)
		if err := report.WriteFile(r.opts.Output.ReportFile, rep); err != nil {
			repErr = err
			var we *report.WriteError
			step := "unknown"
			if errors.As(err, &we) {
				step = we.Step
			}
			r.log.Error("report file could not be written; exiting 3 (the run's own status is in the previous record)",
				slog.String(vocab.FieldPhase, vocab.PhaseReport),
				slog.String(vocab.FieldErrorClass, ClassReportWrite),
				slog.String(vocab.FieldOperation, step))
		} else {
			r.log.Debug("report written", slog.String(vocab.FieldPhase, vocab.PhaseReport))
		}
	}
	if code == vocab.ExitOK && repErr == nil {
		return nil
	}
	return &exitcode.RunError{Status: o.status, Detailed: detailed, ReportErr: repErr}
}

func (r *runner) reconcile(ctx context.Context) outcome {
	invalid := outcome{status: vocab.StatusInvalid, verification: vocab.VerificationNotRun}
	interrupted := outcome{status: vocab.StatusInterrupted, verification: vocab.VerificationNotRun}

	port, err := r.f.NewPort(ctx, r.opts.AWS)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted
		}
		class := "aws:config"
		var ae *factory.AWSConfigError
		if errors.As(err, &ae) {
			class = ae.Class
		}
		r.log.Error(nextForAWSConfig(class), slog.String(vocab.FieldPhase, vocab.PhaseAWS),
			slog.String(vocab.FieldStatus, string(vocab.StatusInvalid)), slog.String(vocab.FieldErrorClass, class))
		return invalid
	}

	loadStart := r.f.Now()
	state, err := r.f.LoadDesired(ctx, r.opts.Desired)
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return interrupted
		}
		r.logDesiredError(err)
		return invalid
	}
	r.log.Info("desired state loaded", slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.Int(vocab.FieldCount, len(state.Secrets)), slog.Int64(vocab.FieldDurationMS, r.f.Now().Sub(loadStart).Milliseconds()))

	res := r.f.RunEngine(ctx, engine.Config{Mode: r.req.Mode, Engine: r.opts.Engine}, state, port, r.log)
	o := outcome{status: res.Status, verification: res.Verification, counts: res.Counts, revision: state.Commit}
	if o.verification == "" {
		o.verification = vocab.VerificationNotRun
	}
	if r.req.Mode == engine.ModePlan {
		o.verification = vocab.VerificationNotRun
	}
	return o
}

// logDesiredError logs a rejected desired state as one record with its
// class token and the document's ordinal (or path with
// --show-resource-names); the message is the next action.
func (r *runner) logDesiredError(err error) {
	class, ordinal, path, detail := "desired:internal", 0, "", ""
	var de *factory.DesiredError
	if errors.As(err, &de) {
		class, ordinal, path, detail = de.Class, de.Ordinal, de.Path, de.Detail
	}
	if detail == "" {
		detail = NextForDesired(class)
	}
	attrs := []any{
		slog.String(vocab.FieldPhase, vocab.PhasePlan),
		slog.String(vocab.FieldStatus, string(vocab.StatusInvalid)),
		slog.String(vocab.FieldErrorClass, class),
	}
	if ordinal > 0 || (r.opts.Output.ShowResourceNames && path != "") {
		attrs = append(attrs, logging.Resource(ordinal, path, r.opts.Output.ShowResourceNames))
	}
	r.log.Error("desired state rejected: "+detail, attrs...)
}

func nextForAWSConfig(class string) string {
	if class == "aws:no-region" {
		return "AWS client not configured: no Region; pass --aws-region or set AWS_REGION"
	}
	return "AWS client not configured: the shared config or profile could not be loaded; check --aws-profile and AWS_CONFIG_FILE"
}

func since(f *factory.Factory, start time.Time) int64 {
	return f.Now().Sub(start).Milliseconds()
}

// keep the desired import honest: the loader returns model.State.
var _ model.State
