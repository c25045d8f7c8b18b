package engine

import (
	"context"
	"log/slog"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// verify proves convergence by re-observation (SPEC §6): the whole scope
// plus every name an operation touched is observed directly and re-planned
// on a fixed poll until the plan is empty (converged), a conflict appears
// (failed), or the verification timeout passes. At the timeout the result
// is inconclusive when every remaining difference is on a name this run
// wrote and shows only versions known to this run (propagation lag), and
// failed otherwise (a real mismatch: someone else wrote).
func (r *runner) verify(ctx context.Context) (vocab.Status, plan.Plan) {
	phase := r.startPhase()
	deadline := phase.at.Add(r.verificationTimeout)
	// The timeout bounds the whole verification, observations included: a
	// round still observing at the deadline is cut off (inconclusive), while
	// the parent's cancellation stays "interrupted".
	vctx, cancel := context.WithTimeout(ctx, r.verificationTimeout)
	defer cancel()
	expired := func() bool { return vctx.Err() != nil || !r.clock.Now().Before(deadline) }
	var (
		last     plan.Plan
		observed bool // a round completed its observation (last is its plan)
	)
	for round := 1; ; round++ {
		obs, _, err := r.observe(vctx, vocab.PhaseVerify, r.ledger.touchedNames(), listScope)
		switch {
		case ctx.Err() != nil:
			return vocab.StatusInterrupted, last
		case err != nil && vctx.Err() != nil:
			// The deadline passed mid-observation: this round proves
			// nothing; an earlier round's real mismatch still fails.
			return r.verified(r.cutOff(observed, last, err), round, phase, last)
		case err != nil:
			// Observation failures may be transient: keep polling.
			r.log.Warn("verification observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhaseVerify)}, errAttrs(err)...)...)
		default:
			observed = true
			last = plan.Build(r.want, obs, r.policy)
			if len(last.Conflicts) > 0 {
				r.logConflicts(vocab.PhaseVerify, last)
				r.conflictsMet(last)
				return r.verified(vocab.StatusVerificationFailed, round, phase, last)
			}
			if failed := failedReplicas(last); len(failed) > 0 {
				r.logFailedReplicas(failed)
				return r.verified(vocab.StatusVerificationFailed, round, phase, last)
			}
			if len(last.Ops) == 0 && len(last.Waiting) == 0 {
				r.ledger.proved(StateDigestOf(r.want, obs))
				return r.verified(vocab.StatusConverged, round, phase, last)
			}
			if names := r.ledger.changedElsewhere(last, obs, r.policy.Metadata); len(names) > 0 {
				r.logChangedElsewhere(names, last)
				return r.verified(vocab.StatusVerificationFailed, round, phase, last)
			}
		}
		if expired() {
			return r.verified(r.timedOut(observed, last, err), round, phase, last)
		}
		select {
		case <-ctx.Done():
			return vocab.StatusInterrupted, last
		case <-vctx.Done():
		case <-r.clock.After(r.pollInterval):
		}
	}
}

// cutOff is the verdict when the verification deadline cut a round's
// observation off: an earlier round's real mismatch still fails; else
// inconclusive, with what the last round showed or, when no round
// observed the scope, verify:unobserved.
func (r *runner) cutOff(observed bool, last plan.Plan, err error) vocab.Status {
	if observed {
		r.stillDiffering(last)
	}
	if observed && !r.ledger.explainedByLag(last) {
		return vocab.StatusVerificationFailed
	}
	if observed && len(last.Ops) == 0 {
		r.logPendingReplicas(last)
	}
	r.unobserved(err)
	return vocab.StatusVerificationInconclusive
}

// timedOut is the verdict when the verification timeout passed after a
// round: only replicas still InProgress is replication lag
// (inconclusive); else what the last observation still plans is recorded,
// and a persisting observation failure or a difference explained by
// propagation lag is inconclusive, any other difference failed.
func (r *runner) timedOut(observed bool, last plan.Plan, err error) vocab.Status {
	if err == nil && len(last.Ops) == 0 {
		r.logPendingReplicas(last)
		return vocab.StatusVerificationInconclusive
	}
	if observed {
		r.stillDiffering(last)
	}
	if err != nil {
		// A persisting observation failure proves nothing either way.
		r.unobserved(err)
		return vocab.StatusVerificationInconclusive
	}
	if r.ledger.explainedByLag(last) {
		return vocab.StatusVerificationInconclusive
	}
	return vocab.StatusVerificationFailed
}

func (r *runner) verified(s vocab.Status, rounds int, phase phaseStart, p plan.Plan) (vocab.Status, plan.Plan) {
	r.log.Info("verification finished", r.summary(phase, slog.String(vocab.FieldPhase, vocab.PhaseVerify),
		slog.String(vocab.FieldVerification, string(verificationOf(r.mode, s))), slog.Int(vocab.FieldCount, rounds))...)
	return s, p
}

// logChangedElsewhere records that another writer changed metadata this
// run wrote on names: one error record per name and the diagnostic the
// plan file carries (SPEC §6: the single-writer assumption is broken).
func (r *runner) logChangedElsewhere(names []string, p plan.Plan) {
	for _, n := range names {
		r.log.Error("another writer changed metadata this run wrote; not waiting for it",
			slog.String(vocab.FieldPhase, vocab.PhaseVerify), slog.String(vocab.FieldResource, r.label(n)),
			slog.String(vocab.FieldErrorClass, diag.VerifyChangedElsewhere))
		for _, op := range p.Ops {
			if op.Name == n {
				r.ledger.failure(n, differs(diag.VerifyChangedElsewhere, op))
			}
		}
	}
	r.ledger.problem(diag.New(diag.VerifyChangedElsewhere, diag.Subject{}))
}

// stillDiffering records, at the verification timeout, one failure record
// (verify:not-converged) and one log record per operation p still plans:
// the resources that differ from the commit, and what differs (the
// operation a plan would still make and its reason). Labels follow the
// redaction rule (ordinals unless names are shown).
func (r *runner) stillDiffering(p plan.Plan) {
	for _, op := range p.Ops {
		r.log.Warn("resource still differs at the verification timeout", slog.String(vocab.FieldPhase, vocab.PhaseVerify),
			slog.String(vocab.FieldResource, r.label(op.Name)), slog.String(vocab.FieldOperation, string(op.Action)),
			slog.String(vocab.FieldErrorClass, diag.VerifyNotConverged))
		r.ledger.failure(op.Name, differs(diag.VerifyNotConverged, op))
	}
}

// differs is the failure record of class about what op would still
// change: its action, reason and metadata kinds.
func differs(class string, op plan.Operation) planview.Failure {
	return planview.Failure{Class: class, Action: op.Action, Reason: op.Reason, Metadata: op.Metadata.Kinds()}
}

// failedReplicas returns the configured replicas p lists as Failed.
func failedReplicas(p plan.Plan) []plan.ReplicaWait {
	var out []plan.ReplicaWait
	for _, w := range p.Waiting {
		if w.Status == model.ReplicaFailed {
			out = append(out, w)
		}
	}
	return out
}

// logFailedReplicas records configured replicas whose replication failed:
// one error record per replica (its Region, never AWS's status message,
// which is provider text) and the diagnostic the plan file carries.
func (r *runner) logFailedReplicas(failed []plan.ReplicaWait) {
	for _, w := range failed {
		r.log.Error("replication to a configured Region failed; see docs/recovery.md",
			slog.String(vocab.FieldPhase, vocab.PhaseVerify), slog.String(vocab.FieldResource, r.label(w.Name)),
			slog.String(vocab.FieldErrorClass, diag.VerifyReplicaFailed), slog.String(vocab.FieldRegion, w.Region))
		r.ledger.failure(w.Name, planview.Failure{Class: diag.VerifyReplicaFailed})
	}
	r.ledger.problem(diag.New(diag.VerifyReplicaFailed, diag.Subject{}))
}

// logPendingReplicas records, at the verification timeout, the configured
// replicas still InProgress (inconclusive: replication lag).
func (r *runner) logPendingReplicas(p plan.Plan) {
	for _, w := range p.Waiting {
		r.log.Warn("replica still in progress at the verification timeout",
			slog.String(vocab.FieldPhase, vocab.PhaseVerify), slog.String(vocab.FieldResource, r.label(w.Name)),
			slog.String(vocab.FieldErrorClass, diag.VerifyReplicaInProgress), slog.String(vocab.FieldRegion, w.Region))
		r.ledger.failure(w.Name, planview.Failure{Class: diag.VerifyReplicaInProgress})
	}
	r.ledger.problem(diag.New(diag.VerifyReplicaInProgress, diag.Subject{}))
}

// conflictsMet records one failure record (verify:conflict) per conflict
// a verification round found: the secret, and its conflict class as the
// record's reason (action conflict), so the plan file says which secret
// ended the run verification-failed and why.
func (r *runner) conflictsMet(p plan.Plan) {
	for _, c := range p.Conflicts {
		r.ledger.failure(c.Name, planview.Failure{Class: diag.VerifyConflict, Action: vocab.ActionConflict, Reason: c.Class.Reason()})
	}
}

// unobserved records, when verification ends inconclusive and this run
// holds no failure record that says why, that verification could not
// observe the scope (verify:unobserved), with the last failed read's error
// code and IAM actions (none when the timeout cut the read off).
func (r *runner) unobserved(err error) {
	if r.ledger.hasFailures() {
		return
	}
	f := failureOf(diag.VerifyUnobserved, err, false)
	r.ledger.failure("", f)
}

// logConflicts logs each conflict with its class and resource label.
func (r *runner) logConflicts(phase string, p plan.Plan) {
	for _, c := range p.Conflicts {
		r.log.Warn("conflict", slog.String(vocab.FieldPhase, phase),
			slog.String(vocab.FieldResource, r.label(c.Name)),
			slog.String(vocab.FieldConflictClass, string(c.Class)))
	}
}
