package secretsmanager

import (
	"fmt"
	"slices"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Operation handlers. Each validates its input without the lock, then takes
// e.mu, purges secrets whose recovery window ended, and acts on the store.
// Handlers return output values that share no mutable memory with the store,
// so they are encoded after the lock is released.

func (e *Call) begin() (time.Time, time.Duration) {
	e.Lock()
	now := e.Now()
	lag := e.ListLag()
	e.Secrets.sweep(now, lag)
	return now, lag
}

func (e *Call) arn(name string) string {
	return fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s-%s", e.Region, e.Account, name, e.ARNSuffix())
}

// get resolves a SecretId to a live record; activeOnly refuses a secret
// scheduled for deletion with AWS's InvalidRequestException.
// getWritable is get for an operation that changes the secret: a replica
// is read-only, so one is refused with errReplicaReadOnly (the API
// reference's replica rules, moto's tests for the message).
func (e *Call) getWritable(id string, activeOnly bool) (*record, *secret, *core.Error) {
	r, s, aerr := e.get(id, activeOnly)
	if aerr != nil {
		return nil, nil, aerr
	}
	if s.replica {
		return nil, nil, errReplicaReadOnly()
	}
	return r, s, nil
}

func (e *Call) get(id string, activeOnly bool) (*record, *secret, *core.Error) {
	r := e.Secrets.lookup(id)
	if r == nil || r.cur() == nil {
		return nil, nil, errNotFound()
	}
	s := r.cur()
	if activeOnly && s.pending() {
		return nil, nil, errMarked()
	}
	return r, s, nil
}

func errTokenInUse(tok, arn string) *core.Error {
	return core.Errf("ResourceExistsException", "You can't use ClientRequestToken %s because that value is already in use for a version of secret %s.", tok, arn)
}

// newVersion makes a version encrypted under the KMS key id keyID.
func newVersion(id string, str *string, bin []byte, now time.Time, keyID string) *version {
	v := &version{id: id, bin: slices.Clone(bin), created: now, keys: []string{keyID}}
	if str != nil {
		s := *str
		v.str = &s
	}
	return v
}

// trimVersions drops deprecated versions older than 24 hours while the
// secret holds more than 100 versions (reference §3 "Retention").
func trimVersions(s *secret, now time.Time) {
	for len(s.versions) > maxVersions {
		i := slices.IndexFunc(s.versions, func(v *version) bool {
			return len(s.stages[v.id]) == 0 && now.Sub(v.created) >= 24*time.Hour
		})
		if i < 0 {
			return
		}
		s.versions = slices.Delete(s.versions, i, i+1)
	}
}

// createSecret: reference §1 CreateSecret, §2 tokens. A name scheduled for
// deletion is InvalidRequestException (never ResourceExistsException).
func (e *Call) createSecret(in *createSecretIn) (any, *core.Error) {
	if in.Name == nil {
		return nil, core.ErrMissing("name")
	}
	if err := validName(*in.Name); err != nil {
		return nil, err
	}
	if err := validToken(in.ClientRequestToken); err != nil {
		return nil, err
	}
	if err := validValue(in.SecretString, in.SecretBinary, false); err != nil {
		return nil, err
	}
	if err := validDescKms(in.Description, in.KmsKeyID); err != nil {
		return nil, err
	}
	tags, err := validTags(in.Tags)
	if err != nil {
		return nil, err
	}
	if tags, err = mergeTags(nil, tags); err != nil {
		return nil, err
	}
	replicas, aerr := parseReplicaRegions(in.AddReplicaRegions, e.Region)
	if aerr != nil {
		return nil, aerr
	}

	now, _ := e.begin()
	defer e.Unlock()
	name := *in.Name
	hasValue := in.SecretString != nil || in.SecretBinary != nil
	if r := e.Secrets.byName[name]; r != nil {
		s := r.cur()
		if s.pending() {
			return nil, core.Errf("InvalidRequestException", msgCreateScheduled)
		}
		if in.ClientRequestToken != nil {
			if v := s.version(*in.ClientRequestToken); v != nil {
				if hasValue && sameValue(v, in.SecretString, in.SecretBinary) {
					return arnNameVersionOut{ARN: s.arn, Name: s.name, VersionID: v.id}, nil
				}
				return nil, errTokenInUse(*in.ClientRequestToken, s.arn)
			}
		}
		return nil, core.Errf("ResourceExistsException", "The operation failed because the secret %s already exists.", name)
	}
	keyID := core.SecretsManagerKeyID
	if in.KmsKeyID != nil {
		var aerr *core.Error
		if keyID, aerr = e.resolveKMS(*in.KmsKeyID); aerr != nil {
			return nil, aerr
		}
	}
	if hasValue {
		if aerr := e.encryptWith(keyID); aerr != nil {
			return nil, aerr
		}
	}
	s := &secret{
		arn:         e.arn(name),
		name:        name,
		tags:        tags,
		created:     now,
		lastChanged: now,
		stages:      map[string][]string{},
	}
	if in.Description != nil {
		s.description = *in.Description
	}
	if in.KmsKeyID != nil { // as given; "" (the AWS managed key by default) is left out of DescribeSecret
		s.kmsKeyID = *in.KmsKeyID
	}
	if in.Type != nil {
		s.typ = *in.Type
	}
	out := arnNameVersionOut{ARN: s.arn, Name: name}
	if hasValue {
		id := e.tokenOrNew(in.ClientRequestToken)
		s.versions = []*version{newVersion(id, in.SecretString, in.SecretBinary, now, keyID)}
		s.moveCurrent(id)
		out.VersionID = id
	}
	if len(replicas) > 0 {
		s.primaryRegion = e.Region
		started := make([]replicaState, 0, len(replicas))
		for _, rs := range replicas {
			rs = e.startReplica(s, rs, in.ForceOverwriteReplicaSecret, now)
			started = append(started, rs)
			out.ReplicationStatus = append(out.ReplicationStatus, rs.out(now))
		}
		s.replicas = started
	}
	e.Secrets.create(s, now)
	return out, nil
}

func (e *Call) tokenOrNew(tok *string) string {
	if tok != nil {
		return *tok
	}
	return e.NewID()
}

// putSecretValue: reference §1 PutSecretValue, §2, §3. Never creates a
// secret; a token is required; VersionStages moves only the listed labels.
func (e *Call) putSecretValue(in *putSecretValueIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.ClientRequestToken == nil {
		return nil, core.Errf("InvalidRequestException", msgNeedToken)
	}
	if err := validToken(in.ClientRequestToken); err != nil {
		return nil, err
	}
	if err := validValue(in.SecretString, in.SecretBinary, true); err != nil {
		return nil, err
	}
	if err := validStages(in.VersionStages); err != nil {
		return nil, err
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	tok := *in.ClientRequestToken
	if v := s.version(tok); v != nil {
		if sameValue(v, in.SecretString, in.SecretBinary) {
			return arnNameVersionOut{ARN: s.arn, Name: s.name, VersionID: v.id, VersionStages: slices.Clone(s.stages[v.id])}, nil
		}
		return nil, errTokenInUse(tok, s.arn)
	}
	keyID := e.storedKeyID(s)
	if aerr := e.encryptWith(keyID); aerr != nil {
		return nil, aerr
	}
	n := s.clone()
	first := len(n.versions) == 0
	n.versions = append(n.versions, newVersion(tok, in.SecretString, in.SecretBinary, now, keyID))
	if in.VersionStages == nil {
		n.moveCurrent(tok)
	} else {
		for _, l := range in.VersionStages {
			if l == "AWSCURRENT" {
				n.moveCurrent(tok)
			} else {
				n.removeLabel(l)
				n.addLabel(tok, l)
			}
		}
		if first && n.holder("AWSCURRENT") == "" {
			n.addLabel(tok, "AWSCURRENT")
		}
	}
	n.lastChanged = now
	trimVersions(n, now)
	e.commitPrimary(r, n, now, lag)
	return arnNameVersionOut{ARN: n.arn, Name: n.name, VersionID: tok, VersionStages: slices.Clone(n.stages[tok])}, nil
}

// updateSecret: reference §1 UpdateSecret. Metadata-only updates create no
// version; a value moves AWSCURRENT like PutSecretValue without stages.
func (e *Call) updateSecret(in *updateSecretIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if err := validToken(in.ClientRequestToken); err != nil {
		return nil, err
	}
	if err := validValue(in.SecretString, in.SecretBinary, false); err != nil {
		return nil, err
	}
	if err := validDescKms(in.Description, in.KmsKeyID); err != nil {
		return nil, err
	}
	now, lag := e.begin()
	defer e.Unlock()
	r, s, aerr := e.getWritable(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	oldKey := e.storedKeyID(s)
	keyID := oldKey
	if in.KmsKeyID != nil {
		if keyID, aerr = e.resolveKMS(*in.KmsKeyID); aerr != nil {
			return nil, aerr
		}
	}
	out := arnNameVersionOut{ARN: s.arn, Name: s.name}
	n := s.clone()
	var add *version
	if in.SecretString != nil || in.SecretBinary != nil {
		id := e.tokenOrNew(in.ClientRequestToken)
		if v := s.version(id); v != nil {
			if !sameValue(v, in.SecretString, in.SecretBinary) {
				return nil, errTokenInUse(id, s.arn)
			}
		} else {
			if aerr := e.encryptWith(keyID); aerr != nil {
				return nil, aerr
			}
			add = newVersion(id, in.SecretString, in.SecretBinary, now, keyID)
		}
		out.VersionID = id
	}
	if keyID != oldKey {
		// A changed key re-encrypts the labelled versions as they were when
		// the call arrived; it creates no version and moves no label.
		e.reencrypt(n, keyID)
	}
	if add != nil {
		n.versions = append(n.versions, add)
		n.moveCurrent(add.id)
		trimVersions(n, now)
	}
	if in.Description != nil {
		n.description = *in.Description
	}
	if in.KmsKeyID != nil { // as given, the AWS managed key's forms too; "" is left out
		n.kmsKeyID = *in.KmsKeyID
	}
	if in.Type != nil {
		n.typ = *in.Type
	}
	n.lastChanged = now
	e.commitPrimary(r, n, now, lag)
	return out, nil
}
