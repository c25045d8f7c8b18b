package engine

import (
	"context"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// step is one kind of AWS call an operation makes: a row of the write
// protocol. The driver (execute, write.go) applies SPEC §6 to every row
// the same way — the precondition, the pace, throttles, unclear outcomes,
// the re-observation, the one resend — so a row says only what differs
// between calls: the call, what observing it done looks like, and whether
// it may be made twice.
type step struct {
	// call makes the AWS call for w (w.arn, w.token), recording in w what
	// its answer taught (a create's ARN). It returns the port's error.
	call func(ctx context.Context, r *runner, w *write) error
	// done reports whether a sighting shows the call's effect: an unclear
	// outcome is accepted on it, and a step that a re-observation already
	// shows done is not called.
	done func(r *runner, w *write, s sighting) bool
	// resend reports whether a call whose outcome was unclear and that a
	// re-observation does not show done may be made once more: the
	// sighting still shows the target as the call found it. nil: never in
	// the same run (a call that carries no token and is not idempotent, or
	// whose effect cannot be undone, SPEC §6, §12).
	resend func(w *write, s sighting) bool
	// exists: AWS's refusal because the name is taken
	// (ResourceExistsException) is judged by metExisting (a create).
	exists bool
	// anyError: every error but a throttle is judged by a re-observation,
	// not only an ambiguous one: the call carries no token, so the SDK's
	// retry of an attempt that landed is refused by the changed secret.
	anyError bool
	// look, on a row that acts on what the calls before it left: before
	// each of its calls, and after each (whatever the answer but a
	// throttle or a cancellation), the driver observes the name (the same
	// observation as the precondition's) and look judges the sighting and
	// the last call's error (nil before the first): lookCall makes the
	// call (look recorded in w what it is), lookNext moves to the next
	// step, lookEnd ends the operation with the outcome returned. Such a
	// row is neither done nor resent by the driver's rules: look decides.
	look func(ctx context.Context, r *runner, w *write, s sighting, err error) (lookVerdict, outcome)
	// settled, on an operation's last step, reports whether a sighting
	// after the operation was accepted shows the call's effect settled
	// enough to decide what follows it; while it does not, the driver
	// observes again on the poll interval within the verification timeout
	// (AWS may answer before a describe shows the effect). nil: nothing
	// follows the operation, no observation after it.
	settled func(s sighting) bool
	// needs is the capability of the port the call goes through ("":
	// the core, Port): an operation whose steps need one the port lacks
	// is failed closed before any call (able).
	needs model.Capability
}

// The rows. stepsOf lists, per operation, which of them it makes and in
// what order; the driver never looks at the operation's action.
var (
	// stepCreate: CreateSecret with the value, the ownership and
	// configured tags, the configured KMS key and description and the
	// configured replicas in one request (SPEC §4, §12), with the logical
	// write's token; a refusal because the name exists is a second writer
	// or a lagging observation (metExisting).
	stepCreate = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			res, err := r.port.Create(ctx, r.createRequest(w.op, w.mint(r)))
			if err == nil {
				w.arn, w.version = res.ARN, res.VersionID
			}
			return err
		},
		done:   valueThere,
		resend: func(_ *write, s sighting) bool { return s.d.Action == vocab.ActionCreate },
		exists: true,
	}
	// stepPutValue: PutSecretValue (a new AWSCURRENT version) with the
	// logical write's token, resent once with the same token while the
	// value still differs on the same secret and its current version is
	// still the one planning saw (unwritten). Parameter Store's
	// PutParameter has no token (SPEC §16): there the version rule alone
	// keeps a resend from replacing another writer's value. The call goes
	// to w.arn, the full ARN the precondition observed, so the target stays
	// that ARN: PutSecretValue answers the same one, PutParameter none.
	stepPutValue = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			res, err := r.port.PutValue(ctx, w.arn, w.op.Desired.Value, w.op.Desired.Kind, w.mint(r))
			if err == nil {
				w.version = res.VersionID
			}
			return err
		},
		done: valueThere,
		resend: func(w *write, s sighting) bool {
			return s.d.Action == vocab.ActionUpdate && s.obs.ARN == w.arn && unwritten(w, s)
		},
	}
	// stepAdoptTags: an adoption's TagResource with the three ownership
	// tags and every configured tag (SPEC §11); idempotent, resent once
	// while the secret is still the one adoption planned.
	stepAdoptTags = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			return r.port.Tag(ctx, w.arn, r.ownedTags(w.op))
		},
		done: func(r *runner, w *write, s sighting) bool {
			return s.obs.Exists && s.obs.ARN == w.arn && carries(s.obs.Tags, r.ownedTags(w.op))
		},
		resend: func(w *write, s sighting) bool {
			return s.d.Action == vocab.ActionAdopt && s.obs.ARN == w.arn
		},
	}
	// stepMetadata: UpdateSecret without a value for the configured KMS
	// key and/or description that differ (no new version); idempotent.
	stepMetadata = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			m := r.policy.Metadata
			var kms, desc *string
			if w.op.Metadata.KMSKeyID {
				kms = &m.KMSKeyID
			}
			if w.op.Metadata.Description {
				desc = &m.Description
			}
			return r.port.UpdateMetadata(ctx, w.arn, kms, desc)
		},
		done: func(r *runner, _ *write, s sighting) bool {
			return !plan.DiffMetadata(r.policy.Metadata, s.obs).NeedsUpdateSecret()
		},
		resend: sameSecret,
	}
	// stepTags: TagResource for the configured tags that are missing or
	// differ, in one call (never untag-then-tag: a tag's new value replaces
	// the old one atomically); idempotent.
	stepTags = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			return r.port.Tag(ctx, w.arn, r.configuredTags(w.op))
		},
		done: func(r *runner, w *write, s sighting) bool {
			return carries(s.obs.Tags, r.configuredTags(w.op))
		},
		resend: sameSecret,
	}
	// stepReplicate: ReplicateSecretToRegions for the Regions to add
	// (never ForceOverwriteReplicaSecret, SPEC §12). Never resent after an
	// unclear outcome: accepted only when observed done.
	stepReplicate = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			return r.caps.replicator.Replicate(ctx, w.arn, w.op.Replicas.Add)
		},
		done: func(_ *runner, w *write, s sighting) bool {
			return replicasDone(plan.ReplicaChange{Add: w.op.Replicas.Add}, s.obs)
		},
		needs: model.CapReplicas,
	}
	// stepRemoveReplicas: RemoveRegionsFromReplication for the Regions
	// dropped (an update's, or every replica before a deletion: AWS
	// refuses to delete a primary that has replicas). A removal cannot be
	// undone: made at most once per run, accepted only when observed done.
	stepRemoveReplicas = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			return r.caps.replicator.RemoveReplicas(ctx, w.arn, w.op.Replicas.Remove)
		},
		done: func(_ *runner, w *write, s sighting) bool {
			return replicasDone(plan.ReplicaChange{Remove: w.op.Replicas.Remove}, s.obs)
		},
		needs: model.CapReplicas,
	}
	// stepRestore: the Restorer's Restore (RestoreSecret: cancels a
	// scheduled deletion). No token: never repeated in a run, accepted
	// only when observed restored.
	stepRestore = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			return r.caps.restorer.Restore(ctx, w.arn)
		},
		needs:    model.CapRestore,
		done:     func(_ *runner, _ *write, s sighting) bool { return s.obs.Exists && !s.obs.Deleted },
		anyError: true,
		// The follow-up update is decided from a sighting that no longer
		// shows the deletion scheduled (followUps).
		settled: func(s sighting) bool { return !(s.obs.Exists && s.obs.Deleted) },
	}
	// stepDelete: DeleteSecret with the recovery window (never
	// ForceDeleteWithoutRecovery, SPEC §5), or Parameter Store's
	// immediate DeleteParameter (SPEC §16). No token: never repeated in a
	// run, accepted only when observed scheduled for deletion or gone.
	stepDelete = step{
		call: func(ctx context.Context, r *runner, w *write) error {
			return r.port.Delete(ctx, w.arn, r.recoveryWindowDays)
		},
		done:     func(_ *runner, _ *write, s sighting) bool { return !s.obs.Exists || s.obs.Deleted },
		anyError: true,
	}
)

// stepLineage follows the value write of a secret with keys owned by
// AWS (SPEC §13, "Rotation as AWS leaves it" and "Writes race rotation"):
// a rotation may have finished before the write, leaving AWSPENDING on the
// version the write replaced, or between the read the merge was computed
// from and the write, so that the write put the older AWS-owned values
// back. Its call is the LabelMover's MoveLabel (UpdateSecretVersionStage);
// lineage judges what the write left.
var stepLineage = step{
	call: func(ctx context.Context, r *runner, w *write) error {
		m := w.move
		return r.caps.labels.MoveLabel(ctx, w.arn, m.stage, m.to, m.from)
	},
	look:     lineage,
	anyError: true,
	needs:    model.CapLabels,
}

// able reports whether the port has the capability every step of steps
// goes through (step.needs).
func (r *runner) able(steps []step) bool {
	for _, s := range steps {
		if s.needs != "" && !r.caps.has(s.needs) {
			return false
		}
	}
	return true
}

// stepsOf is the list of calls op makes, in order (SPEC §5, §11, §12);
// nil for an action the engine cannot perform (execute fails it closed
// with internal:error, never a guess). A new kind of write is a row above
// and its place here.
//
//   - create: one CreateSecret (value, tags, metadata, replicas together);
//   - update: the value (unless only metadata or replicas differ), then
//     UpdateSecret for the KMS key and description, TagResource for the
//     configured tags, then the replicas to add and to remove;
//   - adopt: TagResource with the ownership and configured tags first (the
//     secret is ours from then on), then as an update: the value when it
//     differs, UpdateSecret, the replicas (an adopted secret has none);
//   - restore: RestoreSecret, observed until it shows (an update may
//     follow: followUps);
//   - schedule-delete: every replica removed, then DeleteSecret;
//   - with awsOwned (the secret has keys owned by AWS), the value write is
//     followed by stepLineage.
func stepsOf(op plan.Operation, awsOwned bool) []step {
	var out []step
	value := false
	switch op.Action {
	case vocab.ActionCreate:
		return []step{stepCreate}
	case vocab.ActionRestore:
		return []step{stepRestore}
	case vocab.ActionScheduleDelete:
		if len(op.Replicas.Remove) > 0 {
			out = append(out, stepRemoveReplicas)
		}
		return append(out, stepDelete)
	case vocab.ActionAdopt:
		out = append(out, stepAdoptTags)
		value = op.Reason != vocab.ReasonValueEqual
	case vocab.ActionUpdate:
		value = op.Reason != vocab.ReasonMetadata && op.Reason != vocab.ReasonReplicas
	default:
		return nil
	}
	if value {
		out = append(out, stepPutValue)
		if awsOwned {
			out = append(out, stepLineage)
		}
	}
	if op.Metadata.NeedsUpdateSecret() {
		out = append(out, stepMetadata)
	}
	if op.Action == vocab.ActionUpdate && len(op.Metadata.Tags) > 0 {
		out = append(out, stepTags) // an adoption's tags went with stepAdoptTags
	}
	if len(op.Replicas.Add) > 0 {
		out = append(out, stepReplicate)
	}
	if len(op.Replicas.Remove) > 0 {
		out = append(out, stepRemoveReplicas)
	}
	return out
}

// valueThere reports whether a sighting shows the desired value current:
// nothing left to do, or only metadata or replicas (the reasons of an
// update that writes no value).
func valueThere(_ *runner, _ *write, s sighting) bool {
	return s.d.Action == vocab.ActionUnchanged ||
		s.d.Action == vocab.ActionUpdate && (s.d.Reason == vocab.ReasonMetadata || s.d.Reason == vocab.ReasonReplicas)
}

// unwritten reports whether s still shows the current version the
// operation's precondition saw: no write, ours or another's, landed since.
func unwritten(w *write, s sighting) bool {
	return slices.Equal(s.obs.CurrentVersionIDs(), w.op.Fingerprint.CurrentVersions)
}

// sameSecret allows the one resend of an idempotent call while the
// secret is still the one it was sent to.
func sameSecret(w *write, s sighting) bool { return s.obs.Exists && s.obs.ARN == w.arn }

// createRequest is one CreateSecret: the value, the ownership tags and
// the configured metadata in one request, so a new secret never exists
// without them.
func (r *runner) createRequest(op plan.Operation, token string) CreateRequest {
	m := r.policy.Metadata
	return CreateRequest{Name: op.Name, Value: r.createValue(op), Kind: op.Desired.Kind, Tags: r.ownedTags(op), Token: token,
		KMSKeyID: m.KMSKeyID, Description: m.Description, Replicas: op.Replicas.Add}
}

// ownedTags are the tags a created or adopted secret gets: the three
// ownership tags of op's document (SPEC §4) and every configured tag
// (config refuses reserved keys, so the ownership tags are never
// overwritten).
func (r *runner) ownedTags(op plan.Operation) map[string]string {
	tags := r.want.Scope.Tags(op.Desired.Path)
	for k, v := range r.policy.Metadata.Tags {
		tags[k] = v
	}
	return tags
}

// configuredTags are the configured tags an update sets: the keys
// planning found missing or different (op.Metadata.Tags), with their
// configured values.
func (r *runner) configuredTags(op plan.Operation) map[string]string {
	tags := make(map[string]string, len(op.Metadata.Tags))
	for _, k := range op.Metadata.Tags {
		tags[k] = r.policy.Metadata.Tags[k]
	}
	return tags
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
