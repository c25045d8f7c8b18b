package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Keys owned by AWS (aws-owned, SPEC §13) at the engine's edge: the
// checks before any AWS call and before any write, and the values a create
// generates. The merge of live values is the planner's (plan.classifyOwned).

// awsOwnedInvalid refuses the run before any AWS call when an aws-owned
// entry does not fit the outline (model.ValidateAWSOwnedState: it matches
// no document, two entries match one, a whole-value document lists a key
// other than ""): config:aws-owned, status invalid, exit 3.
func (r *runner) awsOwnedInvalid() bool {
	d, bad := awsOwnedRefusal(r.awsOwned, r.want)
	if !bad {
		return false
	}
	r.log.Error(d.Summary,
		slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.ConfigAWSOwned))
	r.ledger.problem(d)
	return true
}

// unfillable refuses a plan whose creates lack a listed key that nothing
// fills (plan.Unfillable: no generate, or no place for the key): the
// configuration is invalid for this commit (SPEC §13), nothing is written.
func (r *runner) unfillable(p plan.Plan) bool {
	names := plan.Unfillable(p, r.policy.Rules)
	if len(names) == 0 {
		return false
	}
	attrs := []any{slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.ConfigAWSOwned),
		slog.Int(vocab.FieldCount, len(names))}
	if r.showNames {
		attrs = append(attrs, slog.String(vocab.FieldResource, strings.Join(names, ",")))
	}
	r.log.Error("a new secret lacks a key aws-owned lists and generate is not given; nothing was written", attrs...)
	r.ledger.problem(diag.New(diag.ConfigAWSOwned, diag.Subject{Setting: config.AWSOwned}).
		WithSummary(plural(len(names), "new secret lacks", "new secrets lack") + " a key aws-owned lists, with no generate to fill it; nothing was written"))
	return true
}

// oversized refuses a plan that would write a value larger than the
// target stores once the keys owned by AWS are in it (plan.Oversized: a
// create's generated keys at their configured length, an update's or
// adoption's merge): gate:value-too-large, one per secret, its subject
// the document (its resource label unless names are shown), status
// invalid, exit 3, nothing written. Before this gate such a create went
// out without the key it could not fit (createValue's fallback), ended
// exit 6 and left the new secret conflict aws-owned-missing for good.
func (r *runner) oversized(p plan.Plan) bool {
	ops := plan.Oversized(p, r.policy.Rules)
	if len(ops) == 0 {
		return false
	}
	limit := r.policy.MaxValueBytes
	for _, op := range ops {
		what := "generated at their configured length"
		if op.Action != vocab.ActionCreate {
			what = "as AWS holds them, merged"
		}
		subject := diag.Document(op.Desired.Ordinal, op.Desired.Path, r.showNames)
		summary := fmt.Sprintf("with the keys aws-owned lists (%s), the value the %s would store is larger than %d bytes, the most the target stores; nothing was changed",
			what, op.Action, limit)
		r.ledger.problem(diag.New(diag.GateValueTooLarge, subject).WithSummary(summary))
		r.log.Error(summary, slog.String(vocab.FieldPhase, vocab.PhasePlan), slog.String(vocab.FieldErrorClass, diag.GateValueTooLarge),
			slog.String(vocab.FieldResource, r.label(op.Name)))
	}
	return true
}

// createValue is the value a create writes: the document's, with every
// key aws-owned lists that the document lacks filled with a generated value
// (Generator; canonical JSON). The value is made once per secret and run
// and reused by every attempt, so a resent CreateSecret carries the same
// value under its token. plan.Unfillable refused the plan when a key could
// not be filled; a failure here writes the document's value, which
// verification then reports (never a value in any record).
func (r *runner) createValue(op plan.Operation) []byte {
	e, ok := r.policy.AWSOwned[op.Name]
	if !ok || e.Whole() || e.Generate == 0 {
		return op.Desired.Value
	}
	if v, ok := r.generated.Load(op.Name); ok {
		return v.([]byte)
	}
	lack, err := keydiff.Lacking(op.Desired.Value, e.Keys)
	if err != nil || len(lack) == 0 {
		return op.Desired.Value
	}
	filled, err := keydiff.Fill(op.Desired.Value, lack, func(string) string { return r.gen.Generate(e.Generate) })
	if err == nil {
		filled, err = canonical.FromJSON(filled)
	}
	if err != nil {
		return op.Desired.Value
	}
	v, _ := r.generated.LoadOrStore(op.Name, filled)
	return v.([]byte)
}

// lookVerdict is what a row's look (step.look) decided from a sighting.
type lookVerdict int

const (
	lookCall lookVerdict = iota // make the row's call (w.move)
	lookNext                    // the row has nothing (more) to do
	lookEnd                     // the operation ends with the outcome given
)

// Staging labels the lineage row reads besides plan's (AWS API reference,
// UpdateSecretVersionStage: moving AWSCURRENT moves AWSPREVIOUS to the
// version it left).
const stagePrevious = "AWSPREVIOUS"

// stageMove is one UpdateSecretVersionStage: stage leaves version from
// and, unless to is "", goes to version to.
type stageMove struct {
	stage, to, from string
}

// lineage is stepLineage's look: it judges what the value write of a
// secret with keys owned by AWS left, from a sighting after it (SPEC §13).
// base is the version the merge was computed from (the precondition's
// AWSCURRENT), ours the version the write made (its id is the logical
// write's token: PutSecretValue's ClientRequestToken becomes the VersionId).
//
//   - ours is not current: a later write replaced it; verification judges
//     (a rotation that started before the write and then finished fails
//     it, exit 6, as before).
//   - AWSPREVIOUS is neither base nor empty: a rotation (or another
//     writer) made AWSPREVIOUS current between the read and the write, and
//     the write replaced it, putting back the AWS-owned values read from
//     base. AWSCURRENT is moved back to it, with RemoveFromVersionId ours:
//     AWS refuses the move unless ours still holds the label, so nothing
//     but the version this run wrote is replaced. Once the sighting shows
//     it current, the plan is rebuilt (the merge re-read and written once
//     more); a second such race of the name in the run, or a move that does
//     not land, ends the operation verify:rotation-raced (exit 6): never
//     converged with an AWS-owned key reverted.
//   - base still carries AWSPENDING (a finished rotation left it on the
//     current version, and the write moved AWSCURRENT off it): the label
//     is removed from base, so it is no rotation in flight to the
//     verification nor to AWS's next RotateSecret.
//   - otherwise: nothing to do.
//
// err is the row's last call's error (nil before the first): a move still
// needed after a failed or unclear call is made once more, then the
// operation fails (apply-failed for the label's removal, with the IAM
// action its record names; verify:rotation-raced for a move back).
func lineage(ctx context.Context, r *runner, w *write, s sighting, err error) (lookVerdict, outcome) {
	o := s.obs
	cur := o.CurrentVersionIDs()
	base := w.op.Fingerprint.CurrentVersions
	if !o.Exists || len(cur) != 1 || len(base) != 1 {
		return lookNext, outDone
	}
	c, b, ours := cur[0], base[0], w.token
	if w.move.stage == plan.StageCurrent {
		// A move back was decided: its effect, or why it did not land.
		switch {
		case c == w.move.to:
			return lookEnd, r.raced(w)
		case c == ours && !w.resent:
			w.resent = true
			return lookCall, outDone
		}
		return lookEnd, r.racedFailed(w, true, err)
	}
	if c != ours {
		return lookNext, outDone
	}
	if prev := holderOf(o, stagePrevious); prev != "" && prev != b {
		w.move, w.resent = stageMove{stage: plan.StageCurrent, to: prev, from: ours}, false
		return lookCall, outDone
	}
	if !holds(o, b, plan.StagePending) {
		return lookNext, outDone
	}
	if err != nil {
		if w.resent {
			return lookEnd, r.failed(ctx, w.op, "operation failed", err)
		}
		w.resent = true
	}
	w.move = stageMove{stage: plan.StagePending, from: b}
	return lookCall, outDone
}

// raced ends an operation whose write replaced a version a rotation made
// current meanwhile, once that version is current again: the first time
// in the run for the name, the plan is rebuilt (the merge read and written
// again on the rotated value); the second, verify:rotation-raced.
func (r *runner) raced(w *write) outcome {
	if r.ledger.raceOnce(w.op) {
		r.log.Warn("a rotation finished between the read and the write; the rotated version is current again; re-planning",
			r.opAttrs(w.op)...)
		return outRebuild
	}
	return r.racedFailed(w, false, nil)
}

// racedFailed ends the operation verify:rotation-raced (exit 6): a
// rotation raced the write and the run could not write the merge on the
// rotated value: a second race (the rotated version is current), or, with
// back, the move back did not land (err its last call's error, if any).
func (r *runner) racedFailed(w *write, back bool, err error) outcome {
	attrs := []any{slog.String(vocab.FieldErrorClass, diag.VerifyRotationRaced)}
	if err != nil {
		attrs = append(attrs, errAttrs(err)...)
	}
	msg := "a rotation finished between the read and the write again; the rotated version is current, the merge is not written on it"
	if back {
		msg = "a rotation finished between the read and the write; the rotated version could not be made current again"
	}
	r.log.Error(msg, r.opAttrs(w.op, attrs...)...)
	r.ledger.failure(w.op.Name, planview.Failure{Class: diag.VerifyRotationRaced, Action: w.op.Action, Reason: w.op.Reason})
	return outSecondWriter
}

// holderOf is the id of the version of o that holds stage ("" when none;
// the first when several do).
func holderOf(o plan.ObservedSecret, stage string) string {
	for _, v := range o.Versions {
		if slices.Contains(v.Stages, stage) {
			return v.ID
		}
	}
	return ""
}

// holds reports whether version id of o carries stage.
func holds(o plan.ObservedSecret, id, stage string) bool {
	for _, v := range o.Versions {
		if v.ID == id {
			return slices.Contains(v.Stages, stage)
		}
	}
	return false
}
