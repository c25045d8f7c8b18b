package engine

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// verify proves convergence by re-observation (SPEC §6): the whole scope
// plus every name an operation touched is observed directly and re-planned
// on a fixed poll until the plan is empty (converged), a conflict appears
// (failed), or the verification timeout passes. At the timeout the result
// is inconclusive when every remaining difference is on a name this run
// wrote and shows only versions known to this run (propagation lag), and
// failed otherwise (a real mismatch: someone else wrote).
func (r *runner) verify(ctx context.Context) (vocab.Status, vocab.Verification, plan.Plan) {
	start := r.clock.Now()
	deadline := start.Add(r.cfg.VerificationTimeout)
	// The timeout bounds the whole verification, observations included: a
	// round still observing at the deadline is cut off (inconclusive), while
	// the parent's cancellation stays "interrupted".
	vctx, cancel := context.WithTimeout(ctx, r.cfg.VerificationTimeout)
	defer cancel()
	expired := func() bool { return vctx.Err() != nil || !r.clock.Now().Before(deadline) }
	var (
		last    plan.Plan
		lastObs observation // the last completed round's observation
	)
	for round := 1; ; round++ {
		obs, err := r.observe(vctx, r.touchedNames())
		switch {
		case ctx.Err() != nil:
			return vocab.StatusInterrupted, vocab.VerificationNotRun, last
		case err != nil && vctx.Err() != nil:
			// The deadline passed mid-observation: this round proves
			// nothing; an earlier round's real mismatch still fails.
			if lastObs != nil && !r.explainedByLag(lastObs, last) {
				return r.verified(vocab.StatusVerificationFailed, vocab.VerificationFailed, round, start, last)
			}
			return r.verified(vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, round, start, last)
		case err != nil:
			// Observation failures may be transient: keep polling.
			r.log.Warn("verification observation failed", append([]any{slog.String(vocab.FieldPhase, vocab.PhaseVerify)}, errAttrs(err)...)...)
		default:
			lastObs = obs
			last = plan.Build(r.want, obs, r.cfg.AllowEmpty)
			if len(last.Conflicts) > 0 {
				r.logConflicts(vocab.PhaseVerify, last)
				return r.verified(vocab.StatusVerificationFailed, vocab.VerificationFailed, round, start, last)
			}
			if len(last.Ops) == 0 {
				return r.verified(vocab.StatusConverged, vocab.VerificationConverged, round, start, last)
			}
		}
		if expired() {
			// A persisting observation failure proves nothing either way.
			if err != nil || r.explainedByLag(obs, last) {
				return r.verified(vocab.StatusVerificationInconclusive, vocab.VerificationInconclusive, round, start, last)
			}
			return r.verified(vocab.StatusVerificationFailed, vocab.VerificationFailed, round, start, last)
		}
		select {
		case <-ctx.Done():
			return vocab.StatusInterrupted, vocab.VerificationNotRun, last
		case <-vctx.Done():
		case <-r.clock.After(r.cfg.PollInterval):
		}
	}
}

func (r *runner) verified(s vocab.Status, v vocab.Verification, rounds int, start time.Time, p plan.Plan) (vocab.Status, vocab.Verification, plan.Plan) {
	r.log.Info("verification finished", slog.String(vocab.FieldPhase, vocab.PhaseVerify),
		slog.String(vocab.FieldVerification, string(v)), slog.Int(vocab.FieldCount, rounds),
		ms(r.clock.Now().Sub(start)))
	return s, v, p
}

// explainedByLag reports whether every remaining operation is on a name
// this run changed and the name still shows only versions this run knows
// (planned-from or written): the write has not propagated yet.
func (r *runner) explainedByLag(obs observation, p plan.Plan) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, op := range p.Ops {
		if !r.touched[op.Name] {
			return false
		}
		for _, v := range obs[op.Name].CurrentVersionIDs() {
			if !r.known[op.Name][v] {
				return false
			}
		}
	}
	return true
}

func (r *runner) touchedNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var names []string
	for n := range r.touched {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// logConflicts logs each conflict with its class and resource label.
func (r *runner) logConflicts(phase string, p plan.Plan) {
	for _, c := range p.Conflicts {
		r.log.Warn("conflict", slog.String(vocab.FieldPhase, phase),
			slog.String(vocab.FieldResource, r.label(c.Name)),
			slog.String(vocab.FieldConflictClass, string(c.Class)))
	}
}
