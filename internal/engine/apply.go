package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
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
	// outThrottled: the write was throttled, so not executed; execute takes
	// a new turn and re-checks the precondition. Never leaves execute.
	outThrottled
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
type halt struct{ raised atomic.Bool }

func (h *halt) raise() {
	if h != nil {
		h.raised.Store(true)
	}
}

func (h *halt) up() bool { return h != nil && h.raised.Load() }

// apply runs one plan phase by phase (SPEC §5, §6). Restored names get at
// most one follow-up update, decided from a fresh observation after the
// restore phase and run in the update phase. A phase finishes before the
// next begins; after a failure or a needed rebuild no new operation starts.
func (r *runner) apply(ctx context.Context, p plan.Plan) outcome {
	var restored []plan.Operation
	for _, action := range vocab.Phases {
		var ops []plan.Operation
		for _, op := range p.Ops {
			if op.Action == action {
				ops = append(ops, op)
			}
		}
		if action == vocab.ActionUpdate && len(restored) > 0 {
			follow, out := r.followUps(ctx, restored)
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
		out, done := r.runPhase(ctx, action, ops)
		r.log.Info("phase applied", r.summary(phase, slog.String(vocab.FieldPhase, vocab.PhaseApply),
			slog.String(vocab.FieldOperation, string(action)), slog.Int(vocab.FieldCount, len(done)))...)
		if action == vocab.ActionRestore {
			restored = done
		}
		if out != outDone {
			return out
		}
	}
	return outDone
}

// runPhase executes ops with at most cfg.Concurrency in flight and returns
// the aggregate outcome and the operations that took effect, in plan order.
func (r *runner) runPhase(ctx context.Context, action vocab.Action, ops []plan.Operation) (outcome, []plan.Operation) {
	results := make([]outcome, len(ops))
	started := make([]bool, len(ops))
	prog := r.startProgress(vocab.PhaseApply, string(action), len(ops))
	each(len(ops), r.concurrency, func(i int) bool {
		started[i] = true
		results[i] = r.execute(ctx, ops[i])
		if results[i].halts() {
			r.halt.raise()
		}
		prog.add(1)
		return results[i] == outDone
	})
	worst := outDone
	var done []plan.Operation
	for i, out := range results {
		if !started[i] {
			continue
		}
		worst = max(worst, out)
		if out == outDone {
			done = append(done, ops[i])
		}
	}
	return worst, done
}

// execute re-checks the precondition and performs one operation. A write
// that AWS throttles was not executed (ThrottlingException): it waits for a new turn
// of the run's write pace, re-checks the precondition and is resent, with
// the same ClientRequestToken for a create or update, for as long as the
// run lasts.
func (r *runner) execute(ctx context.Context, op plan.Operation) outcome {
	var token string // one per logical write, minted at the first attempt
	for {
		// A throttled write was not executed, so a halt stops it too.
		if r.halt.up() {
			return outHalted
		}
		// The turn comes first, so the precondition is observed right
		// before the write.
		turn, err := r.pacer.Wait(ctx, pace.Writes)
		if err != nil || ctx.Err() != nil {
			return outInterrupted
		}
		s, err := r.observeOne(ctx, op.Name)
		if err != nil {
			return r.failed(ctx, op, "precondition observation failed", err)
		}
		if !s.fingerprint().Equal(op.Fingerprint) {
			switch {
			case s.d.Action == vocab.ActionConflict:
				return r.lateConflict(op, s, "new conflict before apply")
			case op.Action == vocab.ActionCreate && s.d.Action == vocab.ActionUnchanged:
				return r.createdElsewhere(op)
			}
			r.log.Info("target changed since planning", r.opAttrs(op)...)
			return outRebuild
		}
		// The dispatch: one arm per operation (vocab.Phases). A write that
		// carries a ClientRequestToken goes through write; one that cannot
		// be made idempotent through transition.
		var out outcome
		switch {
		case op.Action == vocab.ActionUpdate && op.Reason == vocab.ReasonMetadata,
			op.Action == vocab.ActionUpdate && op.Reason == vocab.ReasonReplicas && op.Metadata.Any():
			out = r.writeMetadata(ctx, op, s.obs.ARN, "", &turn)
		case op.Action == vocab.ActionUpdate && op.Reason == vocab.ReasonReplicas:
			out = r.writeReplicas(ctx, op, s.obs.ARN, "", &turn)
		case op.Action == vocab.ActionCreate, op.Action == vocab.ActionUpdate:
			if token == "" {
				token = r.tokens.NewToken()
			}
			out = r.write(ctx, op, s.obs, token, turn)
		case op.Action == vocab.ActionAdopt:
			out = r.adopt(ctx, op, s.obs, &token, turn)
		case op.Action == vocab.ActionRestore, op.Action == vocab.ActionScheduleDelete:
			out = r.transition(ctx, op, s.obs, turn)
		default:
			// An action the table calls an operation but the engine cannot
			// perform: a programming error, never a guess.
			r.log.Error("no way to perform this operation", r.opAttrs(op, slog.String(vocab.FieldErrorClass, diag.Internal))...)
			return outFailed
		}
		if out != outThrottled {
			return out
		}
	}
}

// write performs a create or update with the logical write's
// ClientRequestToken. A throttled first attempt returns outThrottled (a new
// precondition follows). On an ambiguous outcome it re-observes: accepts
// when the desired state is there, else retries once with the same token
// when the operation is still the one planned (resending that retry after
// its next turn while it is throttled), else fails closed (SPEC §6). A create refused because the
// secret exists (ResourceExistsException) is re-observed too and judged by
// metExisting: never a bare apply-failed, since a second writer may have
// created exactly the desired secret.
func (r *runner) write(ctx context.Context, op plan.Operation, obs plan.ObservedSecret, token string, turn pace.Turn) outcome {
	attempt := func() (res WriteResult, err error) {
		if op.Action == vocab.ActionCreate {
			res, err = r.port.Create(ctx, r.createRequest(op, token))
		} else {
			res, err = r.port.PutValue(ctx, obs.ARN, op.Desired.Value, op.Desired.Kind, token)
		}
		r.settle(turn, err)
		return res, err
	}
	res, err := attempt()
	if isThrottled(err) && ctx.Err() == nil {
		return outThrottled
	}
	for retried := false; err != nil; retried = true {
		if ctx.Err() != nil {
			return outInterrupted
		}
		exists := op.Action == vocab.ActionCreate && isResourceExists(err)
		if !exists && !isAmbiguous(err) {
			return r.failed(ctx, op, "operation failed", err)
		}
		msg := "ambiguous outcome; re-observing"
		if exists {
			msg = "secret already exists; re-observing"
		}
		r.log.Warn(msg, r.opAttrs(op, errAttrs(err)...)...)
		now, oerr := r.observeOne(ctx, op.Name)
		if oerr != nil {
			return r.failed(ctx, op, "re-observation failed", oerr)
		}
		if exists {
			return r.metExisting(op, now)
		}
		if now.d.Action == vocab.ActionUnchanged {
			r.accept(op, now.obs.ARN, token)
			return outDone
		}
		if now.d.Reason == vocab.ReasonMetadata {
			// The value is there (the write took effect); what is left is
			// the metadata of an update.
			return r.writeMetadata(ctx, op, now.obs.ARN, token, nil)
		}
		if now.d.Reason == vocab.ReasonReplicas && op.Action != vocab.ActionCreate {
			// The value and metadata are there; what is left is the
			// update's (or adoption's) replicas.
			return r.writeReplicas(ctx, op, now.obs.ARN, token, nil)
		}
		if retried || now.d.Action != writesAs(op.Action) {
			return r.failed(ctx, op, "ambiguous outcome not proven", err)
		}
		if op.Action != vocab.ActionCreate {
			obs = now.obs
		}
		for {
			if turn, err = r.pacer.Wait(ctx, pace.Writes); err != nil {
				return outInterrupted
			}
			if res, err = attempt(); !isThrottled(err) || ctx.Err() != nil {
				break
			}
		}
	}
	if op.Action != vocab.ActionCreate && op.Metadata.Any() {
		return r.writeMetadata(ctx, op, res.ARN, token, nil)
	}
	if op.Action != vocab.ActionCreate && op.Replicas.Any() {
		return r.writeReplicas(ctx, op, res.ARN, token, nil)
	}
	r.accept(op, res.ARN, token)
	return outDone
}

// writesAs is the decision a re-observation shows for a write of action a
// that has not taken effect yet: an adoption's value write happens after
// its TagResource, when the secret is owned, so it is an update then.
func writesAs(a vocab.Action) vocab.Action {
	if a == vocab.ActionAdopt {
		return vocab.ActionUpdate
	}
	return a
}

// adopt takes ownership of a secret made outside this tool, after the
// precondition in execute matched the fingerprint planning took (SPEC §11):
//  1. TagResource with the three ownership tags and every configured tag
//     (tagForAdoption: an ambiguous outcome is re-observed like every
//     write);
//  2. when the value differs, the value write of an update with the
//     logical write's token (write: ambiguous → re-observe, one retry);
//     a throttled write was not executed and is resent after a fresh
//     observation of the now-owned secret;
//  3. UpdateSecret for a configured KMS key or description that differs
//     (writeMetadata), then, when replica-regions is set, the configured
//     replicas (writeReplicas; an adopted secret has none, SPEC §11, §12).
//
// The operation is recorded once, as an adoption, when all of it took
// effect; verification then re-observes the name like every touched one.
func (r *runner) adopt(ctx context.Context, op plan.Operation, obs plan.ObservedSecret, token *string, turn pace.Turn) outcome {
	if out := r.tagForAdoption(ctx, op, obs.ARN, turn); out != outDone {
		return out
	}
	rest := op
	rest.Metadata.Tags = nil // TagResource set every configured tag
	if op.Reason == vocab.ReasonValueEqual {
		switch {
		case rest.Metadata.Any():
			return r.writeMetadata(ctx, rest, obs.ARN, "", nil) // then the replicas
		case rest.Replicas.Any():
			return r.writeReplicas(ctx, rest, obs.ARN, "", nil)
		}
		r.accept(op, obs.ARN, "")
		return outDone
	}
	if *token == "" {
		*token = r.tokens.NewToken()
	}
	for {
		t, err := r.pacer.Wait(ctx, pace.Writes)
		if err != nil || ctx.Err() != nil {
			return outInterrupted
		}
		if out := r.write(ctx, rest, obs, *token, t); out != outThrottled {
			return out
		}
		// Throttled, so not executed: the secret is ours now; look again
		// before resending.
		now, err := r.observeOne(ctx, op.Name)
		switch {
		case err != nil:
			return r.failed(ctx, op, "observation after adoption tags failed", err)
		case now.d.Action == vocab.ActionConflict:
			return r.lateConflict(op, now, "new conflict during adoption")
		case now.d.Action == vocab.ActionUnchanged:
			r.accept(op, now.obs.ARN, "")
			return outDone
		case now.d.Action != vocab.ActionUpdate || now.obs.ARN != obs.ARN:
			r.log.Info("target changed since planning", r.opAttrs(op)...)
			return outRebuild
		}
		obs = now.obs
	}
}

// adoptionTags are the tags an adoption sets with TagResource: the three
// ownership tags of op's document (SPEC §4) and every configured tag
// (config refuses reserved keys, so the ownership tags are never
// overwritten).
func (r *runner) adoptionTags(op plan.Operation) map[string]string {
	tags := r.want.Scope.Tags(op.Desired.Path)
	for k, v := range r.policy.Metadata.Tags {
		tags[k] = v
	}
	return tags
}

// tagForAdoption is an adoption's TagResource on the ARN the precondition
// observed. TagResource is idempotent: a throttled first attempt returns
// outThrottled (execute takes a new turn and re-checks the precondition:
// nothing was written); an ambiguous outcome is re-observed: a conflict
// there ends the adoption (late conflict, even when the tags landed);
// otherwise it is accepted when every tag is there, resent once while the
// secret is still the adoption planned, and otherwise fails closed
// (SPEC §6).
func (r *runner) tagForAdoption(ctx context.Context, op plan.Operation, arn string, turn pace.Turn) outcome {
	tags := r.adoptionTags(op)
	err := r.port.Tag(ctx, arn, tags)
	r.settle(turn, err)
	if isThrottled(err) && ctx.Err() == nil {
		return outThrottled
	}
	for retried := false; err != nil; retried = true {
		if ctx.Err() != nil {
			return outInterrupted
		}
		if !isAmbiguous(err) {
			return r.failed(ctx, op, "adoption tagging failed", err)
		}
		r.log.Warn("ambiguous outcome; re-observing", r.opAttrs(op, errAttrs(err)...)...)
		now, oerr := r.observeOne(ctx, op.Name)
		switch {
		case oerr != nil:
			return r.failed(ctx, op, "re-observation failed", oerr)
		case now.d.Action == vocab.ActionConflict:
			// Judged before the tags: tags that landed do not make a
			// secret that something else now manages (rotation, a
			// service, replication) ours to write.
			return r.lateConflict(op, now, "new conflict during adoption")
		case now.obs.Exists && now.obs.ARN == arn && carries(now.obs.Tags, tags):
			return outDone
		case retried || now.d.Action != vocab.ActionAdopt || now.obs.ARN != arn:
			return r.failed(ctx, op, "ambiguous outcome not proven", err)
		}
		for {
			t, werr := r.pacer.Wait(ctx, pace.Writes)
			if werr != nil {
				return outInterrupted
			}
			err = r.port.Tag(ctx, arn, tags)
			r.settle(t, err)
			if !isThrottled(err) || ctx.Err() != nil {
				break
			}
		}
	}
	return outDone
}

// carries reports whether have holds every key of want with its value.
func carries(have, want map[string]string) bool {
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			return false
		}
	}
	return true
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
//     never sees (verification-failed, exit 6).
func (r *runner) metExisting(op plan.Operation, s sighting) outcome {
	switch {
	case s.d.Action == vocab.ActionUnchanged:
		return r.createdElsewhere(op)
	case s.d.Action == vocab.ActionConflict:
		return r.lateConflict(op, s, "secret created by someone else is a conflict")
	case s.d.Action == vocab.ActionCreate:
		r.log.Error("secret exists but cannot be observed; another writer is active", r.opAttrs(op)...)
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

// lateConflict logs and counts a conflict found while applying.
func (r *runner) lateConflict(op plan.Operation, s sighting, msg string) outcome {
	r.log.Warn(msg, r.opAttrs(op, slog.String(vocab.FieldConflictClass, string(s.d.Conflict)))...)
	r.ledger.noteConflict()
	return outConflict
}

// createRequest is one CreateSecret: the value, the ownership tags and the
// configured metadata in one request, so a new secret never exists without
// them.
func (r *runner) createRequest(op plan.Operation, token string) CreateRequest {
	tags := r.want.Scope.Tags(op.Desired.Path)
	m := r.policy.Metadata
	for k, v := range m.Tags {
		tags[k] = v // reserved keys are refused by config: ownership tags are never overwritten
	}
	return CreateRequest{Name: op.Name, Value: r.createValue(op), Kind: op.Desired.Kind, Tags: tags, Token: token,
		KMSKeyID: m.KMSKeyID, Description: m.Description, Replicas: op.Replicas.Add}
}

// writeMetadata applies an update's metadata change: UpdateSecret for the
// KMS key and description (no new version), TagResource for the configured
// tags that are missing or differ. Both are idempotent, so an ambiguous
// outcome is resent once; the operation is then accepted only when a fresh
// observation shows no metadata difference left. version is
// the value version this operation wrote, if any ("" for metadata alone).
// turn is the write turn execute took for a metadata-only update (its
// throttled first attempt returns outThrottled, so a new precondition
// follows); nil = take a turn here. Later attempts take their own turns and
// are resent while throttled; one turn covers both calls of an attempt.
func (r *runner) writeMetadata(ctx context.Context, op plan.Operation, arn, version string, turn *pace.Turn) outcome {
	m := r.policy.Metadata
	call := func() error {
		if op.Metadata.NeedsUpdateSecret() {
			var kms, desc *string
			if op.Metadata.KMSKeyID {
				kms = &m.KMSKeyID
			}
			if op.Metadata.Description {
				desc = &m.Description
			}
			if err := r.port.UpdateMetadata(ctx, arn, kms, desc); err != nil {
				return err
			}
		}
		if len(op.Metadata.Tags) > 0 {
			tags := make(map[string]string, len(op.Metadata.Tags))
			for _, k := range op.Metadata.Tags {
				tags[k] = m.Tags[k]
			}
			return r.port.Tag(ctx, arn, tags)
		}
		return nil
	}
	w := r.pacedWrites(ctx, turn)
	paced := func() error { return w.do(call) }
	err := paced()
	if w.throttledFirst(err) {
		return outThrottled
	}
	w.first = false
	for retried := false; err != nil; retried = true {
		if ctx.Err() != nil {
			return outInterrupted
		}
		if !isAmbiguous(err) {
			return r.failed(ctx, op, "metadata update failed", err)
		}
		r.log.Warn("ambiguous outcome; re-observing", r.opAttrs(op, errAttrs(err)...)...)
		now, oerr := r.observeOne(ctx, op.Name)
		if oerr != nil {
			return r.failed(ctx, op, "re-observation failed", oerr)
		}
		if !plan.DiffMetadata(m, now.obs).Any() {
			break
		}
		if retried {
			return r.failed(ctx, op, "ambiguous outcome not proven", err)
		}
		err = paced()
	}
	if op.Replicas.Any() {
		return r.writeReplicas(ctx, op, arn, version, nil)
	}
	r.accept(op, arn, version)
	return outDone
}

// writeReplicas applies an update's replica change (SPEC §12):
// ReplicateSecretToRegions for the Regions to add (never
// ForceOverwriteReplicaSecret), then RemoveRegionsFromReplication for the
// Regions dropped. Both leave a Region already in the asked state alone,
// so a throttled call (not executed) is resent; after any other failure
// the secret is re-observed and the operation accepted only when observed
// done (every added Region listed, no removed one), never resent: a
// removal cannot be undone and is made at most once per run. version is
// the value version this operation wrote ("" for none); turn as in
// writeMetadata (execute's turn for a replicas-only update: its throttled
// first attempt returns outThrottled, so a new precondition follows).
func (r *runner) writeReplicas(ctx context.Context, op plan.Operation, arn, version string, turn *pace.Turn) outcome {
	w := r.pacedWrites(ctx, turn)
	if len(op.Replicas.Add) > 0 {
		err := w.do(func() error { return r.port.Replicate(ctx, arn, op.Replicas.Add) })
		if w.throttledFirst(err) {
			return outThrottled
		}
		if out, ok := r.proveReplicas(ctx, op, err, plan.ReplicaChange{Add: op.Replicas.Add}); !ok {
			return out
		}
	}
	w.first = false
	if len(op.Replicas.Remove) > 0 {
		err := w.do(func() error { return r.port.RemoveReplicas(ctx, arn, op.Replicas.Remove) })
		if out, ok := r.proveReplicas(ctx, op, err, plan.ReplicaChange{Remove: op.Replicas.Remove}); !ok {
			return out
		}
	}
	r.accept(op, arn, version)
	return outDone
}

// pacedWrites runs the write calls of one operation under the write pace
// (internal/pace): the first call takes the turn execute handed over (nil:
// none), every other call waits for a new turn of pace.Writes, and a
// throttled call is resent, except while first: the first call of an
// operation that came with execute's turn returns its throttle, so execute
// takes a new precondition (throttledFirst; the caller clears first once
// that call is past).
type pacedWrites struct {
	r     *runner
	ctx   context.Context
	turn  *pace.Turn
	first bool
}

func (r *runner) pacedWrites(ctx context.Context, turn *pace.Turn) *pacedWrites {
	return &pacedWrites{r: r, ctx: ctx, turn: turn, first: turn != nil}
}

// do makes call under a turn, resending it while it is throttled (never
// while first); it returns the last attempt's error or ctx's.
func (w *pacedWrites) do(call func() error) error {
	for {
		var t pace.Turn
		if w.turn != nil {
			t, w.turn = *w.turn, nil
		} else {
			var err error
			if t, err = w.r.pacer.Wait(w.ctx, pace.Writes); err != nil {
				return err
			}
		}
		err := call()
		w.r.settle(t, err)
		if !isThrottled(err) || w.ctx.Err() != nil || w.first {
			return err
		}
	}
}

// throttledFirst reports whether err is the throttle of the first call,
// which goes back to execute as outThrottled.
func (w *pacedWrites) throttledFirst(err error) bool {
	return w.first && isThrottled(err) && w.ctx.Err() == nil
}

// proveReplicas judges the outcome err of one replica call that makes
// part of op's replica change: ok when it succeeded, or when it may have
// taken effect (ambiguous) and a re-observation shows part done; else the
// operation fails closed (never resent) or the run was interrupted.
func (r *runner) proveReplicas(ctx context.Context, op plan.Operation, err error, part plan.ReplicaChange) (outcome, bool) {
	switch {
	case err == nil:
		return outDone, true
	case ctx.Err() != nil:
		return outInterrupted, false
	case !isAmbiguous(err):
		return r.failed(ctx, op, "replica change failed", err), false
	}
	r.log.Warn("ambiguous outcome; re-observing", r.opAttrs(op, errAttrs(err)...)...)
	now, oerr := r.observeOne(ctx, op.Name)
	if oerr != nil {
		return r.failed(ctx, op, "re-observation failed", oerr), false
	}
	if !replicasDone(part, now.obs) {
		return r.failed(ctx, op, "ambiguous outcome not proven", err), false
	}
	return outDone, true
}

// replicasDone reports whether an observation shows a replica change done:
// every Region it adds listed, none it removes.
func replicasDone(c plan.ReplicaChange, o plan.ObservedSecret) bool {
	for _, a := range c.Add {
		if !slices.Contains(o.ReplicaRegions, a.Region) {
			return false
		}
	}
	for _, region := range c.Remove {
		if slices.Contains(o.ReplicaRegions, region) {
			return false
		}
	}
	return true
}

// transition performs a restore or schedule-delete. They carry no token, so
// an outcome that may have taken effect is never repeated in the same run:
// after any failure but a throttle the target is re-observed and the
// operation is accepted only if observed done (SPEC §6). A throttled one
// was not executed: it returns outThrottled and is resent after a new
// precondition.
func (r *runner) transition(ctx context.Context, op plan.Operation, obs plan.ObservedSecret, turn pace.Turn) outcome {
	var (
		err  error
		done func(plan.ObservedSecret) bool // what observing the transition done looks like
	)
	switch op.Action {
	case vocab.ActionRestore:
		err = r.port.Restore(ctx, obs.ARN)
		done = func(o plan.ObservedSecret) bool { return o.Exists && !o.Deleted }
	case vocab.ActionScheduleDelete:
		if len(op.Replicas.Remove) > 0 {
			// AWS refuses to delete a primary that has replicas: they are
			// removed first (SPEC §12), then the deletion is resent while
			// throttled (a throttled call was not executed), since a new
			// precondition would no longer match the plan.
			if out, ok := r.removeBeforeDelete(ctx, op, obs, turn); !ok {
				return out
			}
			for {
				if turn, err = r.pacer.Wait(ctx, pace.Writes); err != nil {
					return outInterrupted
				}
				err = r.port.ScheduleDelete(ctx, obs.ARN, r.recoveryWindowDays)
				if !isThrottled(err) || ctx.Err() != nil {
					break
				}
				r.settle(turn, err)
			}
		} else {
			err = r.port.ScheduleDelete(ctx, obs.ARN, r.recoveryWindowDays)
		}
		done = func(o plan.ObservedSecret) bool { return o.Exists && o.Deleted }
	}
	r.settle(turn, err)
	if isThrottled(err) && ctx.Err() == nil {
		return outThrottled
	}
	if err == nil {
		r.accept(op, obs.ARN, "")
		return outDone
	}
	if ctx.Err() != nil {
		return outInterrupted
	}
	r.log.Warn("operation did not answer cleanly; re-observing", r.opAttrs(op, errAttrs(err)...)...)
	now, oerr := r.observeOne(ctx, op.Name)
	if oerr != nil {
		return r.failed(ctx, op, "re-observation failed", oerr)
	}
	if done(now.obs) {
		r.accept(op, now.obs.ARN, "")
		return outDone
	}
	return r.failed(ctx, op, "operation not proven done", err)
}

// removeBeforeDelete removes a secret's replicas before its deletion
// (RemoveRegionsFromReplication). ok is false when the deletion must not
// follow; out then says why: throttled (not executed: a new precondition
// follows), failed or interrupted. An ambiguous outcome is accepted only
// when a re-observation shows the replicas gone; it is never resent.
func (r *runner) removeBeforeDelete(ctx context.Context, op plan.Operation, obs plan.ObservedSecret, turn pace.Turn) (outcome, bool) {
	err := r.port.RemoveReplicas(ctx, obs.ARN, op.Replicas.Remove)
	r.settle(turn, err)
	if isThrottled(err) && ctx.Err() == nil {
		return outThrottled, false
	}
	return r.proveReplicas(ctx, op, err, plan.ReplicaChange{Remove: op.Replicas.Remove})
}

// followUps decides the at-most-one update after each restore from a fresh
// observation. A restore not yet visible is polled on the verification
// interval within the verification timeout; if it never shows, no
// follow-up is planned and verification judges the result.
func (r *runner) followUps(ctx context.Context, restored []plan.Operation) ([]plan.Operation, outcome) {
	var (
		mu     sync.Mutex
		follow []plan.Operation
		worst  = outDone
	)
	deadline := r.clock.Now().Add(r.verificationTimeout)
	each(len(restored), r.concurrency, func(i int) bool {
		op := restored[i]
		var (
			s   sighting
			err error
		)
		for {
			if s, err = r.observeOne(ctx, op.Name); err != nil || !(s.obs.Exists && s.obs.Deleted) || !r.clock.Now().Before(deadline) {
				break
			}
			select {
			case <-ctx.Done():
			case <-r.clock.After(r.pollInterval):
			}
		}
		out := outDone
		var fu *plan.Operation
		if err != nil {
			out = r.failed(ctx, op, "observation after restore failed", err)
		} else {
			switch s.d.Action {
			case vocab.ActionUpdate:
				reason := vocab.ReasonRestoreThenUpdate
				if s.d.Reason == vocab.ReasonMetadata || s.d.Reason == vocab.ReasonReplicas {
					// The value survived the deletion window; only metadata
					// or replicas differ (restore, then replicate: SPEC §12).
					reason = s.d.Reason
				}
				fu = &plan.Operation{Action: vocab.ActionUpdate, Name: op.Name, ARN: s.obs.ARN, Reason: reason,
					Metadata: s.d.Metadata, Replicas: s.d.Replicas, Keys: plan.KeysOf(vocab.ActionUpdate, op.Desired, s.obs),
					Desired: op.Desired, Fingerprint: s.fingerprint()}
			case vocab.ActionConflict:
				out = r.lateConflict(op, s, "new conflict after restore")
			case vocab.ActionUnchanged, vocab.ActionRestore:
			default:
				out = outRebuild
			}
		}
		mu.Lock()
		defer mu.Unlock()
		worst = max(worst, out)
		if fu != nil {
			follow = append(follow, *fu)
			r.ledger.followUp(*fu)
		}
		return out == outDone
	})
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
	r.log.Error(msg, r.opAttrs(op, errAttrs(err)...)...)
	return outFailed
}

func (r *runner) opAttrs(op plan.Operation, extra ...any) []any {
	return append([]any{
		slog.String(vocab.FieldPhase, vocab.PhaseApply),
		slog.String(vocab.FieldOperation, string(op.Action)),
		slog.String(vocab.FieldResource, r.label(op.Name)),
	}, extra...)
}

func isAmbiguous(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Ambiguous
}

// codeResourceExists is AWS's modelled error code for a CreateSecret whose
// name is taken (AWS API reference, CreateSecret errors).
const codeResourceExists = "ResourceExistsException"

// isResourceExists reports a refused create: the secret already exists.
func isResourceExists(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == codeResourceExists
}
