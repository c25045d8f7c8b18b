package awssm

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// GetCurrentValues implements engine.Port (AWSCURRENT is the current
// version).
//
// One request is read with GetSecretValue by VersionId and
// VersionStage=AWSCURRENT (SPEC §4), which answers only if that version is
// still current. Two or more are read with one BatchGetSecretValue (ids are
// ARNs): an entry whose VersionId differs from the expected one is a
// StageMismatch; an entry that failed or is absent is re-read on its own
// with GetSecretValue. For that single read, InvalidRequestException (the
// version is not AWSCURRENT, or the secret became scheduled for deletion —
// AWS gives both the same code, and we never infer state from message text)
// is reported as StageMismatch, ResourceNotFoundException as Missing.
// When BatchGetSecretValue is denied (AccessDeniedException) the adapter
// falls back to single reads for the rest of its life.
func (a *Adapter) GetCurrentValues(ctx context.Context, reqs []engine.ValueRequest) ([]plan.CurrentValue, error) {
	if len(reqs) > engine.MaxValueBatch {
		return nil, &engine.Error{Operation: "BatchGetSecretValue", Code: awscore.CodeClientValidation, Fault: engine.FaultClient}
	}
	out := make([]plan.CurrentValue, len(reqs))
	pending := make([]bool, len(reqs))
	if len(reqs) == 1 || a.noBatch.Load() {
		for i := range pending {
			pending[i] = true
		}
	} else if len(reqs) > 1 {
		ids := make([]string, len(reqs))
		for i, r := range reqs {
			ids[i] = r.ID
		}
		var res *secretsmanager.BatchGetSecretValueOutput
		err := a.read(ctx, pace.Batches, "BatchGetSecretValue", func(cctx context.Context) (err error) {
			res, err = a.c.BatchGetSecretValue(cctx, &secretsmanager.BatchGetSecretValueInput{SecretIdList: ids}, a.callOpts...)
			return err
		})
		if isCode(err, "AccessDeniedException") {
			// A policy scoped to the prefix often lacks
			// secretsmanager:BatchGetSecretValue on "*" (SPEC §9): read one
			// by one from now on; GetSecretValue is checked per secret.
			a.noBatch.Store(true)
			err = nil
			res = &secretsmanager.BatchGetSecretValueOutput{}
		}
		if err != nil {
			return nil, err
		}
		for i, r := range reqs {
			pending[i] = true
			for _, e := range res.SecretValues {
				if aws.ToString(e.ARN) != r.ID && aws.ToString(e.Name) != r.Name {
					continue
				}
				v := value(ownVersionID(e.VersionId, r), e.SecretString, e.SecretBinary)
				v.StageMismatch = v.VersionID != r.CurrentVersionID
				out[i], pending[i] = v, false
				break
			}
		}
	}
	for i, r := range reqs {
		if !pending[i] {
			continue
		}
		v, err := a.getOne(ctx, r)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (a *Adapter) getOne(ctx context.Context, r engine.ValueRequest) (plan.CurrentValue, error) {
	var res *secretsmanager.GetSecretValueOutput
	err := a.read(ctx, pace.Reads, "GetSecretValue", func(cctx context.Context) (err error) {
		res, err = a.c.GetSecretValue(cctx, &secretsmanager.GetSecretValueInput{
			SecretId:     aws.String(r.ID),
			VersionId:    aws.String(r.CurrentVersionID),
			VersionStage: aws.String(plan.StageCurrent),
		}, a.callOpts...)
		return err
	})
	if err != nil {
		switch {
		case isCode(err, "ResourceNotFoundException"):
			return plan.CurrentValue{Missing: true}, nil
		case isCode(err, "InvalidRequestException"):
			return plan.CurrentValue{StageMismatch: true}, nil
		}
		return plan.CurrentValue{}, err
	}
	v := value(ownVersionID(res.VersionId, r), res.SecretString, res.SecretBinary)
	v.StageMismatch = v.VersionID != r.CurrentVersionID
	return v, nil
}

// ownVersionID is own for the version id of a value read for r: when it is
// the id DescribeSecret showed as current (the usual case) the string
// already held for it, so the observation holds it once.
func ownVersionID(p *string, r engine.ValueRequest) string {
	if p != nil && *p == r.CurrentVersionID {
		return r.CurrentVersionID
	}
	return own(p)
}

func value(versionID string, s *string, b []byte) plan.CurrentValue {
	v := plan.CurrentValue{VersionID: versionID}
	if s != nil {
		v.HasString, v.String = true, []byte(*s)
	}
	if b != nil {
		v.HasBinary, v.Binary = true, b
	}
	return v
}
