package secretsmanager

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Lifecycle and metadata operations: DeleteSecret, RestoreSecret,
// TagResource, UntagResource, UpdateSecretVersionStage.

// deleteSecret: reference §1 DeleteSecret. Window 7-30 days (default 30),
// exclusive with ForceDeleteWithoutRecovery, which purges at once and
// succeeds for a missing secret; a second scheduling is InvalidRequest.
func (e *Call) deleteSecret(in *deleteSecretIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	force := in.ForceDeleteWithoutRecovery != nil && *in.ForceDeleteWithoutRecovery
	if force && in.RecoveryWindowInDays != nil {
		return nil, core.Errf("InvalidParameterException", "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.")
	}
	days := int64(30)
	if in.RecoveryWindowInDays != nil {
		days = *in.RecoveryWindowInDays
		if days < 7 || days > 30 {
			return nil, core.Errf("InvalidParameterException", "The RecoveryWindowInDays value must be between 7 and 30 days (inclusive).")
		}
	}
	now, lag := e.begin()
	defer e.Unlock()
	r := e.Secrets.lookup(*in.SecretID)
	if r == nil || r.cur() == nil {
		if force { // AWS does not answer ResourceNotFoundException here.
			return deleteOut{ARN: fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s", e.Region, e.Account, *in.SecretID), Name: *in.SecretID, DeletionDate: core.Ep(now)}, nil
		}
		return nil, errNotFound()
	}
	s := r.cur()
	if s.replica {
		return nil, errReplicaReadOnly()
	}
	if len(s.replicas) > 0 {
		// DeleteSecret reference: a primary with replicas cannot be
		// deleted; code and message as moto's tests have them.
		return nil, core.Errf("InvalidParameterException", "You can't delete secret %s that still has replica regions [%s]", s.arn, strings.Join(s.replicaRegions(), ", "))
	}
	if force {
		e.Secrets.commit(r, nil, now, lag)
		e.Secrets.compact(now, lag)
		return deleteOut{ARN: s.arn, Name: s.name, DeletionDate: core.Ep(now)}, nil
	}
	if s.pending() {
		return nil, errMarked()
	}
	n := s.clone()
	n.deletedDate = now
	n.deletionDate = now.Add(time.Duration(days) * 24 * time.Hour)
	e.commitPrimary(r, n, now, lag)
	e.Secrets.schedulePurge(r, n.deletionDate)
	return deleteOut{ARN: n.arn, Name: n.name, DeletionDate: core.Ep(n.deletionDate)}, nil
}

// restoreSecret: reference §1 RestoreSecret; a no-op on an active secret
// [unverified choice].
func (e *Call) restoreSecret(in *secretIDIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, false)
	if aerr != nil {
		return nil, aerr
	}
	if s.pending() {
		n := s.clone()
		n.deletedDate, n.deletionDate = time.Time{}, time.Time{}
		n.lastChanged = now
		e.commitPrimary(r, n, now, lag)
	}
	return updateStageOut{ARN: s.arn, Name: s.name}, nil
}

type emptyOut struct{}

// tagResource: reference §1 TagResource; an existing key gets the new
// value; enforces 50 tags and the aws: prefix; refused while scheduled.
func (e *Call) tagResource(in *tagResourceIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.Tags == nil {
		return nil, core.ErrMissing("tags")
	}
	add, aerr := validTags(in.Tags)
	if aerr != nil {
		return nil, aerr
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	n := s.clone()
	if n.tags, aerr = mergeTags(n.tags, add); aerr != nil {
		return nil, aerr
	}
	n.lastChanged = now
	e.commitPrimary(r, n, now, lag)
	return emptyOut{}, nil
}

// untagResource: reference §1 UntagResource; idempotent; refused while
// scheduled.
func (e *Call) untagResource(in *untagResourceIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.TagKeys == nil {
		return nil, core.ErrMissing("tagKeys")
	}
	for _, k := range in.TagKeys {
		if err := validTagKey(k, "tagKeys.member"); err != nil {
			return nil, err
		}
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	n := s.clone()
	n.tags = slices.DeleteFunc(n.tags, func(t tag) bool { return slices.Contains(in.TagKeys, t.key) })
	n.lastChanged = now
	e.commitPrimary(r, n, now, lag)
	return emptyOut{}, nil
}

// updateSecretVersionStage: reference §3. Moving a label held elsewhere
// needs RemoveFromVersionId naming the holder; AWSCURRENT drags AWSPREVIOUS.
func (e *Call) updateSecretVersionStage(in *updateStageIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.VersionStage == nil {
		return nil, core.ErrMissing("versionStage")
	}
	stage := *in.VersionStage
	if len(stage) < 1 || len(stage) > maxStageLen {
		return nil, core.ErrConstraint("versionStage", "Member must have length between 1 and 256")
	}
	if in.RemoveFromVersionID == nil && in.MoveToVersionID == nil {
		return nil, core.Errf("InvalidParameterException", "You must specify RemoveFromVersionId, MoveToVersionId, or both.")
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	holder := s.holder(stage)
	n := s.clone()
	if in.MoveToVersionID != nil {
		to := *in.MoveToVersionID
		if s.version(to) == nil {
			return nil, core.Errf("ResourceNotFoundException", "Secrets Manager can't find the specified secret value for VersionId: %s", to)
		}
		if holder != "" && holder != to {
			if in.RemoveFromVersionID == nil {
				return nil, core.Errf("InvalidParameterException", "The parameter RemoveFromVersionId can't be empty. Staging label %s is currently attached to version %s, so you must explicitly reference that version in RemoveFromVersionId.", stage, holder)
			}
			if *in.RemoveFromVersionID != holder {
				return nil, core.Errf("InvalidParameterException", "Staging label %s is currently attached to version %s, not to version %s.", stage, holder, *in.RemoveFromVersionID)
			}
		}
		if stage == "AWSCURRENT" {
			n.moveCurrent(to)
		} else {
			n.removeLabel(stage)
			n.addLabel(to, stage)
		}
	} else {
		from := *in.RemoveFromVersionID
		if holder != from {
			return nil, core.Errf("InvalidParameterException", "Staging label %s is not attached to version %s.", stage, from)
		}
		if stage == "AWSCURRENT" {
			return nil, core.Errf("InvalidParameterException", "You can't remove the staging label AWSCURRENT without moving it to another version with MoveToVersionId.")
		}
		n.removeLabel(stage)
	}
	n.lastChanged = now
	e.commitPrimary(r, n, now, lag)
	return updateStageOut{ARN: s.arn, Name: s.name}, nil
}

// maxPolicyLen is the model's NonEmptyResourcePolicyType maximum length.
const maxPolicyLen = 20480

// putResourcePolicy: API reference PutResourcePolicy. The policy must be a
// JSON object (MalformedPolicyDocumentException otherwise, message ours);
// its grammar, BlockPublicPolicy and PublicPolicyException are not
// modelled. Replicated to the secret's replicas; refused on a replica
// (moto's tests).
func (e *Call) putResourcePolicy(in *putPolicyIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.ResourcePolicy == nil {
		return nil, core.ErrMissing("resourcePolicy")
	}
	if n := utf8.RuneCountInString(*in.ResourcePolicy); n < 1 || n > maxPolicyLen {
		return nil, core.ErrConstraint("resourcePolicy", fmt.Sprintf("Member must have length between 1 and %d", maxPolicyLen))
	}
	var doc map[string]any
	if json.Unmarshal([]byte(*in.ResourcePolicy), &doc) != nil {
		return nil, core.Errf("MalformedPolicyDocumentException", "The resource policy is not a JSON policy document.")
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	n := s.clone()
	n.policy = *in.ResourcePolicy
	n.lastChanged = now
	e.commitPrimary(r, n, now, lag)
	return updateStageOut{ARN: s.arn, Name: s.name}, nil
}

// getResourcePolicy: API reference GetResourcePolicy; ResourcePolicy is
// left out when the secret has none. Refused on a replica (moto's tests).
func (e *Call) getResourcePolicy(in *secretIDIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	e.begin()
	defer e.Unlock()
	_, s, aerr := e.getWritable(*in.SecretID, false)
	if aerr != nil {
		return nil, aerr
	}
	return policyOut{ARN: s.arn, Name: s.name, ResourcePolicy: s.policy}, nil
}

// deleteResourcePolicy: API reference DeleteResourcePolicy; succeeds when
// there is none. Refused on a replica (moto's tests).
func (e *Call) deleteResourcePolicy(in *secretIDIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	if s.policy != "" {
		n := s.clone()
		n.policy = ""
		n.lastChanged = now
		e.commitPrimary(r, n, now, lag)
	}
	return updateStageOut{ARN: s.arn, Name: s.name}, nil
}
