package awsps

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awscore"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// Options configure the adapter.
type Options struct {
	// OperationTimeout bounds each AWS call, SDK retries included
	// (--operation-timeout). 0 means no per-call bound.
	OperationTimeout time.Duration
	// Pace is the scope's rate control; nil = a new one with
	// pace.ParameterStoreLimits on the system clock. Parameter Store's
	// quotas are its own: never share Secrets Manager's controller.
	Pace *pace.Controller
	// Prefix is the scope's secret prefix (config.Desired.SecretPrefix):
	// discovery lists the hierarchy under its parameter name only, and a
	// prefix that begins with "/" keeps the names the engine uses equal to
	// the parameter names (model.ParameterName).
	Prefix string
	// ScopeDigest is the scope's digest (model.Scope.Digest): discovery of
	// every managed parameter (ListCandidates with "") tells this scope's
	// from the others' by a tag filter on it, without reading tags.
	ScopeDigest string
	// Tier is parameter-tier (model.TierStandard or TierAdvanced): the tier
	// of a created parameter, and of a written one when advanced. A write
	// to a Standard scope's existing parameter names no tier, so an
	// Advanced parameter stays Advanced (AWS never turns one back).
	Tier string
	// KMSKeyID is the configured kms-key-id ("" = not given): every
	// PutParameter names it, or alias/aws/ssm when not given, so an
	// overwrite never changes the key by omission.
	KMSKeyID string
	// Description is the configured description ("" = not given: a write
	// names none, and Parameter Store keeps the one the parameter has).
	Description string
}

// DefaultKeyID is the key of a SecureString parameter when kms-key-id is
// not given: the AWS managed key of Systems Manager (SSM API reference,
// PutParameter KeyId).
const DefaultKeyID = "alias/aws/ssm"

// Adapter implements engine.Port over a Systems Manager client, and the
// one capability of the target parameter-store
// (model.Target.Capabilities): engine.Surveyor. A parameter is never
// restored, replicated or relabelled: the adapter has no such method, and
// config refuses the settings that would need one (model.Target.Refuses).
// It is safe for concurrent use.
type Adapter struct {
	c        *ssm.Client
	opt      Options
	pace     *pace.Controller
	calls    awscore.Calls // time, convert, pace and resend the calls
	callOpts []func(*ssm.Options)
	putOpts  []func(*ssm.Options) // callOpts and sendOnce
}

var (
	_ engine.Port     = (*Adapter)(nil)
	_ engine.Surveyor = (*Adapter)(nil)
)

// New returns an adapter over c: every call's HTTP client guarded
// (awscore.GuardBody), throttles left to the adapter (reads) and the
// engine (writes) rather than the SDK's retryer (awscore.NoThrottleRetry).
func New(c *ssm.Client, opt Options) *Adapter {
	a := &Adapter{c: c, opt: opt, pace: opt.Pace}
	if a.pace == nil {
		a.pace = pace.New(pace.SystemClock{}, pace.ParameterStoreLimits())
	}
	a.calls = awscore.Calls{Timeout: opt.OperationTimeout, Pace: a.pace, Codes: codes}
	a.callOpts = []func(*ssm.Options){func(o *ssm.Options) {
		o.HTTPClient = awscore.GuardBody(o.HTTPClient)
		o.Retryer = awscore.NoThrottleRetry(o.Retryer)
	}}
	a.putOpts = append(slices.Clip(a.callOpts), sendOnce)
	return a
}

// sendOnce makes a PutParameter one attempt: the SDK's retryer would
// resend a request whose answer was lost (a closed connection, a 5xx),
// and PutParameter has no idempotency token, so a resend with
// Overwrite=true writes a second version over whatever is there (SPEC
// §16: an ambiguous write is judged by observing version and value,
// never resent blindly). The engine judges the outcome and resends at
// most once, only while the version planning saw is still current.
func sendOnce(o *ssm.Options) { o.Retryer = aws.NopRetryer{}; o.RetryMaxAttempts = 1 }

// Pace returns the scope's rate control (engine.Paced).
func (a *Adapter) Pace() *pace.Controller { return a.pace }

// codes are Parameter Store's error codes that may be reported verbatim
// (SSM API reference, the errors of the operations the adapter calls,
// and the generic ones every AWS service returns); any other is
// UnknownError.
var codes = awscore.Codes{Known: map[string]bool{
	"InternalServerError": true, "ParameterNotFound": true, "ParameterAlreadyExists": true,
	"ParameterLimitExceeded": true, "ParameterMaxVersionLimitExceeded": true, "ParameterPatternMismatchException": true,
	"ParameterVersionNotFound": true, "HierarchyLevelLimitExceededException": true, "HierarchyTypeMismatchException": true,
	"IncompatiblePolicyException": true, "InvalidAllowedPatternException": true, "InvalidKeyId": true,
	"InvalidPolicyAttributeException": true, "InvalidPolicyTypeException": true, "PoliciesLimitExceededException": true,
	"TooManyUpdates": true, "UnsupportedParameterType": true, "InvalidFilterKey": true, "InvalidFilterOption": true,
	"InvalidFilterValue": true, "InvalidNextToken": true, "InvalidResourceId": true, "InvalidResourceType": true,
	"TooManyTagsError": true, "ThrottlingException": true, "ValidationException": true, "AccessDeniedException": true,
	"UnrecognizedClientException": true, "InvalidSignatureException": true, "ExpiredTokenException": true,
	"IncompleteSignature": true, "ServiceUnavailable": true, "RequestTimeout": true, "RequestTimeoutException": true,
}, NotFound: "ParameterNotFound", Exists: "ParameterAlreadyExists",
	// TooManyUpdates: "there are concurrent updates for a resource that
	// supports one update at a time" (PutParameter's errors); nothing was
	// applied, so the engine observes again and resends, as for a throttle.
	Refused: map[string]bool{"TooManyUpdates": true}}

func convert(ctx context.Context, op string, err error) error {
	return awscore.ConvertError(ctx, op, err, codes)
}

// call is the context of one call under the operation timeout
// (awscore.Calls.Bound).
func (a *Adapter) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return a.calls.Bound(ctx)
}

// read runs one read of family f until it is answered with anything but
// a throttle (awscore.Calls.Read).
func (a *Adapter) read(ctx context.Context, f pace.Family, op string, call func(ctx context.Context) error) error {
	return a.calls.Read(ctx, f, op, call)
}

// paramName is the parameter name of an id the engine passes: a
// parameter ARN (arn:PARTITION:ssm:REGION:ACCOUNT:parameter/NAME, whose
// NAME lacks the leading "/") or a secret name (model.ParameterName).
func paramName(id string) string {
	if strings.HasPrefix(id, "arn:") {
		if _, rest, ok := strings.Cut(id, ":parameter/"); ok {
			return "/" + rest
		}
	}
	return model.ParameterName(id)
}

// secretName is the name the engine knows a parameter by: the parameter
// name itself when the prefix begins with "/", else without its "/".
func (a *Adapter) secretName(param string) string {
	if strings.HasPrefix(a.opt.Prefix, "/") {
		return param
	}
	return strings.TrimPrefix(param, "/")
}

// describePageSize is DescribeParameters' maximum MaxResults (SSM API
// reference).
const describePageSize = 50

// describe pages DescribeParameters with filters (Lists for discovery,
// Reads for one name) and hands each entry to keep; keep returns false to
// stop.
func (a *Adapter) describe(ctx context.Context, f pace.Family, filters []types.ParameterStringFilter, keep func(types.ParameterMetadata) bool) error {
	p := ssm.NewDescribeParametersPaginator(a.c, &ssm.DescribeParametersInput{
		ParameterFilters: filters, MaxResults: aws.Int32(describePageSize),
	})
	for p.HasMorePages() {
		var page *ssm.DescribeParametersOutput
		err := a.read(ctx, f, "DescribeParameters", func(cctx context.Context) (err error) {
			page, err = p.NextPage(cctx, a.callOpts...)
			return err
		})
		if err != nil {
			return err
		}
		for _, m := range page.Parameters {
			if !keep(m) {
				return nil
			}
		}
	}
	return nil
}

func filter(key, option string, values ...string) types.ParameterStringFilter {
	f := types.ParameterStringFilter{Key: aws.String(key), Values: values}
	if option != "" {
		f.Option = aws.String(option)
	}
	return f
}

// pathFilter limits discovery to the hierarchy under the scope's prefix:
// every name the scope may own lies there (SPEC §9), and so does every
// parameter of another scope that the orphan check compares.
func (a *Adapter) pathFilter() []types.ParameterStringFilter {
	return []types.ParameterStringFilter{filter("Path", "Recursive", model.ParameterName(a.opt.Prefix))}
}

// ListCandidates implements engine.Port: DescribeParameters pages under
// the prefix's hierarchy, filtered by tag (AWS filters by tag, but does not
// return tags). With scopeDigest, one listing filtered on the scope tag.
// With "" (every managed parameter, for the orphan check), the same
// listing for this scope's digest (Options.ScopeDigest) and one filtered on
// the managed-by tag; only the entries of the second that the first lacks
// (another scope's, rare) have their tags read, one ListTagsForResource
// each: the filter cannot tell their scope and source.
func (a *Adapter) ListCandidates(ctx context.Context, scopeDigest string) ([]engine.Candidate, error) {
	return a.list(ctx, scopeDigest, nil)
}

// ListScope implements engine.Surveyor: ListCandidates with the scope's
// own digest (Options.ScopeDigest), each entry handed to each as its page
// arrives.
func (a *Adapter) ListScope(ctx context.Context, each func(engine.Candidate)) ([]engine.Candidate, error) {
	return a.list(ctx, a.opt.ScopeDigest, each)
}

// list is ListCandidates, handing this scope's entries to each (nil: none)
// as their pages arrive.
func (a *Adapter) list(ctx context.Context, scopeDigest string, each func(engine.Candidate)) ([]engine.Candidate, error) {
	own := scopeDigest
	if own == "" {
		own = a.opt.ScopeDigest
	}
	var out []engine.Candidate
	mine := map[string]bool{}
	proved := map[string]string{model.TagManagedBy: model.ManagedByValue, model.TagScope: own}
	err := a.describe(ctx, pace.Lists, append(a.pathFilter(), filter("tag:"+model.TagScope, "", own),
		filter("tag:"+model.TagManagedBy, "", model.ManagedByValue)), func(m types.ParameterMetadata) bool {
		name := aws.ToString(m.Name)
		mine[a.secretName(name)] = true
		listed := a.observed(&m, maps.Clone(proved))
		c := engine.Candidate{Name: a.secretName(name), ARN: idOf(&m),
			Tags: map[string]string{model.TagScope: own}, Listed: &listed}
		out = append(out, c)
		if each != nil {
			each(c)
		}
		return true
	})
	if err != nil || scopeDigest != "" {
		return out, err
	}
	others, err := a.others(ctx, mine)
	return append(out, others...), err
}

// Others implements engine.Surveyor: the managed parameters under the
// prefix's hierarchy that are not this scope's (Options.ScopeDigest),
// each with its tags.
func (a *Adapter) Others(ctx context.Context, own map[string]bool) ([]engine.Candidate, error) {
	return a.others(ctx, own)
}

// others lists the managed parameters under the prefix (filtered on the
// managed-by tag) and reads the tags of those whose engine name is not in
// mine: the filter cannot tell another scope's.
func (a *Adapter) others(ctx context.Context, mine map[string]bool) ([]engine.Candidate, error) {
	var out []engine.Candidate
	var others []types.ParameterMetadata
	err := a.describe(ctx, pace.Lists, append(a.pathFilter(), filter("tag:"+model.TagManagedBy, "", model.ManagedByValue)), func(m types.ParameterMetadata) bool {
		if !mine[a.secretName(aws.ToString(m.Name))] {
			others = append(others, m)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for _, m := range others {
		tags, found, err := a.tags(ctx, aws.ToString(m.Name))
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, engine.Candidate{Name: a.secretName(aws.ToString(m.Name)), ARN: idOf(&m), Tags: tags})
		}
	}
	return out, nil
}

// tags reads a parameter's tags (ListTagsForResource); found is false when
// the parameter is gone.
func (a *Adapter) tags(ctx context.Context, name string) (map[string]string, bool, error) {
	var out *ssm.ListTagsForResourceOutput
	err := a.read(ctx, pace.Reads, "ListTagsForResource", func(cctx context.Context) (err error) {
		out, err = a.c.ListTagsForResource(cctx, &ssm.ListTagsForResourceInput{
			ResourceType: types.ResourceTypeForTaggingParameter, ResourceId: aws.String(name)}, a.callOpts...)
		return err
	})
	if err != nil {
		if isCode(err, "InvalidResourceId") || isCode(err, codes.NotFound) {
			return nil, false, nil
		}
		return nil, false, err
	}
	tags := make(map[string]string, len(out.TagList))
	for _, t := range out.TagList {
		tags[strings.Clone(aws.ToString(t.Key))] = strings.Clone(aws.ToString(t.Value))
	}
	return tags, true, nil
}

// Describe implements engine.Port: one DescribeParameters (filter Name
// BeginsWith the name: its window starts at the name, so the first page
// holds it when it exists; further pages are read until it is found or
// none is left) and one ListTagsForResource. The version is the
// parameter's Version as a decimal string, its one current version. Shape
// is set for a parameter the tool does not write (plan.ObservedSecret).
func (a *Adapter) Describe(ctx context.Context, id string) (plan.ObservedSecret, error) {
	name := paramName(id)
	var meta *types.ParameterMetadata
	err := a.describe(ctx, pace.Reads, []types.ParameterStringFilter{filter("Name", "BeginsWith", name)}, func(m types.ParameterMetadata) bool {
		if aws.ToString(m.Name) == name {
			meta = &m
			return false
		}
		return true
	})
	if err != nil || meta == nil {
		return plan.ObservedSecret{}, err
	}
	tags, found, err := a.tags(ctx, name)
	if err != nil || !found {
		return plan.ObservedSecret{}, err
	}
	return a.observed(meta, tags), nil
}

// idOf is what the engine addresses the parameter of DescribeParameters'
// entry m by: its ARN, or its name when the answer has none (the SSM API
// reference marks ParameterMetadata's ARN optional; SPEC §16: a
// parameter is read by name). Every method takes either (paramName).
func idOf(m *types.ParameterMetadata) string {
	if arn := aws.ToString(m.ARN); arn != "" {
		return strings.Clone(arn)
	}
	return strings.Clone(aws.ToString(m.Name))
}

// observed is what DescribeParameters' entry m shows, with tags.
func (a *Adapter) observed(m *types.ParameterMetadata, tags map[string]string) plan.ObservedSecret {
	return plan.ObservedSecret{
		Exists:      true,
		ARN:         idOf(m),
		NamedARN:    true, // arn:PARTITION:ssm:REGION:ACCOUNT:parameter/NAME, or the name
		Name:        a.secretName(aws.ToString(m.Name)),
		Tags:        tags,
		KMSKeyID:    strings.Clone(aws.ToString(m.KeyId)),
		Description: strings.Clone(aws.ToString(m.Description)),
		Versions:    []plan.Version{{ID: version(m.Version), Stages: []string{plan.StageCurrent}}},
		Shape:       shape(m),
	}
}

// Present implements engine.Surveyor: DescribeParameters pages under the
// prefix's hierarchy with no tag filter, every name there (engine names).
// A page examines up to 50 parameters whatever the filters, so this costs
// what the scope's listing costs when the prefix holds mostly this
// scope's parameters, and far less than one call per name.
func (a *Adapter) Present(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	err := a.describe(ctx, pace.Lists, a.pathFilter(), func(m types.ParameterMetadata) bool {
		out[a.secretName(aws.ToString(m.Name))] = true
		return true
	})
	return out, err
}

// ListNames lists every parameter under prefix's hierarchy whatever its
// tags (import's candidates, SPEC §18): DescribeParameters pages with the
// Path filter (recursive) of model.ParameterName(prefix), each as the name
// the engine knows it by. Sorted.
func (a *Adapter) ListNames(ctx context.Context, prefix string) ([]string, error) {
	var out []string
	f := []types.ParameterStringFilter{filter("Path", "Recursive", model.ParameterName(prefix))}
	err := a.describe(ctx, pace.Lists, f, func(m types.ParameterMetadata) bool {
		if n := a.secretName(aws.ToString(m.Name)); strings.HasPrefix(n, prefix+"/") {
			out = append(out, n)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func version(v int64) string { return strconv.FormatInt(v, 10) }

// shape is ObservedSecret.Shape of a parameter: "type" unless SecureString,
// "policy" with parameter policies, "data-type" for a data type other
// than text (SSM API reference, PutParameter DataType); "" otherwise.
func shape(m *types.ParameterMetadata) string {
	switch {
	case m.Type != types.ParameterTypeSecureString:
		return "type"
	case len(m.Policies) > 0:
		return "policy"
	case aws.ToString(m.DataType) != "" && aws.ToString(m.DataType) != "text":
		return "data-type"
	}
	return ""
}

// GetCurrentValues implements engine.Port: GetParameters with decryption,
// ten names a call (its limit), each asked by its name (the request's
// Name, never its ID: SPEC §16) and the version Describe reported (the
// selector NAME:VERSION), so the value read is exactly that version's. A
// version no longer there is Missing.
func (a *Adapter) GetCurrentValues(ctx context.Context, reqs []engine.ValueRequest) ([]plan.CurrentValue, error) {
	out := make([]plan.CurrentValue, len(reqs))
	for start := 0; start < len(reqs); start += maxGet {
		chunk := reqs[start:min(start+maxGet, len(reqs))]
		names := make([]string, len(chunk))
		for i, r := range chunk {
			names[i] = model.ParameterName(r.Name) + ":" + r.CurrentVersionID
		}
		var res *ssm.GetParametersOutput
		err := a.read(ctx, pace.Batches, "GetParameters", func(cctx context.Context) (err error) {
			res, err = a.c.GetParameters(cctx, &ssm.GetParametersInput{Names: names, WithDecryption: aws.Bool(true)}, a.callOpts...)
			return err
		})
		if err != nil {
			return nil, err
		}
		for i, r := range chunk {
			v := plan.CurrentValue{Missing: true}
			for _, p := range res.Parameters {
				if aws.ToString(p.Name) != model.ParameterName(r.Name) {
					continue
				}
				v = plan.CurrentValue{VersionID: version(p.Version), HasString: true, String: []byte(aws.ToString(p.Value)),
					StageMismatch: version(p.Version) != r.CurrentVersionID}
				break
			}
			out[start+i] = v
		}
	}
	return out, nil
}

// maxGet is GetParameters' limit on names per call (SSM API reference).
const maxGet = 10

// put is one PutParameter of a SecureString: the key kms (DefaultKeyID
// when "") always, the description desc when not "".
func (a *Adapter) put(ctx context.Context, in *ssm.PutParameterInput, kms, desc string) (engine.WriteResult, error) {
	in.Type = types.ParameterTypeSecureString
	in.KeyId = aws.String(cmp.Or(kms, DefaultKeyID))
	if desc != "" {
		in.Description = aws.String(desc)
	}
	cctx, cancel := a.call(ctx)
	defer cancel()
	out, err := a.c.PutParameter(cctx, in, a.putOpts...)
	if err != nil {
		return engine.WriteResult{}, convert(ctx, "PutParameter", err)
	}
	return engine.WriteResult{VersionID: version(out.Version)}, nil
}

func (a *Adapter) tier() types.ParameterTier {
	if a.opt.Tier == model.TierAdvanced {
		return types.ParameterTierAdvanced
	}
	return types.ParameterTierStandard
}

// Create implements engine.Port: PutParameter with Overwrite=false (a
// parameter created meanwhile by anyone is never replaced: AWS answers
// ParameterAlreadyExists, which the engine judges by re-observing), the
// tags, the key, the description and the tier in one request. The token
// is unused: Parameter Store has none. The result's ARN is "" (AWS does
// not return it; the engine addresses the parameter by name).
func (a *Adapter) Create(ctx context.Context, req engine.CreateRequest) (engine.WriteResult, error) {
	tags := make([]types.Tag, 0, len(req.Tags))
	for _, k := range slices.Sorted(maps.Keys(req.Tags)) {
		tags = append(tags, types.Tag{Key: aws.String(k), Value: aws.String(req.Tags[k])})
	}
	in := &ssm.PutParameterInput{Name: aws.String(paramName(req.Name)), Value: aws.String(string(req.Value)),
		Overwrite: aws.Bool(false), Tags: tags, Tier: a.tier()}
	return a.put(ctx, in, req.KMSKeyID, req.Description)
}

// PutValue implements engine.Port: PutParameter with Overwrite=true, the
// next version. Parameter Store has no idempotency token and no
// compare-and-swap: the engine re-observes version and value after an
// unclear outcome and resends only while the version it saw before the
// call is still current (docs/parameter-store.md, the residual race).
// The tier is named only for an advanced scope (never a downgrade).
func (a *Adapter) PutValue(ctx context.Context, id string, value []byte, _ model.ValueKind, _ string) (engine.WriteResult, error) {
	in := &ssm.PutParameterInput{Name: aws.String(paramName(id)), Value: aws.String(string(value)), Overwrite: aws.Bool(true)}
	if a.opt.Tier == model.TierAdvanced {
		in.Tier = types.ParameterTierAdvanced
	}
	return a.put(ctx, in, a.opt.KMSKeyID, a.opt.Description)
}

// UpdateMetadata implements engine.Port. A parameter's key and
// description change only with a PutParameter, which needs the value: the
// current value is read (GetParameters of the current version) and
// written back with the configured key and description, a new version of
// the same value. Between that read and the write another writer's value
// could be overwritten: the same residual race as PutValue's, which
// verification then reports (docs/parameter-store.md).
func (a *Adapter) UpdateMetadata(ctx context.Context, id string, kmsKeyID, description *string) error {
	name := paramName(id)
	var res *ssm.GetParametersOutput
	err := a.read(ctx, pace.Batches, "GetParameters", func(cctx context.Context) (err error) {
		res, err = a.c.GetParameters(cctx, &ssm.GetParametersInput{Names: []string{name}, WithDecryption: aws.Bool(true)}, a.callOpts...)
		return err
	})
	if err != nil {
		return err
	}
	if len(res.Parameters) != 1 {
		return &engine.Error{Operation: "GetParameters", Code: codes.NotFound, Fault: engine.FaultClient, NotFound: true}
	}
	kms, desc := a.opt.KMSKeyID, a.opt.Description
	if kmsKeyID != nil {
		kms = *kmsKeyID
	}
	if description != nil {
		desc = *description
	}
	in := &ssm.PutParameterInput{Name: aws.String(name), Value: res.Parameters[0].Value, Overwrite: aws.Bool(true)}
	if a.opt.Tier == model.TierAdvanced {
		in.Tier = types.ParameterTierAdvanced
	}
	_, err = a.put(ctx, in, kms, desc)
	return err
}

// Delete implements engine.Port with DeleteParameter: immediate and
// irreversible, there is no recovery window (the argument is unused) and
// nothing to restore (SPEC §16).
func (a *Adapter) Delete(ctx context.Context, id string, _ int) error {
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.DeleteParameter(cctx, &ssm.DeleteParameterInput{Name: aws.String(paramName(id))}, a.callOpts...)
	return convert(ctx, "DeleteParameter", err)
}

// Tag implements engine.Port (AddTagsToResource: the given keys are added
// or overwritten, every other tag stays; safe to resend).
func (a *Adapter) Tag(ctx context.Context, id string, tags map[string]string) error {
	list := make([]types.Tag, 0, len(tags))
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		list = append(list, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	cctx, cancel := a.call(ctx)
	defer cancel()
	_, err := a.c.AddTagsToResource(cctx, &ssm.AddTagsToResourceInput{ResourceType: types.ResourceTypeForTaggingParameter,
		ResourceId: aws.String(paramName(id)), Tags: list}, a.callOpts...)
	return convert(ctx, "AddTagsToResource", err)
}

func isCode(err error, code string) bool { return awscore.IsCode(err, code) }
