package awssm

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unique"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// Options configure the adapter.
type Options struct {
	// OperationTimeout bounds each AWS call, SDK retries included
	// (--operation-timeout, SPEC §2.1). 0 means no per-call bound.
	OperationTimeout time.Duration
	// Pace is the run's rate control (internal/pace), shared with the
	// engine through Adapter.Pace; nil = a new one with pace.DefaultLimits
	// on the system clock.
	Pace *pace.Controller
	// SDKRetriesThrottles leaves throttling errors to the client's own
	// retryer (for the A/B measurement of the SDK's adaptive mode in
	// docs/reconciliation.md); by default the SDK never retries a throttle
	// and the adapter resends it after its family's next turn.
	SDKRetriesThrottles bool
}

// Adapter implements engine.Port over an aws-sdk-go-v2 Secrets Manager
// client, and the capabilities of the target secrets-manager
// (model.Target.Capabilities): engine.Restorer, engine.Replicator and
// engine.LabelMover. It is safe for concurrent use.
type Adapter struct {
	c    *secretsmanager.Client
	opt  Options
	pace *pace.Controller
	// calls time, convert, pace and resend the adapter's calls (awscore).
	calls awscore.Calls
	// callOpts are applied to every SDK call (KeepConnections, the
	// retryer wrapper).
	callOpts []func(*secretsmanager.Options)
	// noBatch is set once BatchGetSecretValue was denied.
	noBatch atomic.Bool
	// elsewhere holds one client per other Region DescribeIn read
	// (region → *secretsmanager.Client), built on first use.
	elsewhere sync.Map
}

var (
	_ engine.Port       = (*Adapter)(nil)
	_ engine.Restorer   = (*Adapter)(nil)
	_ engine.Replicator = (*Adapter)(nil)
	_ engine.LabelMover = (*Adapter)(nil)
)

// New returns an adapter over c. Every call's HTTP client is wrapped by
// KeepConnections. The client's retry settings (attempts,
// backoff, mode) are the caller's, except that throttling errors are not
// retried by the SDK: its standard retryer gives up after 3 attempts and
// its retry budget drains under sustained throttling, while a throttled
// request was not executed and is safe to resend until the run's deadline.
// Reads (DescribeSecret, GetSecretValue, BatchGetSecretValue,
// each ListSecrets page) wait for their family's turn and are resent here;
// writes are paced and resent by the engine, which re-checks the
// precondition before each attempt (SPEC §6).
func New(c *secretsmanager.Client, opt Options) *Adapter {
	a := &Adapter{c: c, opt: opt, pace: opt.Pace}
	if a.pace == nil {
		a.pace = pace.New(pace.SystemClock{}, pace.DefaultLimits())
	}
	a.calls = awscore.Calls{Timeout: opt.OperationTimeout, Pace: a.pace, Codes: codes}
	// Every call goes through the body guard: without it the SDK re-sends a
	// call the service already answered when the request's last write races
	// the SDK closing the body (awscore.GuardBody), one extra call per
	// occurrence.
	a.callOpts = []func(*secretsmanager.Options){KeepConnections}
	if !opt.SDKRetriesThrottles {
		a.callOpts = append(a.callOpts, func(o *secretsmanager.Options) {
			o.Retryer = awscore.NoThrottleRetry(o.Retryer)
		})
	}
	return a
}

// Pace returns the run's rate control: the engine takes write turns from
// it and reads its throttling counts.
func (a *Adapter) Pace() *pace.Controller { return a.pace }

// read runs one read call of family f until it is answered with anything
// but a throttle (awscore.Calls.Read).
func (a *Adapter) read(ctx context.Context, f pace.Family, op string, call func(ctx context.Context) error) error {
	return a.calls.Read(ctx, f, op, call)
}

// call is the context of one call under the operation timeout
// (awscore.Calls.Bound).
func (a *Adapter) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return a.calls.Bound(ctx)
}

// listPageSize is ListSecrets' maximum MaxResults (AWS API reference).
const listPageSize = 100

// ListCandidates implements engine.Port: ListSecrets with
// IncludePlannedDeletion, filtered on the managed-by tag key and, with
// scopeDigest, on the scope digest as a tag value, MaxResults 100. Pages
// are fetched one after the other; each page is one call under the
// operation timeout.
func (a *Adapter) ListCandidates(ctx context.Context, scopeDigest string) ([]engine.Candidate, error) {
	in := &secretsmanager.ListSecretsInput{
		IncludePlannedDeletion: aws.Bool(true),
		MaxResults:             aws.Int32(listPageSize),
		Filters: []types.Filter{
			{Key: types.FilterNameStringTypeTagKey, Values: []string{model.TagManagedBy}},
		},
	}
	if scopeDigest != "" {
		in.Filters = append(in.Filters, types.Filter{Key: types.FilterNameStringTypeTagValue, Values: []string{scopeDigest}})
	}
	p := secretsmanager.NewListSecretsPaginator(a.c, in)
	var out []engine.Candidate
	for p.HasMorePages() {
		// A failed NextPage keeps its NextToken: a throttled page is resent.
		var page *secretsmanager.ListSecretsOutput
		err := a.read(ctx, pace.Lists, "ListSecrets", func(cctx context.Context) (err error) {
			page, err = p.NextPage(cctx, a.callOpts...)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, e := range page.SecretList {
			c := engine.Candidate{Name: own(e.Name), ARN: own(e.ARN), Deleted: e.DeletedDate != nil,
				Tags: make(map[string]string, len(e.Tags)), PrimaryRegion: own(e.PrimaryRegion)}
			for _, t := range e.Tags {
				c.Tags[ownTagKey(t.Key)] = ownTagValue(t.Key, t.Value)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// ListNames lists every secret whose name starts with prefix + "/",
// whatever its tags (import's candidates, SPEC §18): ListSecrets pages
// filtered server-side on the name (a prefix match that AWS may answer
// case-insensitively, so each name is checked again here), secrets
// scheduled for deletion left out (their value cannot be read). Sorted.
func (a *Adapter) ListNames(ctx context.Context, prefix string) ([]string, error) {
	in := &secretsmanager.ListSecretsInput{
		MaxResults: aws.Int32(listPageSize),
		Filters:    []types.Filter{{Key: types.FilterNameStringTypeName, Values: []string{prefix + "/"}}},
	}
	p := secretsmanager.NewListSecretsPaginator(a.c, in)
	var out []string
	for p.HasMorePages() {
		var page *secretsmanager.ListSecretsOutput
		err := a.read(ctx, pace.Lists, "ListSecrets", func(cctx context.Context) (err error) {
			page, err = p.NextPage(cctx, a.callOpts...)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, e := range page.SecretList {
			if n := own(e.Name); strings.HasPrefix(n, prefix+"/") && e.DeletedDate == nil {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Describe implements engine.Port: DescribeSecret.
func (a *Adapter) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	return a.describe(ctx, a.c, id)
}

// Region implements engine.Replicator: the Region of the adapter's client.
func (a *Adapter) Region() string { return a.c.Options().Region }

// DescribeIn implements engine.Replicator: DescribeSecret in the other
// Region, reached through a second client built from this one's options
// with only the Region replaced: the same credentials (the same account,
// as replication requires), HTTP client, retryer and endpoint settings,
// so an endpoint override (AWS_ENDPOINT_URL_SECRETS_MANAGER) applies to
// it too. It reads under the same pace as the adapter's own reads.
func (a *Adapter) DescribeIn(ctx context.Context, region, name string) (plan.ObservedSecret, error) {
	c, ok := a.elsewhere.Load(region)
	if !ok {
		c, _ = a.elsewhere.LoadOrStore(region, secretsmanager.New(a.c.Options(), func(o *secretsmanager.Options) { o.Region = region }))
	}
	return a.describe(ctx, c.(*secretsmanager.Client), name)
}

func (a *Adapter) describe(ctx context.Context, client *secretsmanager.Client, id string) (plan.ObservedSecret, error) {
	var d *secretsmanager.DescribeSecretOutput
	err := a.read(ctx, pace.Reads, "DescribeSecret", func(cctx context.Context) (err error) {
		d, err = client.DescribeSecret(cctx, &secretsmanager.DescribeSecretInput{SecretId: aws.String(id)}, a.callOpts...)
		return err
	})
	if err != nil {
		if isCode(err, "ResourceNotFoundException") {
			return plan.ObservedSecret{}, nil
		}
		return plan.ObservedSecret{}, err
	}
	o := plan.ObservedSecret{
		Exists:          true,
		ARN:             ownAs(d.ARN, id),
		Name:            ownAs(d.Name, id),
		Tags:            make(map[string]string, len(d.Tags)),
		KMSKeyID:        own(d.KmsKeyId),
		Description:     own(d.Description),
		Deleted:         d.DeletedDate != nil,
		OwningService:   own(d.OwningService),
		RotationEnabled: aws.ToBool(d.RotationEnabled),
		Versions:        ownVersions(d.VersionIdsToStages),
		PrimaryRegion:   own(d.PrimaryRegion),
	}
	for _, t := range d.Tags {
		o.Tags[ownTagKey(t.Key)] = ownTagValue(t.Key, t.Value)
	}
	// The status message is provider text: never kept.
	for _, r := range d.ReplicationStatus {
		o.Replicas = append(o.Replicas, plan.ObservedReplica{Region: own(r.Region),
			KMSKeyID: own(r.KmsKeyId), Status: strings.Clone(string(r.Status))})
	}
	slices.SortFunc(o.Replicas, func(x, y plan.ObservedReplica) int { return strings.Compare(x.Region, y.Region) })
	for _, r := range o.Replicas {
		o.ReplicaRegions = append(o.ReplicaRegions, r.Region)
	}
	return o, nil
}

// replicaInput is the SDK's list of replica Regions (AddReplicaRegions):
// Region and, when configured, the replica's KMS key.
func replicaInput(rs []model.Replica) []types.ReplicaRegionType {
	out := make([]types.ReplicaRegionType, 0, len(rs))
	for _, r := range rs {
		t := types.ReplicaRegionType{Region: aws.String(r.Region)}
		if r.KMSKeyID != "" {
			t.KmsKeyId = aws.String(r.KMSKeyID)
		}
		out = append(out, t)
	}
	return out
}

// Replicate implements engine.Replicator (ReplicateSecretToRegions, never
// ForceOverwriteReplicaSecret).
func (a *Adapter) Replicate(ctx context.Context, id string, replicas []model.Replica) error {
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.ReplicateSecretToRegions(cctx, &secretsmanager.ReplicateSecretToRegionsInput{
		SecretId: aws.String(id), AddReplicaRegions: replicaInput(replicas),
		ForceOverwriteReplicaSecret: false,
	}, a.callOpts...)
	return convert(ctx, "ReplicateSecretToRegions", err)
}

// RemoveReplicas implements engine.Replicator
// (RemoveRegionsFromReplication).
func (a *Adapter) RemoveReplicas(ctx context.Context, id string, regions []string) error {
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.RemoveRegionsFromReplication(cctx, &secretsmanager.RemoveRegionsFromReplicationInput{
		SecretId: aws.String(id), RemoveReplicaRegions: slices.Clone(regions),
	}, a.callOpts...)
	return convert(ctx, "RemoveRegionsFromReplication", err)
}

// Create implements engine.Port: CreateSecret with the value in
// SecretBinary for model.KindBinary, else in SecretString, the tags, the
// token as ClientRequestToken, and the replicas as AddReplicaRegions.
func (a *Adapter) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	tags := make([]types.Tag, 0, len(req.Tags))
	for _, k := range slices.Sorted(maps.Keys(req.Tags)) {
		tags = append(tags, types.Tag{Key: aws.String(k), Value: aws.String(req.Tags[k])})
	}
	cctx, cancel := a.call(ctx)
	defer cancel()
	in := &secretsmanager.CreateSecretInput{
		Name:               aws.String(req.Name),
		Tags:               tags,
		ClientRequestToken: aws.String(req.Token),
	}
	in.SecretString, in.SecretBinary = payload(req.Value, req.Kind)
	if req.KMSKeyID != "" {
		in.KmsKeyId = aws.String(req.KMSKeyID)
	}
	if req.Description != "" {
		in.Description = aws.String(req.Description)
	}
	if len(req.Replicas) > 0 {
		// Never ForceOverwriteReplicaSecret: a same-name secret in a replica
		// Region is a conflict (replica-clash), not something to replace.
		in.AddReplicaRegions = replicaInput(req.Replicas)
	}
	out, err := a.c.CreateSecret(cctx, in, a.callOpts...)
	if err != nil {
		return engine.WriteResult{}, convert(ctx, "CreateSecret", err)
	}
	return engine.WriteResult{ARN: aws.ToString(out.ARN), VersionID: aws.ToString(out.VersionId)}, nil
}

// PutValue implements engine.Port: PutSecretValue (a new AWSCURRENT
// version) with the token as ClientRequestToken, the value as for Create.
func (a *Adapter) PutValue(ctx context.Context, id string, value []byte, kind model.ValueKind, token string) (engine.WriteResult, error) {
	cctx, cancel := a.call(ctx)
	defer cancel()
	in := &secretsmanager.PutSecretValueInput{
		SecretId:           aws.String(id),
		ClientRequestToken: aws.String(token),
	}
	in.SecretString, in.SecretBinary = payload(value, kind)
	out, err := a.c.PutSecretValue(cctx, in, a.callOpts...)
	if err != nil {
		return engine.WriteResult{}, convert(ctx, "PutSecretValue", err)
	}
	return engine.WriteResult{ARN: aws.ToString(out.ARN), VersionID: aws.ToString(out.VersionId)}, nil
}

// payload is the one field a version's value goes in: SecretBinary (the
// exact bytes; the SDK base64-encodes them on the wire) for KindBinary,
// SecretString otherwise (AWS API reference, CreateSecret and
// PutSecretValue: exactly one of the two).
func payload(value []byte, kind model.ValueKind) (*string, []byte) {
	if kind.Binary() {
		return nil, slices.Clone(value)
	}
	return aws.String(string(value)), nil
}

// Delete implements engine.Port: DeleteSecret with RecoveryWindowInDays,
// never ForceDeleteWithoutRecovery (SPEC §5).
func (a *Adapter) Delete(ctx context.Context, id string, recoveryWindowDays int) error {
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.DeleteSecret(cctx, &secretsmanager.DeleteSecretInput{
		SecretId:             aws.String(id),
		RecoveryWindowInDays: aws.Int64(int64(recoveryWindowDays)),
	}, a.callOpts...)
	return convert(ctx, "DeleteSecret", err)
}

// Restore implements engine.Restorer: RestoreSecret.
func (a *Adapter) Restore(ctx context.Context, id string) error {
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.RestoreSecret(cctx, &secretsmanager.RestoreSecretInput{SecretId: aws.String(id)}, a.callOpts...)
	return convert(ctx, "RestoreSecret", err)
}

// UpdateMetadata implements engine.Port: UpdateSecret with KmsKeyId and/or
// Description and no value, so no version is created.
func (a *Adapter) UpdateMetadata(ctx context.Context, id string, kmsKeyID, description *string) error {
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.UpdateSecret(cctx, &secretsmanager.UpdateSecretInput{
		SecretId:    aws.String(id),
		KmsKeyId:    kmsKeyID,
		Description: description,
	}, a.callOpts...)
	return convert(ctx, "UpdateSecret", err)
}

// Tag implements engine.Port (TagResource).
func (a *Adapter) Tag(ctx context.Context, id string, tags map[string]string) error {
	list := make([]types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		list = append(list, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.TagResource(cctx, &secretsmanager.TagResourceInput{SecretId: aws.String(id), Tags: list}, a.callOpts...)
	return convert(ctx, "TagResource", err)
}

// MoveLabel implements engine.LabelMover: UpdateSecretVersionStage of the
// staging label, with RemoveFromVersionId from, and MoveToVersionId unless
// to is "". AWS refuses it (InvalidParameterException) when from does not
// hold the label (AWS API reference, UpdateSecretVersionStage).
func (a *Adapter) MoveLabel(ctx context.Context, id, label, to, from string) error {
	in := &secretsmanager.UpdateSecretVersionStageInput{SecretId: aws.String(id), VersionStage: aws.String(label),
		RemoveFromVersionId: aws.String(from)}
	if to != "" {
		in.MoveToVersionId = aws.String(to)
	}
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.UpdateSecretVersionStage(cctx, in, a.callOpts...)
	return convert(ctx, "UpdateSecretVersionStage", err)
}

// own returns a copy of the SDK's string that shares no memory with the
// response. The SDK's JSON decoder hands out strings carved from one
// arena block per response (smithy-go serde.StringArena, up to 4 KiB), so
// keeping a single name or tag from a response kept the whole block: at
// 50,000 secrets, the observation held tens of MiB of arenas for a few
// hundred bytes of fields each (heap profile, docs/benchmarks.md).
func own(p *string) string {
	if p == nil {
		return ""
	}
	return strings.Clone(*p)
}

// ownAs is own for a field that may equal id, what the caller described
// the secret by (its name, or its ARN once known): the caller's string then
// serves, so an observation holds a desired name or a known ARN once (at
// 50,000 secrets a second copy of every name was 2 MiB of live heap).
func ownAs(p *string, id string) string {
	if p != nil && *p == id {
		return id
	}
	return own(p)
}

// ownVersions is DescribeSecret's VersionIdsToStages as plan.Versions,
// sorted by version id, sharing no memory with the response (see own). The
// staging labels are the same few strings on every secret (AWSCURRENT,
// AWSPREVIOUS, AWSPENDING) and are interned like tag keys.
func ownVersions(m map[string][]string) []plan.Version {
	if len(m) == 0 {
		return nil
	}
	out := make([]plan.Version, 0, len(m))
	for id, stages := range m {
		cp := make([]string, len(stages))
		for i, st := range stages {
			cp[i] = unique.Make(st).Value()
		}
		out = append(out, plan.Version{ID: strings.Clone(id), Stages: cp})
	}
	slices.SortFunc(out, func(x, y plan.Version) int { return strings.Compare(x.ID, y.ID) })
	return out
}

// ownTagKey is own for a tag key: the keys the tool reads are the same few
// strings on every secret, so they are interned (unique.Make) rather than
// copied once per secret and per observation.
func ownTagKey(p *string) string {
	if p == nil {
		return ""
	}
	return unique.Make(*p).Value()
}

// ownTagValue is own for a tag value: the values of the managed-by and
// scope tags are shared by every secret of a scope and are interned; any
// other value (the per-document source tag, foreign tags) is copied.
func ownTagValue(key, p *string) string {
	if p == nil {
		return ""
	}
	switch aws.ToString(key) {
	case model.TagManagedBy, model.TagScope:
		return unique.Make(*p).Value()
	}
	return strings.Clone(*p)
}
