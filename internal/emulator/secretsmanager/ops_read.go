package secretsmanager

import (
	"fmt"
	"slices"
	"time"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/core"
)

// Read operations: DescribeSecret, GetSecretValue, ListSecretVersionIds.

// meta renders the fields DescribeSecret and ListSecrets share.
func (e *Call) meta(s *secret, r *record) secretMeta {
	m := secretMeta{
		ARN:              s.arn,
		Name:             s.name,
		Description:      s.description,
		KmsKeyID:         s.kmsKeyID,
		LastChangedDate:  core.Ep(s.lastChanged),
		LastAccessedDate: core.Ep(r.lastAccessed),
		DeletedDate:      core.Ep(s.deletedDate),
		OwningService:    s.owningService,
		CreatedDate:      core.Ep(s.created),
		PrimaryRegion:    s.primaryRegion,
	}
	if s.rotationSet { // AWS leaves RotationEnabled out until rotation was configured
		enabled := s.rotationEnabled
		m.RotationEnabled = &enabled
		m.RotationLambdaARN = fmt.Sprintf("arn:aws:lambda:%s:%s:function:emulator-rotation", e.Region, e.Account)
		m.RotationRules = &rotationRules{AutomaticallyAfterDays: rotationDays}
		if enabled {
			m.NextRotationDate = core.Ep(nextRotation(s))
		}
	}
	m.LastRotatedDate = core.Ep(s.lastRotated)
	for _, t := range s.tags {
		m.Tags = append(m.Tags, core.TagOut{Key: t.key, Value: t.value})
	}
	now := e.Now()
	for _, rs := range s.replicas {
		m.ReplicationStatus = append(m.ReplicationStatus, rs.out(now))
	}
	return m
}

// describeSecret: reference §1, §4. Answers for a secret scheduled for
// deletion too (with DeletedDate).
func (e *Call) describeSecret(in *secretIDIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	e.begin()
	defer e.Unlock()
	r, s, aerr := e.get(*in.SecretID, false)
	if aerr != nil {
		return nil, aerr
	}
	return describeOut{secretMeta: e.meta(s, r), VersionIdsToStages: s.stageMap()}, nil
}

// resolveVersion picks the version GetSecretValue reads (reference §1).
func resolveVersion(s *secret, versionID, stage *string) (*version, *core.Error) {
	switch {
	case versionID != nil:
		v := s.version(*versionID)
		if v == nil {
			return nil, core.Errf("ResourceNotFoundException", "Secrets Manager can't find the specified secret value for VersionId: %s", *versionID)
		}
		if stage != nil && !slices.Contains(s.stages[v.id], *stage) {
			return nil, core.Errf("InvalidRequestException", "You provided a VersionStage that is not associated to the provided VersionId.")
		}
		return v, nil
	default:
		label := "AWSCURRENT"
		if stage != nil {
			label = *stage
		}
		id := s.holder(label)
		if id == "" {
			return nil, core.Errf("ResourceNotFoundException", "Secrets Manager can't find the specified secret value for staging label: %s", label)
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
		CreatedDate:   core.Ep(v.created),
	}
}

// getSecretValue: reference §1 GetSecretValue; refuses a secret scheduled
// for deletion; sets LastAccessedDate at day resolution.
func (e *Call) getSecretValue(in *getSecretValueIn) (any, *core.Error) {
	if err := validSecretID(in.SecretID); err != nil {
		return nil, err
	}
	if in.VersionID != nil && (len(*in.VersionID) < minTokenLen || len(*in.VersionID) > maxTokenLen) {
		return nil, core.ErrConstraint("versionId", "Member must have length between 32 and 64")
	}
	if in.VersionStage != nil && (len(*in.VersionStage) < 1 || len(*in.VersionStage) > maxStageLen) {
		return nil, core.ErrConstraint("versionStage", "Member must have length between 1 and 256")
	}
	now, _ := e.begin()
	defer e.Unlock()
	r, s, aerr := e.get(*in.SecretID, true)
	if aerr != nil {
		return nil, aerr
	}
	v, aerr := resolveVersion(s, in.VersionID, in.VersionStage)
	if aerr != nil {
		return nil, aerr
	}
	if aerr := e.decrypt(v); aerr != nil {
		return nil, aerr
	}
	r.lastAccessed = day(now)
	return valueOut(s, v), nil
}

// listSecretVersionIDs: reference §1 ListSecretVersionIds, newest first;
// deprecated versions only with IncludeDeprecated. Works while scheduled.
func (e *Call) listSecretVersionIDs(in *listVersionIDsIn) (any, *core.Error) {
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
			return nil, core.Errf("InvalidNextTokenException", "The NextToken value is invalid.")
		}
		start = n
	}
	e.begin()
	defer e.Unlock()
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
			out.Versions = append(out.Versions, versionEntryOut{VersionID: v.id, VersionStages: slices.Clone(labels), CreatedDate: core.Ep(v.created), KmsKeyIDs: keyIDsOut(v)})
		}
		idx++
	}
	return out, nil
}
