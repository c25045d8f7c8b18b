package emulator

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Operation handlers. Each validates its input without the lock, then takes
// e.mu, purges secrets whose recovery window ended, and acts on the store.
// Handlers return output values that share no mutable memory with the store,
// so they are encoded after the lock is released.

func (e *Emulator) begin() (time.Time, time.Duration) {
	e.mu.Lock()
	now := e.now()
	lag := e.lag()
	e.st.sweep(now, lag)
	return now, lag
}

func (e *Emulator) lag() time.Duration { return time.Duration(e.faults.ListLagMS) * time.Millisecond }

func (e *Emulator) arn(name string) string {
	return fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s-%s", e.region, e.account, name, e.arnSuffix())
}

// get resolves a SecretId to a live record; activeOnly refuses a secret
// scheduled for deletion with AWS's InvalidRequestException.
func (e *Emulator) get(id string, activeOnly bool) (*record, *secret, *apiError) {
	r := e.st.lookup(id)
	if r == nil || r.cur() == nil {
		return nil, nil, errNotFound()
	}
	s := r.cur()
	if activeOnly && s.pending() {
		return nil, nil, errMarked()
	}
	return r, s, nil
}

func errTokenInUse(tok, arn string) *apiError {
	return errf("ResourceExistsException", "You can't use ClientRequestToken %s because that value is already in use for a version of secret %s.", tok, arn)
}

func newVersion(id string, str *string, bin []byte, now time.Time) *version {
	v := &version{id: id, bin: slices.Clone(bin), created: now}
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

func (e *Emulator) createSecret(in *createSecretIn) (any, *apiError) {
	if in.Name == nil {
		return nil, errMissing("name")
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
	var replicas []string
	for _, rr := range in.AddReplicaRegions {
		if rr.Region == nil || !validRegion(*rr.Region) {
			return nil, errf("InvalidParameterException", "Invalid replica Region.")
		}
		replicas = append(replicas, *rr.Region)
	}

	now, _ := e.begin()
	defer e.mu.Unlock()
	name := *in.Name
	hasValue := in.SecretString != nil || in.SecretBinary != nil
	if r := e.st.byName[name]; r != nil {
		s := r.cur()
		if s.pending() {
			return nil, errf("InvalidRequestException", msgCreateScheduled)
		}
		if in.ClientRequestToken != nil {
			if v := s.version(*in.ClientRequestToken); v != nil {
				if hasValue && sameValue(v, in.SecretString, in.SecretBinary) {
					return arnNameVersionOut{ARN: s.arn, Name: s.name, VersionID: v.id}, nil
				}
				return nil, errTokenInUse(*in.ClientRequestToken, s.arn)
			}
		}
		return nil, errf("ResourceExistsException", "The operation failed because the secret %s already exists.", name)
	}
	s := &secret{
		arn:         e.arn(name),
		name:        name,
		tags:        tags,
		created:     now,
		lastChanged: now,
		stages:      map[string][]string{},
		replicas:    replicas,
	}
	if in.Description != nil {
		s.description = *in.Description
	}
	if in.KmsKeyID != nil {
		s.kmsKeyID = *in.KmsKeyID
	}
	if in.Type != nil {
		s.typ = *in.Type
	}
	if len(replicas) > 0 {
		s.primaryRegion = e.region
	}
	out := arnNameVersionOut{ARN: s.arn, Name: name}
	if hasValue {
		id := e.tokenOrNew(in.ClientRequestToken)
		s.versions = []*version{newVersion(id, in.SecretString, in.SecretBinary, now)}
		s.moveCurrent(id)
		out.VersionID = id
	}
	e.st.create(s, now)
	return out, nil
}

func (e *Emulator) tokenOrNew(tok *string) string {
	if tok != nil {
		return *tok
	}
	return e.newVersionID()
}

func validRegion(r string) bool {
	if len(r) < 1 || len(r) > 128 {
		return false
	}
	// ^([a-z]+-)+\d+$
	parts := strings.Split(r, "-")
	if len(parts) < 2 {
		return false
	}
	for i, p := range parts {
		if p == "" {
			return false
		}
		for _, c := range p {
			if i == len(parts)-1 {
				if c < '0' || c > '9' {
					return false
				}
			} else if c < 'a' || c > 'z' {
				return false
			}
		}
	}
	return true
}

func (e *Emulator) putSecretValue(in *putSecretValueIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.ClientRequestToken == nil {
		return nil, errf("InvalidRequestException", msgNeedToken)
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
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, true)
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
	n := s.clone()
	first := len(n.versions) == 0
	n.versions = append(n.versions, newVersion(tok, in.SecretString, in.SecretBinary, now))
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
	e.st.commit(r, n, now, lag)
	return arnNameVersionOut{ARN: n.arn, Name: n.name, VersionID: tok, VersionStages: slices.Clone(n.stages[tok])}, nil
}

func (e *Emulator) updateSecret(in *updateSecretIn) (any, *apiError) {
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
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	out := arnNameVersionOut{ARN: s.arn, Name: s.name}
	n := s.clone()
	if in.SecretString != nil || in.SecretBinary != nil {
		id := e.tokenOrNew(in.ClientRequestToken)
		if v := s.version(id); v != nil {
			if !sameValue(v, in.SecretString, in.SecretBinary) {
				return nil, errTokenInUse(id, s.arn)
			}
		} else {
			n.versions = append(n.versions, newVersion(id, in.SecretString, in.SecretBinary, now))
			n.moveCurrent(id)
			trimVersions(n, now)
		}
		out.VersionID = id
	}
	if in.Description != nil {
		n.description = *in.Description
	}
	if in.KmsKeyID != nil {
		n.kmsKeyID = *in.KmsKeyID
	}
	if in.Type != nil {
		n.typ = *in.Type
	}
	n.lastChanged = now
	e.st.commit(r, n, now, lag)
	return out, nil
}

// meta renders the fields DescribeSecret and ListSecrets share.
func (e *Emulator) meta(s *secret, r *record) secretMeta {
	m := secretMeta{
		ARN:              s.arn,
		Name:             s.name,
		Description:      s.description,
		KmsKeyID:         s.kmsKeyID,
		LastChangedDate:  ep(s.lastChanged),
		LastAccessedDate: ep(r.lastAccessed),
		DeletedDate:      ep(s.deletedDate),
		OwningService:    s.owningService,
		CreatedDate:      ep(s.created),
		PrimaryRegion:    s.primaryRegion,
	}
	if s.rotationEnabled {
		t := true
		m.RotationEnabled = &t
		m.RotationLambdaARN = fmt.Sprintf("arn:aws:lambda:%s:%s:function:emulator-rotation", e.region, e.account)
		m.RotationRules = &rotationRules{AutomaticallyAfterDays: 30}
	}
	for _, t := range s.tags {
		m.Tags = append(m.Tags, outTag{Key: t.key, Value: t.value})
	}
	for _, reg := range s.replicas {
		m.ReplicationStatus = append(m.ReplicationStatus, replicationStatus{Region: reg, Status: "InSync"})
	}
	return m
}

func (e *Emulator) describeSecret(in *secretIDIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	e.begin()
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, false)
	if aerr != nil {
		return nil, aerr
	}
	return describeOut{secretMeta: e.meta(s, r), VersionIdsToStages: s.stageMap()}, nil
}

// resolveVersion picks the version GetSecretValue reads (reference §1).
func resolveVersion(s *secret, versionID, stage *string) (*version, *apiError) {
	switch {
	case versionID != nil:
		v := s.version(*versionID)
		if v == nil {
			return nil, errf("ResourceNotFoundException", "Secrets Manager can't find the specified secret value for VersionId: %s", *versionID)
		}
		if stage != nil && !slices.Contains(s.stages[v.id], *stage) {
			return nil, errf("InvalidRequestException", "You provided a VersionStage that is not associated to the provided VersionId.")
		}
		return v, nil
	default:
		label := "AWSCURRENT"
		if stage != nil {
			label = *stage
		}
		id := s.holder(label)
		if id == "" {
			return nil, errf("ResourceNotFoundException", "Secrets Manager can't find the specified secret value for staging label: %s", label)
		}
		return s.version(id), nil
	}
}

func day(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }

func valueOut(s *secret, v *version) secretValueOut {
	return secretValueOut{
		ARN:           s.arn,
		Name:          s.name,
		VersionID:     v.id,
		SecretString:  v.str,
		SecretBinary:  v.bin,
		VersionStages: slices.Clone(s.stages[v.id]),
		CreatedDate:   ep(v.created),
	}
}

func (e *Emulator) getSecretValue(in *getSecretValueIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.VersionID != nil && (len(*in.VersionID) < minTokenLen || len(*in.VersionID) > maxTokenLen) {
		return nil, errConstraint("versionId", "Member must have length between 32 and 64")
	}
	if in.VersionStage != nil && (len(*in.VersionStage) < 1 || len(*in.VersionStage) > maxStageLen) {
		return nil, errConstraint("versionStage", "Member must have length between 1 and 256")
	}
	now, _ := e.begin()
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	v, aerr := resolveVersion(s, in.VersionID, in.VersionStage)
	if aerr != nil {
		return nil, aerr
	}
	r.lastAccessed = day(now)
	return valueOut(s, v), nil
}

func (e *Emulator) listSecretVersionIDs(in *listVersionIDsIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if err := validMaxResults(in.MaxResults, 100); err != nil {
		return nil, err
	}
	start := 0
	if in.NextToken != nil {
		n, ok := decodeOffsetToken(*in.NextToken)
		if !ok {
			return nil, errf("InvalidNextTokenException", "The NextToken value is invalid.")
		}
		start = n
	}
	e.begin()
	defer e.mu.Unlock()
	_, s, aerr := e.get(*in.SecretID, false)
	if aerr != nil {
		return nil, aerr
	}
	max := 100
	if in.MaxResults != nil {
		max = int(*in.MaxResults)
	}
	out := listVersionIDsOut{ARN: s.arn, Name: s.name, Versions: []versionEntryOut{}}
	all := in.IncludeDeprecated != nil && *in.IncludeDeprecated
	// Newest first.
	idx := 0
	for i := len(s.versions) - 1; i >= 0; i-- {
		v := s.versions[i]
		labels := s.stages[v.id]
		if len(labels) == 0 && !all {
			continue
		}
		if idx >= start {
			if len(out.Versions) == max {
				out.NextToken = encodeOffsetToken(idx)
				break
			}
			out.Versions = append(out.Versions, versionEntryOut{VersionID: v.id, VersionStages: slices.Clone(labels), CreatedDate: ep(v.created)})
		}
		idx++
	}
	return out, nil
}

func (e *Emulator) deleteSecret(in *deleteSecretIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	force := in.ForceDeleteWithoutRecovery != nil && *in.ForceDeleteWithoutRecovery
	if force && in.RecoveryWindowInDays != nil {
		return nil, errf("InvalidParameterException", "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.")
	}
	days := int64(30)
	if in.RecoveryWindowInDays != nil {
		days = *in.RecoveryWindowInDays
		if days < 7 || days > 30 {
			return nil, errf("InvalidParameterException", "The RecoveryWindowInDays value must be between 7 and 30 days (inclusive).")
		}
	}
	now, lag := e.begin()
	defer e.mu.Unlock()
	r := e.st.lookup(*in.SecretID)
	if r == nil || r.cur() == nil {
		if force { // AWS does not answer ResourceNotFoundException here.
			return deleteOut{ARN: fmt.Sprintf("arn:aws:secretsmanager:%s:%s:secret:%s", e.region, e.account, *in.SecretID), Name: *in.SecretID, DeletionDate: ep(now)}, nil
		}
		return nil, errNotFound()
	}
	s := r.cur()
	if len(s.replicas) > 0 {
		return nil, errf("InvalidRequestException", "You can't delete secret %s because it still has replica Regions. Remove the replicas first.", s.name)
	}
	if force {
		e.st.commit(r, nil, now, lag)
		e.st.compact(now, lag)
		return deleteOut{ARN: s.arn, Name: s.name, DeletionDate: ep(now)}, nil
	}
	if s.pending() {
		return nil, errMarked()
	}
	n := s.clone()
	n.deletedDate = now
	n.deletionDate = now.Add(time.Duration(days) * 24 * time.Hour)
	e.st.commit(r, n, now, lag)
	e.st.schedulePurge(r, n.deletionDate)
	return deleteOut{ARN: n.arn, Name: n.name, DeletionDate: ep(n.deletionDate)}, nil
}

func (e *Emulator) restoreSecret(in *secretIDIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	now, lag := e.begin()
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, false)
	if aerr != nil {
		return nil, aerr
	}
	if s.pending() {
		n := s.clone()
		n.deletedDate, n.deletionDate = time.Time{}, time.Time{}
		n.lastChanged = now
		e.st.commit(r, n, now, lag)
	}
	return updateStageOut{ARN: s.arn, Name: s.name}, nil
}

type emptyOut struct{}

func (e *Emulator) tagResource(in *tagResourceIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.Tags == nil {
		return nil, errMissing("tags")
	}
	add, aerr := validTags(in.Tags)
	if aerr != nil {
		return nil, aerr
	}
	now, lag := e.begin()
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	n := s.clone()
	if n.tags, aerr = mergeTags(n.tags, add); aerr != nil {
		return nil, aerr
	}
	n.lastChanged = now
	e.st.commit(r, n, now, lag)
	return emptyOut{}, nil
}

func (e *Emulator) untagResource(in *untagResourceIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.TagKeys == nil {
		return nil, errMissing("tagKeys")
	}
	for _, k := range in.TagKeys {
		if strings.HasPrefix(strings.ToLower(k), "aws:") {
			return nil, errf("InvalidParameterException", msgReservedTag)
		}
	}
	now, lag := e.begin()
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	n := s.clone()
	n.tags = slices.DeleteFunc(n.tags, func(t tag) bool { return slices.Contains(in.TagKeys, t.key) })
	n.lastChanged = now
	e.st.commit(r, n, now, lag)
	return emptyOut{}, nil
}

func (e *Emulator) updateSecretVersionStage(in *updateStageIn) (any, *apiError) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.VersionStage == nil {
		return nil, errMissing("versionStage")
	}
	stage := *in.VersionStage
	if len(stage) < 1 || len(stage) > maxStageLen {
		return nil, errConstraint("versionStage", "Member must have length between 1 and 256")
	}
	if in.RemoveFromVersionID == nil && in.MoveToVersionID == nil {
		return nil, errf("InvalidParameterException", "You must specify RemoveFromVersionId, MoveToVersionId, or both.")
	}
	now, lag := e.begin()
	defer e.mu.Unlock()
	r, s, aerr := e.get(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	holder := s.holder(stage)
	n := s.clone()
	if in.MoveToVersionID != nil {
		to := *in.MoveToVersionID
		if s.version(to) == nil {
			return nil, errf("ResourceNotFoundException", "Secrets Manager can't find the specified secret value for VersionId: %s", to)
		}
		if holder != "" && holder != to {
			if in.RemoveFromVersionID == nil {
				return nil, errf("InvalidParameterException", "The parameter RemoveFromVersionId can't be empty. Staging label %s is currently attached to version %s, so you must explicitly reference that version in RemoveFromVersionId.", stage, holder)
			}
			if *in.RemoveFromVersionID != holder {
				return nil, errf("InvalidParameterException", "Staging label %s is currently attached to version %s, not to version %s.", stage, holder, *in.RemoveFromVersionID)
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
			return nil, errf("InvalidParameterException", "Staging label %s is not attached to version %s.", stage, from)
		}
		if stage == "AWSCURRENT" {
			return nil, errf("InvalidParameterException", "You can't remove the staging label AWSCURRENT without moving it to another version with MoveToVersionId.")
		}
		n.removeLabel(stage)
	}
	n.lastChanged = now
	e.st.commit(r, n, now, lag)
	return updateStageOut{ARN: s.arn, Name: s.name}, nil
}
