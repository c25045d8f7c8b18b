package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
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
	status, final := r.outcome(ctx)
	return r.ledger.result(status, final)
}

// outcome runs observe, plan, apply and verify and returns the status and
// the last plan built (the zero Plan when the first observation failed);
// run turns them into the Result through the ledger (one place).
func (r *runner) outcome(ctx context.Context) (vocab.Status, plan.Plan) {
	r.warnARNSuffixNames()
	phase := r.startPhase()
	obs, others, err := r.observe(ctx, vocab.PhasePlan, nil, listManaged)
	if err != nil {
		return r.observationFailed(ctx, err), plan.Plan{}
	}
	r.checkOrphans(others)
	p := r.buildPlan(obs, phase)
	if status, stop := r.gate(p); stop {
		return status, p
	}
	if r.mode == ModePlan {
		if len(p.Ops) > 0 {
			return vocab.StatusDrift, p
		}
		return vocab.StatusConverged, p
	}
	if len(p.Ops) == 0 {
		// The initial direct observation is the proof (SPEC §6 [beyond]).
		return vocab.StatusConverged, p
	}
	for rebuilt := false; ; rebuilt = true {
		switch r.apply(ctx, p) {
		case outDone:
			return r.verify(ctx)
		case outInterrupted:
			return vocab.StatusInterrupted, p
		case outConflict:
			return vocab.StatusConflict, p
		case outFailed:
			return vocab.StatusApplyFailed, p
		case outSecondWriter:
			return vocab.StatusVerificationFailed, p
		case outRebuild:
			if rebuilt {
				r.log.Error("rebuild budget exhausted", slog.String(vocab.FieldPhase, vocab.PhaseApply))
				return vocab.StatusVerificationFailed, p
			}
		}
		r.log.Info("rebuilding plan", slog.String(vocab.FieldPhase, vocab.PhasePlan))
		phase = r.startPhase()
		if obs, _, err = r.observe(ctx, vocab.PhasePlan, r.ledger.touchedNames(), listScope); err != nil {
			if ctx.Err() != nil {
				return vocab.StatusInterrupted, p
			}
			r.log.Error("observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, errAttrs(err)...)...)
			r.ledger.problem(diag.New(diag.ObserveFailed, diag.Subject{}))
			return vocab.StatusApplyFailed, p
		}
		p = r.buildPlan(obs, phase)
		if status, stop := r.gate(p); stop {
			return status, p
		}
	}
}

// buildPlan plans from one observation (plan.Build), records the plan as
// the one the run shows (ledger.planned) and logs it with the summary of
// the phase that began at phase.
func (r *runner) buildPlan(obs observation, phase phaseStart) plan.Plan {
	p := plan.Build(r.want, obs, r.policy)
	r.ledger.planned(p)
	r.log.Info("plan built", r.summary(phase, slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, p.Counts().Operations()))...)
	for _, op := range p.Ops {
		r.log.Debug("planned", slog.String(vocab.FieldPhase, vocab.PhasePlan),
			slog.String(vocab.FieldOperation, string(op.Action)), slog.String(vocab.FieldResource, r.label(op.Name)))
	}
	return p
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

// ClassDeletionLimit is the error class of a plan blocked by --max-deletions
// (docs/recovery.md, exit 3).
const ClassDeletionLimit = diag.GateMaxDeletions

// gate stops on conflicts (nothing is mutated, SPEC §4.1), on the
// empty-scope gate (SPEC §5) and on the deletion limit (--max-deletions).
func (r *runner) gate(p plan.Plan) (vocab.Status, bool) {
	switch {
	case len(p.Conflicts) > 0:
		r.logConflicts(vocab.PhasePlan, p)
		return vocab.StatusConflict, true
	case p.EmptyScopeGate:
		r.ledger.problem(diag.New(diag.GateEmptyScope, diag.Subject{}))
		r.log.Error("empty desired state would delete the whole scope; pass --allow-empty to authorize",
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.Int(vocab.FieldCount, p.Counts().ScheduleDelete))
		return vocab.StatusInvalid, true
	case p.DeletionLimitGate:
		r.ledger.problem(diag.New(diag.GateMaxDeletions, diag.Subject{}))
		r.log.Error(fmt.Sprintf("plan would schedule more deletions than --max-deletions allows (%d); nothing was changed: check the source root and prefix, or raise --max-deletions for this run to authorize them", *r.policy.MaxDeletions),
			slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, ClassDeletionLimit),
			slog.Int(vocab.FieldCount, p.Deletions()))
		return vocab.StatusInvalid, true
	}
	return "", false
}

func (r *runner) observationFailed(ctx context.Context, err error) vocab.Status {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return vocab.StatusInterrupted
	}
	r.log.Error("observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhasePlan)}, errAttrs(err)...)...)
	r.ledger.problem(diag.New(diag.ObserveFailed, diag.Subject{}))
	return vocab.StatusObservationFailed
}
