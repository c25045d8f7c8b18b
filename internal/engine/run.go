package engine

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Run observes the scope of want through sm, plans, and in ModeSync applies
// and verifies (SPEC §4–§7). It never returns an error: every failure is a
// Status. A cancelled ctx (signal or run timeout) yields StatusInterrupted.
//
// Statuses: plan mode → drift (operations planned) or converged; conflict
// when any conflict blocks the plan; invalid when the empty-scope gate
// holds; observation-failed when the first observation fails (access denied
// included); apply-failed when an operation fails closed; verification-
// failed when a second rebuild would be needed or verification finds a real
// mismatch; verification-inconclusive when verification times out on
// propagation lag.
//
// Counts (sync): create/update/restore/schedule_delete are the operations
// that took effect in this run (follow-up updates after restores included,
// across a rebuild); unchanged are the final plan's unchanged names that
// this run did not touch; conflicts are the final plan's.
func Run(ctx context.Context, cfg Config, want model.State, sm Port, log *slog.Logger) Result {
	return newRunner(cfg, want, sm, log).run(ctx)
}

func (r *runner) run(ctx context.Context) Result {
	start := r.clock.Now()
	r.warnARNSuffixNames()
	obs, err := r.observe(ctx, nil)
	if err != nil {
		return r.observationFailed(ctx, err)
	}
	p := plan.Build(r.want, obs, r.cfg.AllowEmpty)
	r.logPlan(p, start)
	if res, stop := r.gate(p); stop {
		return res
	}
	if r.cfg.Mode == ModePlan {
		status := vocab.StatusConverged
		if len(p.Ops) > 0 {
			status = vocab.StatusDrift
		}
		return Result{Status: status, Verification: vocab.VerificationNotRun, Counts: p.Counts()}
	}
	if len(p.Ops) == 0 {
		// The initial direct observation is the proof (SPEC §6 [beyond]).
		return Result{Status: vocab.StatusConverged, Verification: vocab.VerificationConverged, Counts: p.Counts()}
	}
	for rebuilt := false; ; rebuilt = true {
		switch r.apply(ctx, p) {
		case outDone:
			status, verification, final := r.verify(ctx)
			return Result{Status: status, Verification: verification, Counts: r.counts(final)}
		case outInterrupted:
			return Result{Status: vocab.StatusInterrupted, Verification: vocab.VerificationNotRun, Counts: r.counts(p)}
		case outConflict:
			c := r.counts(p)
			r.mu.Lock()
			c.Conflicts = r.lateConflicts
			r.mu.Unlock()
			return Result{Status: vocab.StatusConflict, Verification: vocab.VerificationNotRun, Counts: c}
		case outFailed:
			return Result{Status: vocab.StatusApplyFailed, Verification: vocab.VerificationNotRun, Counts: r.counts(p)}
		case outRebuild:
			if rebuilt {
				r.log.Error("rebuild budget exhausted", slog.String(vocab.FieldPhase, vocab.PhaseApply))
				return Result{Status: vocab.StatusVerificationFailed, Verification: vocab.VerificationFailed, Counts: r.counts(p)}
			}
		}
		r.log.Info("rebuilding plan", slog.String(vocab.FieldPhase, vocab.PhasePlan))
		start = r.clock.Now()
		if obs, err = r.observe(ctx, r.touchedNames()); err != nil {
			if ctx.Err() != nil {
				return Result{Status: vocab.StatusInterrupted, Verification: vocab.VerificationNotRun, Counts: r.counts(p)}
			}
			r.log.Error("observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, errAttrs(err)...)...)
			return Result{Status: vocab.StatusApplyFailed, Verification: vocab.VerificationNotRun, Counts: r.counts(p)}
		}
		p = plan.Build(r.want, obs, r.cfg.AllowEmpty)
		r.logPlan(p, start)
		if res, stop := r.gate(p); stop {
			res.Counts = r.counts(p)
			return res
		}
	}
}

// warnARNSuffixNames logs one warning per desired name that ends like an
// ARN's random suffix ("-" + six characters): AWS's partial-ARN lookup may
// take it for another secret's ARN, so the engine addresses it by full ARN
// once known (SPEC §3.4). Labels are ordinals unless ShowResourceNames.
func (r *runner) warnARNSuffixNames() {
	for _, s := range r.want.Secrets {
		if model.SuffixLooksLikeARN(s.Name) {
			r.log.Warn("secret name ends like an ARN suffix; it will be addressed by full ARN once known",
				slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldResource, r.label(s.Name)))
		}
	}
}

// gate stops on conflicts (nothing is mutated, SPEC §4.1) and on the
// empty-scope gate (SPEC §5).
func (r *runner) gate(p plan.Plan) (Result, bool) {
	switch {
	case len(p.Conflicts) > 0:
		r.logConflicts(vocab.PhasePlan, p)
		return Result{Status: vocab.StatusConflict, Verification: vocab.VerificationNotRun, Counts: p.Counts()}, true
	case p.EmptyScopeGate:
		r.log.Error("empty desired state would delete the whole scope; pass --allow-empty to authorize",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, p.Counts().ScheduleDelete))
		return Result{Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun, Counts: p.Counts()}, true
	}
	return Result{}, false
}

func (r *runner) observationFailed(ctx context.Context, err error) Result {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return Result{Status: vocab.StatusInterrupted, Verification: vocab.VerificationNotRun}
	}
	r.log.Error("observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, errAttrs(err)...)...)
	return Result{Status: vocab.StatusObservationFailed, Verification: vocab.VerificationNotRun}
}

// counts derives the sync counts from the operations that took effect and
// the given (last) plan.
func (r *runner) counts(p plan.Plan) vocab.Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := plan.CountOps(r.applied)
	for _, u := range p.Unchanged {
		if !r.touched[u.Name] {
			c.Unchanged++
		}
	}
	c.Conflicts = len(p.Conflicts)
	return c
}

func (r *runner) logPlan(p plan.Plan, start time.Time) {
	c := p.Counts()
	r.log.Info("plan built", slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, c.Operations()),
		ms(r.clock.Now().Sub(start)))
	for _, op := range p.Ops {
		r.log.Debug("planned", slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldOperation, string(op.Kind)), slog.String(vocab.FieldResource, r.label(op.Name)))
	}
}
