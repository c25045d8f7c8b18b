package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// outcome is what one operation, phase or apply pass came to. Larger values
// win when a phase aggregates its operations.
type outcome int

const (
	outDone    outcome = iota // took effect (or proven to have, or found done by another writer)
	outRebuild                // precondition saw a benign change: rebuild the plan
	// outHalted: another scope of the run failed (halt), so this
	// operation was not started (apply-failed, diagnostic apply:halted).
	outHalted
	outFailed // failed closed (apply-failed)
	// outSecondWriter: AWS refused a create because the secret exists, yet
	// a direct observation still shows none: another writer is active
	// (verification-failed, the single-writer signal).
	outSecondWriter
	outConflict    // a new conflict appeared (conflict)
	outInterrupted // the run was cancelled (interrupted)
)

// halts reports whether o ends the apply of every scope of the run: a
// failure, a second writer, a new conflict or an interruption (a needed
// rebuild stays within its scope).
func (o outcome) halts() bool { return o >= outFailed && o <= outInterrupted }

// halt is shared by the scopes of one run of several (RunScopes): raised
// by the first scope that fails, checked before each new operation of every
// scope, so that after any failure no new operation starts anywhere (SPEC
// §10). Operations already in flight finish. A nil *halt never rises (a
// run of one scope).
type halt struct {
	raised atomic.Bool
	// by is the name of the scope that raised it first (Config.Scope).
	by atomic.Pointer[string]
}

// raise raises h for the scope named scope; the first raise names it.
func (h *halt) raise(scope string) {
	if h != nil {
		h.by.CompareAndSwap(nil, &scope)
		h.raised.Store(true)
	}
}

func (h *halt) up() bool { return h != nil && h.raised.Load() }

// raisedBy is the name of the scope that raised h first ("" when none
// or unnamed).
func (h *halt) raisedBy() string {
	if h == nil {
		return ""
	}
	if p := h.by.Load(); p != nil {
		return *p
	}
	return ""
}

// apply runs one plan phase by phase (SPEC §5, §6). Restored names get at
// most one follow-up update, decided from the observation the driver made
// once each restore showed, and run in the update phase. A phase finishes before the
// next begins; after a failure or a needed rebuild no new operation starts.
func (r *runner) apply(ctx context.Context, p plan.Plan) outcome {
	var (
		restored []plan.Operation
		seen     []*sighting
	)
	for _, action := range vocab.Phases {
		var ops []plan.Operation
		for _, op := range p.Ops {
			if op.Action == action {
				ops = append(ops, op)
			}
		}
		if action == vocab.ActionUpdate && len(restored) > 0 {
			follow, out := r.followUps(restored, seen)
			if out != outDone {
				return out
			}
			ops = append(ops, follow...)
			plan.SortOps(ops)
		}
		if len(ops) == 0 {
			continue
		}
		phase := r.startPhase()
		out, done, sightings := r.runPhase(ctx, action, ops)
		r.log.Info("phase applied", r.summary(phase, append([]any{slog.String(vocab.FieldPhase, vocab.PhaseApply),
			slog.String(vocab.FieldOperation, string(action)), slog.Int(vocab.FieldCount, len(done))}, r.deletion(action)...)...)...)
		if action == vocab.ActionRestore {
			restored, seen = done, sightings
		}
		if out != outDone {
			return out
		}
	}
	return outDone
}

// runPhase executes ops with at most cfg.Concurrency in flight and returns
// the aggregate outcome and the operations that took effect, in plan order,
// each with the driver's sighting after it (execute; nil for most).
func (r *runner) runPhase(ctx context.Context, action vocab.Action, ops []plan.Operation) (outcome, []plan.Operation, []*sighting) {
	results := make([]outcome, len(ops))
	after := make([]*sighting, len(ops))
	started := make([]bool, len(ops))
	prog := r.startProgress(vocab.PhaseApply, string(action), len(ops))
	each(len(ops), r.concurrency, func(i int) bool {
		started[i] = true
		results[i], after[i] = r.execute(ctx, ops[i])
		if results[i].halts() {
			r.halt.raise(r.scope)
		}
		prog.add(1)
		return results[i] == outDone
	})
	worst := outDone
	var (
		done []plan.Operation
		seen []*sighting
	)
	for i, out := range results {
		if !started[i] {
			continue
		}
		worst = max(worst, out)
		if out == outDone {
			done = append(done, ops[i])
			seen = append(seen, after[i])
		}
	}
	return worst, done, seen
}

// metExisting judges a create that AWS refused because the name exists,
// from the re-observation s (SPEC §4.1, §6; docs/reconciliation.md
// "A create that meets an existing secret"):
//   - owned by this scope, this document's source, the desired value:
//     accepted without writing (createdElsewhere);
//   - a conflict (another tool's or another scope's secret, rotation, …):
//     a late conflict, nothing more is started (exit 4);
//   - another operation (the value differs, scheduled for deletion): the
//     plan changed, so one rebuild;
//   - still absent: AWS and the observation disagree, which a single writer
//     never sees (verification-failed, exit 6); the failure record names
//     err's code, the service's own (existsCode).
func (r *runner) metExisting(op plan.Operation, s sighting, err error) outcome {
	switch {
	case s.d.Action == vocab.ActionUnchanged:
		return r.createdElsewhere(op)
	case s.d.Action == vocab.ActionConflict:
		return r.lateConflict(op, s, "secret created by someone else is a conflict")
	case s.d.Action == vocab.ActionCreate:
		r.log.Error("secret exists but cannot be observed; another writer is active", r.opAttrs(op,
			slog.String(vocab.FieldErrorClass, diag.VerifySecondWriter))...)
		r.ledger.failure(op.Name, planview.Failure{Class: diag.VerifySecondWriter, Action: op.Action, Reason: op.Reason,
			ErrorCode: existsCode(err)})
		return outSecondWriter
	}
	r.log.Info("target changed since planning", r.opAttrs(op)...)
	return outRebuild
}

// createdElsewhere accepts a planned create whose target already holds
// the desired state, owned by this scope and this document: another writer
// of the scope (or this run, before a rebuild whose observation lagged)
// created it. Nothing is written; the operation is not counted as this
// run's create and the name is not marked touched, so it counts as
// unchanged and verification's lag rule does not cover it.
func (r *runner) createdElsewhere(op plan.Operation) outcome {
	r.log.Warn("secret already holds the desired state; accepted without writing", r.opAttrs(op)...)
	return outDone
}

// lateConflict logs and counts a conflict found while applying, and
// records it (conflict:late, its class as the record's reason): the plan
// file shows the plan that was applied, which does not hold it.
func (r *runner) lateConflict(op plan.Operation, s sighting, msg string) outcome {
	r.log.Warn(msg, r.opAttrs(op, slog.String(vocab.FieldConflictClass, string(s.d.Conflict)))...)
	r.ledger.noteConflict()
	r.ledger.failure(op.Name, planview.Failure{Class: diag.ConflictLate, Action: vocab.ActionConflict, Reason: s.d.Conflict.Reason()})
	return outConflict
}

// followUps decides the at-most-one update after each restore of restored
// from seen[i], the driver's sighting once the restore showed (execute; a
// restore that never showed within the verification timeout is its last
// sighting, and nil never comes from a restore). Nothing is observed here:
// the engine's one direct observation after planning is the driver's. A
// restore still not visible gets no follow-up; verification judges the
// result.
func (r *runner) followUps(restored []plan.Operation, seen []*sighting) ([]plan.Operation, outcome) {
	var follow []plan.Operation
	worst := outDone
	for i, op := range restored {
		s := seen[i]
		if s == nil {
			continue
		}
		out := outDone
		switch s.d.Action {
		case vocab.ActionUpdate:
			reason := vocab.ReasonRestoreThenUpdate
			if s.d.Reason == vocab.ReasonMetadata || s.d.Reason == vocab.ReasonReplicas {
				// The value survived the deletion window; only metadata
				// or replicas differ (restore, then replicate: SPEC §12).
				reason = s.d.Reason
			}
			// With keys owned by AWS the sighting's decision carries the
			// merge (SPEC §13): written instead of the document alone,
			// which would revert them to the document's or drop them.
			desired, keys := plan.Written(r.policy.Rules, op.Desired, s.obs, s.d)
			fu := plan.Operation{Action: vocab.ActionUpdate, Name: op.Name, ARN: s.obs.ARN, Reason: reason,
				Metadata: s.d.Metadata, Replicas: s.d.Replicas, Keys: keys,
				Desired: desired, Fingerprint: s.fingerprint()}
			follow = append(follow, fu)
			r.ledger.followUp(fu)
		case vocab.ActionConflict:
			out = r.lateConflict(op, *s, "new conflict after restore")
		case vocab.ActionUnchanged, vocab.ActionRestore:
		default:
			out = outRebuild
		}
		worst = max(worst, out)
	}
	return follow, worst
}

// accept records an operation that took effect in the ledger and logs it.
func (r *runner) accept(op plan.Operation, arn, version string) {
	r.ledger.accept(op, arn, version)
	r.log.Info("operation applied", r.opAttrs(op)...)
}

func (r *runner) failed(ctx context.Context, op plan.Operation, msg string, err error) outcome {
	if ctx.Err() != nil {
		return outInterrupted
	}
	replicas := len(op.Replicas.Add) > 0
	r.log.Error(msg, r.opAttrs(op, errAttrs(err, replicas)...)...)
	f := failureOf(diag.ApplyFailed, err, replicas)
	f.Action, f.Reason, f.Metadata = op.Action, op.Reason, op.Metadata.Kinds()
	r.ledger.failure(op.Name, f)
	return outFailed
}

func (r *runner) opAttrs(op plan.Operation, extra ...any) []any {
	return append(append([]any{
		slog.String(vocab.FieldPhase, vocab.PhaseApply),
		slog.String(vocab.FieldOperation, string(op.Action)),
		slog.String(vocab.FieldResource, r.label(op.Name)),
	}, r.deletion(op.Action)...), extra...)
}

// deletion is, beside operation schedule-delete, the field saying what a
// deletion does in the scope's target (vocab.FieldDeletion: "scheduled"
// or "immediate", model.Target.Words); nothing for another action.
func (r *runner) deletion(a vocab.Action) []any {
	if a != vocab.ActionScheduleDelete {
		return nil
	}
	return []any{slog.String(vocab.FieldDeletion, r.want.Scope.Target.Words().Deletion)}
}

func isAmbiguous(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Ambiguous
}

// codeResourceExists is AWS's modelled error code for a CreateSecret whose
// name is taken (AWS API reference, CreateSecret errors).
const codeResourceExists = "ResourceExistsException"

// existsCode is the error code of err, a create refused because the name
// is taken, in its service's words (Secrets Manager's
// ResourceExistsException, Parameter Store's ParameterAlreadyExists);
// codeResourceExists when err carries none.
func existsCode(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	return codeResourceExists
}

// isResourceExists reports a refused create: the secret already exists.
func isResourceExists(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Exists || e.Code == codeResourceExists)
}
