package engine

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// write is one operation on its way through the driver: its steps
// (stepsOf), the one it is at, and what its calls have learned.
type write struct {
	op    plan.Operation
	steps []step
	next  int // index of the step to call
	// arn is the target: the precondition's observation, then a create's
	// answer or a later re-observation.
	arn string
	// token is the logical write's ClientRequestToken, minted at its first
	// use (mint) and reused by every attempt of the operation (SPEC §6).
	token string
	// version is the version id a successful write call reported ("" when
	// none did): Secrets Manager's is the token, Parameter Store's the
	// parameter's new version (1, 2, …), which has no token (SPEC §16).
	version string
	// sent: a call was made that may have taken effect. Until then a
	// throttled call goes back to a new precondition; from then on the
	// precondition's fingerprint no longer holds, and the operation goes
	// on from the step it is at.
	sent bool
	// resent: the current step was already made once more after an
	// unclear outcome.
	resent bool
	// accepted: every step took effect and the operation is in the
	// ledger; what is left is waiting for the last step's effect to show
	// (step.settled).
	accepted bool
	// seen is the last sighting after the operation was accepted, when its
	// last step has a settled rule: what follows the operation is decided
	// from it (a restore's follow-up update, followUps).
	seen *sighting
	// settleBy ends the wait for the last step's effect to show (zero
	// until the wait starts).
	settleBy time.Time
	// move is the label move a row with a look rule decided (lineage).
	move stageMove
}

func (w *write) step() step { return w.steps[w.next] }

// mint returns the logical write's token, minting it at the first call.
func (w *write) mint(r *runner) string {
	if w.token == "" {
		w.token = r.tokens.NewToken()
	}
	return w.token
}

// advance moves past the current step and past every following one that
// s (a re-observation; nil after a plain success) already shows done. It
// reports whether steps are left.
func (w *write) advance(r *runner, s *sighting) bool {
	w.next++
	w.resent = false
	for s != nil && w.next < len(w.steps) && w.steps[w.next].look == nil && w.steps[w.next].done(r, w, *s) {
		w.next++
	}
	return w.next < len(w.steps)
}

// landed reports whether s, the re-observation after an unclear outcome
// of a value write that a row with a look rule follows (stepLineage),
// shows that write current: the only current version is the write's
// (Secrets Manager makes PutSecretValue's ClientRequestToken the version
// id). Such a write is followed exactly as one whose answer arrived: what
// the sighting would otherwise be judged as (a conflict rotation when the
// write moved AWSCURRENT off a version a finished rotation left AWSPENDING
// on) is the look's to judge.
func (w *write) landed(s sighting) bool {
	return w.token != "" && w.next+1 < len(w.steps) && w.steps[w.next+1].look != nil &&
		slices.Equal(s.obs.CurrentVersionIDs(), []string{w.token})
}

// settle records s (nil: none yet, after a plain success) as what was
// seen once the operation was accepted, and reports whether the name must
// be observed again: the last step has a settled rule that s does not
// show yet, and the wait (the verification timeout from its start) has
// not run out. A wait that runs out keeps the last sighting: verification
// judges the result.
func (w *write) settle(r *runner, s *sighting) bool {
	w.seen = s
	last := w.steps[len(w.steps)-1]
	if last.settled == nil || s != nil && last.settled(*s) {
		return false
	}
	now := r.clock.Now()
	if w.settleBy.IsZero() {
		w.settleBy = now.Add(r.verificationTimeout)
	}
	return now.Before(w.settleBy)
}

// accept records the operation as done (the ledger and its log record)
// with the version it wrote: the one its call reported, else its token
// (Secrets Manager makes the token the version id; a write judged done by
// a re-observation reported none).
func (w *write) accept(r *runner) {
	w.accepted = true
	version := w.token
	if w.version != "" {
		version = w.version
	}
	r.accept(w.op, w.arn, version)
}

// execute performs one operation: its steps, one AWS call each, under the
// write protocol of SPEC §6, which is written here once for every kind of
// write (the rows say what differs: steps.go).
//
//  1. Precondition: while nothing of the operation may have taken effect,
//     the run's halt is checked (a halt in a run whose context is done
//     is an interruption), a turn of the write pace taken (first, so
//     the observation is right before the call), and the name observed:
//     the fingerprint planning took must hold (a new conflict ends the
//     operation as a conflict, a create whose secret already holds the
//     desired state is accepted without writing, any other change rebuilds
//     the plan).
//  2. Each step's call takes a turn (the first one the precondition's) and
//     settles it.
//  3. Its outcome:
//     - success: the next step; after the last the operation is accepted;
//     - throttled (ThrottlingException, not executed): before anything
//     took effect, back to 1 (a new precondition; a create or update
//     keeps its token); later, the same call after a new turn;
//     - the run cancelled: interrupted;
//     - unclear (ambiguous; a create refused because the name exists; any
//     error of a call without a token): the name is re-observed — the
//     same observation as the precondition's, and the only other one —
//     and judged (judge): a conflict ends it, a create refused is judged
//     by metExisting, a step observed done moves on, a step that may be
//     resent is made once more (same token), anything else fails closed;
//     a value write that a look row follows and that the sighting shows
//     current (write.landed) goes on to that row before anything else is
//     judged, exactly as when its answer arrived;
//     - any other error: fails closed.
//     A row with a look rule (step.look: stepLineage, after the value
//     write of a secret with keys owned by AWS) is judged by it instead,
//     from an observation before each of its calls and after each
//     (lookAt): make the call, move on, or end the operation (a rebuild
//     when a rotation raced the write).
//  4. Once accepted, an operation whose last step has a settled rule (a
//     restore) is observed until its effect shows, on the poll interval
//     within the verification timeout: the same observation again. The
//     last sighting is returned, and what follows the operation is
//     decided from it (followUps).
//
// It returns outDone, outRebuild, outHalted, outFailed, outSecondWriter,
// outConflict or outInterrupted, and the sighting of 4 (nil when the
// operation has no settled rule or was not accepted).
func (r *runner) execute(ctx context.Context, op plan.Operation) (outcome, *sighting) {
	_, awsOwned := r.policy.AWSOwned[op.Name]
	w := &write{op: op, steps: stepsOf(op, awsOwned)}
	if len(w.steps) == 0 || !r.able(w.steps) {
		// An action the table calls an operation but the engine cannot
		// perform, or a step through a capability the port lacks: a
		// programming error, never a guess.
		r.log.Error("no way to perform this operation", r.opAttrs(op, slog.String(vocab.FieldErrorClass, diag.Internal))...)
		r.ledger.failure(op.Name, planview.Failure{Class: diag.Internal, Action: op.Action, Reason: op.Reason})
		return outFailed, nil
	}
	out := r.drive(ctx, w)
	return out, w.seen
}

// drive is execute's loop over w: the one place the engine observes a name
// directly (observeOne) once planning is over — the precondition, the
// re-observation after an unclear outcome, and the wait for an accepted
// operation's effect to show.
func (r *runner) drive(ctx context.Context, w *write) outcome {
	var (
		turn     pace.Turn
		haveTurn bool
		err      error // the last call's outcome, judged by the next observation
		look     = true
	)
	for {
		if look {
			if !w.sent {
				t, out, ok := r.preconditionTurn(ctx)
				if !ok {
					return out
				}
				turn, haveTurn = t, true
			}
			s, oerr := r.observeOne(ctx, w.op.Name)
			if oerr != nil {
				return r.lookFailed(ctx, w, oerr)
			}
			if !w.accepted {
				judge := r.judge
				if w.sent && w.step().look != nil {
					judge = r.lookAt
				}
				if out, goOn := judge(ctx, w, s, err); !goOn && !w.accepted {
					return out
				}
			}
			if w.accepted {
				if w.settle(r, &s) {
					select {
					case <-ctx.Done():
					case <-r.clock.After(r.pollInterval):
					}
					continue
				}
				return outDone
			}
			look = false
		}
		if !haveTurn {
			t, werr := r.pacer.Wait(ctx, pace.Writes)
			if werr != nil {
				return outInterrupted
			}
			turn = t
		}
		st := w.step()
		err = st.call(ctx, r, w)
		r.settle(turn, err)
		haveTurn = false
		var (
			out outcome
			end bool
		)
		if look, out, end = r.called(ctx, w, st, err); end {
			return out
		}
	}
}

// preconditionTurn is what comes before a precondition (nothing of the
// operation was sent): the run's halt, then a turn of the write pace. A
// throttled call was not executed, so a halt stops its resend too. A run
// that was cancelled is interrupted, whatever the halt says: an
// interruption raises the halt too, and it is no scope's failure. The
// context is read after the halt, so a halt raised by an interruption
// always finds it done. ok is false with the outcome that ends the
// operation instead.
func (r *runner) preconditionTurn(ctx context.Context) (turn pace.Turn, out outcome, ok bool) {
	if r.halt.up() {
		if ctx.Err() != nil {
			return turn, outInterrupted, false
		}
		return turn, outHalted, false
	}
	t, err := r.pacer.Wait(ctx, pace.Writes)
	if err != nil || ctx.Err() != nil {
		return turn, outInterrupted, false
	}
	return t, outDone, true
}

// lookFailed fails w closed on err, the failure of drive's observation of
// its name: the precondition's, a re-observation's, or one after the
// operation was accepted.
func (r *runner) lookFailed(ctx context.Context, w *write, err error) outcome {
	msg := "precondition observation failed"
	switch {
	case w.accepted:
		msg = "observation after the operation failed"
	case w.sent:
		msg = "re-observation failed"
	}
	return r.failed(ctx, w.op, msg, err)
}

// called judges err, the outcome of st's call for w (execute's step 3):
// whether drive observes the name next (look), or, with end, the
// operation's outcome.
func (r *runner) called(ctx context.Context, w *write, st step, err error) (look bool, out outcome, end bool) {
	switch {
	case err == nil && st.look != nil:
		return true, outDone, false // the row judges its call from a new sighting
	case err == nil:
		w.sent = true
		if !w.advance(r, nil) {
			w.accept(r)
			if look = w.settle(r, nil); !look {
				return false, outDone, true
			}
			return look, outDone, false
		}
		return w.step().look != nil, outDone, false
	case isThrottled(err) && ctx.Err() == nil:
		return !w.sent, outDone, false
	case ctx.Err() != nil:
		return false, outInterrupted, true
	case st.exists && isResourceExists(err):
		w.sent = true
		r.log.Warn("secret already exists; re-observing", r.opAttrs(w.op, errAttrs(err)...)...)
		return true, outDone, false
	case isAmbiguous(err) || st.anyError:
		w.sent = true
		r.log.Warn("ambiguous outcome; re-observing", r.opAttrs(w.op, errAttrs(err)...)...)
		return true, outDone, false
	}
	return false, r.failed(ctx, w.op, "operation failed", err), true
}

// lookAt is judge for a row with a look rule (step.look), once the
// operation sent something: the row's look decides from s and err; a row
// with nothing (more) to do moves w on, past every following step s shows
// done, as judge does.
func (r *runner) lookAt(ctx context.Context, w *write, s sighting, err error) (outcome, bool) {
	for {
		v, out := w.step().look(ctx, r, w, s, err)
		switch v {
		case lookEnd:
			return out, false
		case lookCall:
			return outDone, true
		}
		if !w.advance(r, &s) {
			w.accept(r)
			return outDone, false
		}
		if w.step().look == nil {
			return outDone, true
		}
		err = nil
	}
}

// judge decides from the sighting s what follows for w: goOn (call the
// current step) or the operation's outcome. Before anything was sent, s is
// the precondition; after, it is the re-observation of err's unclear
// outcome.
func (r *runner) judge(ctx context.Context, w *write, s sighting, err error) (out outcome, goOn bool) {
	op := w.op
	switch {
	case !w.sent:
		if s.fingerprint().Equal(op.Fingerprint) {
			w.arn = s.obs.ARN
			return outDone, true
		}
		switch {
		case s.d.Action == vocab.ActionConflict:
			return r.lateConflict(op, s, "new conflict before apply"), false
		case op.Action == vocab.ActionCreate && s.d.Action == vocab.ActionUnchanged:
			return r.createdElsewhere(op), false
		}
		r.log.Info("target changed since planning", r.opAttrs(op)...)
		return outRebuild, false
	case w.step().exists && isResourceExists(err):
		return r.metExisting(op, s, err), false
	case w.landed(s):
		w.arn = s.obs.ARN
		w.next++
		w.resent = false
		return r.lookAt(ctx, w, s, nil)
	case s.d.Action == vocab.ActionConflict:
		// Judged before the step's effect: an effect that landed does not
		// make a secret that something else now manages (rotation, a
		// service, replication) ours to go on writing.
		return r.lateConflict(op, s, "new conflict after an unclear outcome"), false
	case w.step().done(r, w, s):
		if s.obs.Exists {
			w.arn = s.obs.ARN
		}
		if !w.advance(r, &s) {
			w.accept(r)
			return outDone, false
		}
		if w.step().look != nil {
			return r.lookAt(ctx, w, s, nil) // a row with a look has no done rule
		}
		return outDone, true
	case w.step().resend != nil && !w.resent && w.step().resend(w, s):
		w.resent = true
		return outDone, true
	}
	return r.failed(ctx, op, "outcome not proven", err), false
}
