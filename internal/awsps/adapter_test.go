package awsps_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/awsps"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/pace"
)

// The adapter against the emulator's Parameter Store, with the real
// aws-sdk-go-v2 SSM client over loopback.

var ctx = context.Background()

var scope = model.Scope{RepositoryID: "acme/infra", SourceRoot: "secrets", Prefix: "prod/app", Target: model.TargetParameterStore}

type fixture struct {
	srv *emulatortest.Server
	ssm *ssm.Client
	a   *awsps.Adapter
}

func start(t *testing.T, mod ...func(*awsps.Options)) fixture {
	t.Helper()
	srv := emulatortest.Start(t)
	c := srv.SSMClient(t, func(o *ssm.Options) { o.RetryMaxAttempts = 1 })
	o := awsps.Options{Prefix: scope.Prefix, ScopeDigest: scope.Digest(), Tier: model.TierStandard}
	for _, m := range mod {
		m(&o)
	}
	return fixture{srv: srv, ssm: c, a: awsps.New(c, o)}
}

func (f fixture) create(t *testing.T, name, value string) engine.WriteResult {
	t.Helper()
	res, err := f.a.Create(ctx, engine.CreateRequest{Name: name, Value: []byte(value), Tags: scope.Tags("secrets/db.sops.json")})
	require.NoError(t, err)
	return res
}

func (f fixture) param(t *testing.T, name string) emulator.ParameterDump {
	t.Helper()
	for _, p := range f.srv.State(t).Parameters {
		if p.Name == name {
			return p
		}
	}
	require.Failf(t, "no parameter", "%s", name)
	return emulator.ParameterDump{}
}

// A create is one PutParameter (SecureString, Overwrite=false, the
// ownership tags, AWS's managed key, the tier); Describe shows it owned at
// version 1 under the secret name; the value is read by that version; an
// update is the next version; a second create of the name is refused as
// existing (never overwritten); a deletion is immediate.
func TestAdapter_Lifecycle(t *testing.T) {
	f := start(t)
	res := f.create(t, "prod/app/db", `{"a":"1"}`)
	assert.Equal(t, "1", res.VersionID)
	p := f.param(t, "/prod/app/db")
	assert.Equal(t, "SecureString", p.Type)
	assert.Equal(t, "Standard", p.Tier)
	assert.Equal(t, awsps.DefaultKeyID, p.KeyID)
	assert.Equal(t, scope.Digest(), p.Tags[model.TagScope])

	o, err := f.a.Describe(ctx, "prod/app/db")
	require.NoError(t, err)
	require.True(t, o.Exists)
	assert.Equal(t, "prod/app/db", o.Name)
	assert.True(t, o.Owned(scope.Digest()))
	assert.Equal(t, []string{"1"}, o.CurrentVersionIDs())
	assert.Empty(t, o.Shape)
	assert.Contains(t, o.ARN, ":parameter/prod/app/db")

	byARN, err := f.a.Describe(ctx, o.ARN)
	require.NoError(t, err)
	assert.Equal(t, o.Name, byARN.Name, "an ARN names the same parameter")

	vs, err := f.a.GetCurrentValues(ctx, []engine.ValueRequest{{ID: o.ARN, Name: o.Name, CurrentVersionID: "1"}})
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, `{"a":"1"}`, string(vs[0].String))
	assert.Equal(t, "1", vs[0].VersionID)

	res, err = f.a.PutValue(ctx, o.ARN, []byte(`{"a":"2"}`), model.KindJSON, "")
	require.NoError(t, err)
	assert.Equal(t, "2", res.VersionID)
	assert.Equal(t, `{"a":"2"}`, f.param(t, "/prod/app/db").Value)
	assert.Equal(t, scope.Digest(), f.param(t, "/prod/app/db").Tags[model.TagScope], "an overwrite keeps the tags")

	// The value of version 1 is still the one read by version 1.
	vs, err = f.a.GetCurrentValues(ctx, []engine.ValueRequest{{ID: o.ARN, Name: o.Name, CurrentVersionID: "1"}})
	require.NoError(t, err)
	assert.Equal(t, `{"a":"1"}`, string(vs[0].String))

	_, err = f.a.Create(ctx, engine.CreateRequest{Name: "prod/app/db", Value: []byte("x"), Tags: scope.Tags("x")})
	var e *engine.Error
	require.ErrorAs(t, err, &e)
	assert.True(t, e.Exists, "ParameterAlreadyExists is a create meeting a name")
	assert.Equal(t, `{"a":"2"}`, f.param(t, "/prod/app/db").Value, "never overwritten by a create")

	require.NoError(t, f.a.Delete(ctx, o.ARN, 7))
	o, err = f.a.Describe(ctx, "prod/app/db")
	require.NoError(t, err)
	assert.False(t, o.Exists, "a deletion is immediate")
	assert.Empty(t, f.srv.State(t).Parameters)
}

// GetCurrentValues reads ten names a call (GetParameters' limit), each by
// its version; a version that is gone is Missing; exactly ten names are
// one call and no names no call.
func TestAdapter_ValuesByTen(t *testing.T) {
	f := start(t)
	var reqs []engine.ValueRequest
	for i := range 23 {
		name := "prod/app/s" + string(rune('a'+i))
		f.create(t, name, "v-"+name)
		reqs = append(reqs, engine.ValueRequest{ID: name, Name: name, CurrentVersionID: "1"})
	}
	reqs = append(reqs, engine.ValueRequest{ID: "prod/app/none", Name: "prod/app/none", CurrentVersionID: "1"})
	before := f.srv.Stats(t).Calls["GetParameters"]
	vs, err := f.a.GetCurrentValues(ctx, reqs)
	require.NoError(t, err)
	assert.Equal(t, int64(3), f.srv.Stats(t).Calls["GetParameters"]-before, "24 names in 3 calls")
	for i, r := range reqs[:23] {
		assert.Equal(t, "v-"+r.Name, string(vs[i].String))
		assert.Equal(t, "1", vs[i].VersionID)
		assert.False(t, vs[i].StageMismatch, "the version asked for is the version read")
	}
	assert.True(t, vs[23].Missing)

	// The bound is exact: ten names are one call, none is no call.
	before = f.srv.Stats(t).Calls["GetParameters"]
	vs, err = f.a.GetCurrentValues(ctx, reqs[:10])
	require.NoError(t, err)
	assert.Len(t, vs, 10)
	assert.Equal(t, int64(1), f.srv.Stats(t).Calls["GetParameters"]-before, "10 names in 1 call")
	vs, err = f.a.GetCurrentValues(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, vs)
	assert.Equal(t, int64(1), f.srv.Stats(t).Calls["GetParameters"]-before, "no names, no call")
}

// Discovery lists the prefix's hierarchy by tag filter: this scope's
// parameters without reading a tag; with "" also the other scopes'
// managed parameters under the prefix, whose tags alone are read (one
// ListTagsForResource each). Unmanaged parameters and those outside the
// prefix are never listed.
func TestAdapter_ListCandidates(t *testing.T) {
	f := start(t)
	for _, n := range []string{"prod/app/a", "prod/app/b", "prod/app/c/d"} {
		f.create(t, n, "v")
	}
	other := model.Scope{RepositoryID: "acme/old", SourceRoot: "secrets", Prefix: "prod/app", Target: model.TargetParameterStore}
	_, err := f.a.Create(ctx, engine.CreateRequest{Name: "prod/app/old", Value: []byte("v"), Tags: other.Tags("secrets/old.sops.json")})
	require.NoError(t, err)
	_, err = f.ssm.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/prod/app/foreign"), Value: aws.String("v"), Type: types.ParameterTypeSecureString})
	require.NoError(t, err)
	_, err = f.a.Create(ctx, engine.CreateRequest{Name: "prod/other/x", Value: []byte("v"), Tags: scope.Tags("secrets/x.sops.json")})
	require.NoError(t, err)

	names := func(cs []engine.Candidate) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	own, err := f.a.ListCandidates(ctx, scope.Digest())
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"prod/app/a", "prod/app/b", "prod/app/c/d"}, names(own))

	tagsBefore := f.srv.Stats(t).Calls["ListTagsForResource"]
	all, err := f.a.ListCandidates(ctx, "")
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"prod/app/a", "prod/app/b", "prod/app/c/d", "prod/app/old"}, names(all))
	assert.Equal(t, int64(1), f.srv.Stats(t).Calls["ListTagsForResource"]-tagsBefore, "only the other scope's tags are read")
	for _, c := range all {
		want := scope.Digest()
		if c.Name == "prod/app/old" {
			want = other.Digest()
			assert.Equal(t, other.Tags("secrets/old.sops.json")[model.TagSource], c.Tags[model.TagSource])
		}
		assert.Equal(t, want, c.Tags[model.TagScope], c.Name)
	}
}

// A prefix that begins with "/" names parameters exactly as the engine
// does.
func TestAdapter_LeadingSlashPrefix(t *testing.T) {
	f := start(t, func(o *awsps.Options) { o.Prefix = "/prod/app" })
	f.create(t, "/prod/app/db", "v")
	o, err := f.a.Describe(ctx, "/prod/app/db")
	require.NoError(t, err)
	assert.Equal(t, "/prod/app/db", o.Name)
	cs, err := f.a.ListCandidates(ctx, scope.Digest())
	require.NoError(t, err)
	require.Len(t, cs, 1)
	assert.Equal(t, "/prod/app/db", cs[0].Name)
}

// A parameter that is not a plain SecureString has a Shape (conflict
// parameter-shape when owned): String, StringList, a policy, a data type
// other than text (aws:ssm:integration); a SecureString of data type text
// has none.
func TestAdapter_Shape(t *testing.T) {
	f := start(t)
	tags := func() []types.Tag {
		var out []types.Tag
		for k, v := range scope.Tags("secrets/x.sops.json") {
			out = append(out, types.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		return out
	}
	put := func(name string, typ types.ParameterType, mod func(*ssm.PutParameterInput)) {
		in := &ssm.PutParameterInput{Name: aws.String(name), Value: aws.String("v"), Type: typ, Tags: tags()}
		if mod != nil {
			mod(in)
		}
		_, err := f.ssm.PutParameter(ctx, in)
		require.NoError(t, err)
	}
	put("/prod/app/plain", types.ParameterTypeString, nil)
	put("/prod/app/list", types.ParameterTypeStringList, nil)
	put("/prod/app/expiring", types.ParameterTypeSecureString, func(in *ssm.PutParameterInput) {
		in.Tier = types.ParameterTierAdvanced
		in.Policies = aws.String(`[{"Type":"Expiration","Version":"1.0","Attributes":{"Timestamp":"2030-01-01T00:00:00.000Z"}}]`)
	})
	put("/prod/app/integration", types.ParameterTypeSecureString, func(in *ssm.PutParameterInput) { in.DataType = aws.String("aws:ssm:integration") })
	put("/prod/app/text", types.ParameterTypeSecureString, func(in *ssm.PutParameterInput) { in.DataType = aws.String("text") })
	for name, want := range map[string]string{"prod/app/plain": "type", "prod/app/list": "type", "prod/app/expiring": "policy",
		"prod/app/integration": "data-type", "prod/app/text": ""} {
		o, err := f.a.Describe(ctx, name)
		require.NoError(t, err)
		assert.Equal(t, want, o.Shape, name)
	}
}

// The configured key and description go with every write; a metadata
// change writes the current value back with them (a new version of the
// same value); the advanced tier is named on a write, a standard scope's
// write never names one (an Advanced parameter stays Advanced).
func TestAdapter_MetadataKeyAndTier(t *testing.T) {
	f := start(t, func(o *awsps.Options) { o.KMSKeyID, o.Description = "alias/aws/ssm", "app secrets" })
	_, err := f.a.Create(ctx, engine.CreateRequest{Name: "prod/app/db", Value: []byte("v1"), Tags: scope.Tags("x"), Description: "app secrets"})
	require.NoError(t, err)
	assert.Equal(t, "app secrets", f.param(t, "/prod/app/db").Description)
	desc := "new words"
	require.NoError(t, f.a.UpdateMetadata(ctx, "prod/app/db", nil, &desc))
	p := f.param(t, "/prod/app/db")
	assert.Equal(t, "new words", p.Description)
	assert.Equal(t, "v1", p.Value)
	assert.Equal(t, int64(2), p.Version)
	assert.Equal(t, "Standard", p.Tier)
	_, err = f.a.PutValue(ctx, "prod/app/db", []byte("v1"), model.KindText, "")
	require.NoError(t, err)
	assert.Equal(t, "Standard", f.param(t, "/prod/app/db").Tier, "a standard scope's value write names no tier")

	// A parameter someone made Advanced stays Advanced through a standard
	// scope's write.
	_, err = f.ssm.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/prod/app/db"), Value: aws.String("v1"),
		Type: types.ParameterTypeSecureString, Overwrite: aws.Bool(true), Tier: types.ParameterTierAdvanced})
	require.NoError(t, err)
	_, err = f.a.PutValue(ctx, "prod/app/db", []byte("v2"), model.KindText, "")
	require.NoError(t, err)
	assert.Equal(t, "Advanced", f.param(t, "/prod/app/db").Tier)

	adv := start(t, func(o *awsps.Options) { o.Tier = model.TierAdvanced })
	adv.create(t, "prod/app/big", "v")
	assert.Equal(t, "Advanced", adv.param(t, "/prod/app/big").Tier)
	_, err = adv.ssm.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/prod/app/small"), Value: aws.String("v1"),
		Type: types.ParameterTypeSecureString, Tier: types.ParameterTierStandard})
	require.NoError(t, err)
	_, err = adv.a.PutValue(ctx, "prod/app/small", []byte("v2"), model.KindText, "")
	require.NoError(t, err)
	assert.Equal(t, "Advanced", adv.param(t, "/prod/app/small").Tier, "an advanced scope's value write names the tier")
}

// A PutParameter whose answer is lost is ambiguous (the engine then
// re-observes version and value); the adapter never resends a write.
func TestAdapter_AmbiguousPutIsReportedNotResent(t *testing.T) {
	f := start(t)
	f.create(t, "prod/app/db", "v1")
	f.srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 1, Fault: "ambiguous-after-apply"}}})
	before := f.srv.Stats(t).Calls["PutParameter"]
	_, err := f.a.PutValue(ctx, "prod/app/db", []byte("v2"), model.KindText, "")
	var e *engine.Error
	require.ErrorAs(t, err, &e)
	assert.True(t, e.Ambiguous)
	assert.Equal(t, int64(1), f.srv.Stats(t).Calls["PutParameter"]-before, "sent once")
	o, err := f.a.Describe(ctx, "prod/app/db")
	require.NoError(t, err)
	assert.Equal(t, []string{"2"}, o.CurrentVersionIDs(), "the write landed: the re-observation shows the next version")
}

// TestRegression_SDKRetryResentAnAmbiguousPutParameter: with the client's
// default retryer (as the CLI builds it), a PutParameter whose answer is
// lost after it was applied was resent by the SDK, writing a second
// version (found by the e2e test with the built binary). It is now sent
// once and reported ambiguous.
func TestRegression_SDKRetryResentAnAmbiguousPutParameter(t *testing.T) {
	srv := emulatortest.Start(t)
	a := awsps.New(srv.SSMClient(t), awsps.Options{Prefix: scope.Prefix, ScopeDigest: scope.Digest(), Tier: model.TierStandard})
	_, err := a.Create(ctx, engine.CreateRequest{Name: "prod/app/db", Value: []byte("v1"), Tags: scope.Tags("secrets/db.sops.json")})
	require.NoError(t, err)
	for _, fault := range []string{"ambiguous-after-apply", "error:InternalServerError"} {
		srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 1, Fault: fault}}})
		before := srv.Stats(t).Calls["PutParameter"]
		_, err = a.PutValue(ctx, "prod/app/db", []byte("v2"), model.KindText, "")
		require.Error(t, err, fault)
		assert.Equal(t, int64(1), srv.Stats(t).Calls["PutParameter"]-before, "%s: sent once", fault)
	}
	o, err := a.Describe(ctx, "prod/app/db")
	require.NoError(t, err)
	assert.Equal(t, []string{"2"}, o.CurrentVersionIDs(), "one version written, by the call that landed")
}

// A throttled read is resent after the pace's next turn and succeeds; a
// throttled write is returned to the engine as Throttled (not executed,
// never ambiguous).
func TestAdapter_Throttling(t *testing.T) {
	f := start(t)
	f.create(t, "prod/app/db", "v1")
	f.srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "DescribeParameters", Nth: 1, Fault: "error:ThrottlingException:Rate exceeded"},
		{Operation: "GetParameters", Nth: 1, Fault: "error:ThrottlingException:Rate exceeded"},
		{Operation: "PutParameter", Nth: 1, Fault: "error:ThrottlingException:Rate exceeded"},
	}})
	o, err := f.a.Describe(ctx, "prod/app/db")
	require.NoError(t, err)
	require.True(t, o.Exists)
	vs, err := f.a.GetCurrentValues(ctx, []engine.ValueRequest{{ID: "prod/app/db", Name: "prod/app/db", CurrentVersionID: "1"}})
	require.NoError(t, err)
	assert.Equal(t, "v1", string(vs[0].String))
	assert.Equal(t, int64(2), f.a.Pace().Stats().Throttled, "both reads were throttled once")

	_, err = f.a.PutValue(ctx, "prod/app/db", []byte("v2"), model.KindText, "")
	var e *engine.Error
	require.True(t, errors.As(err, &e))
	assert.True(t, e.Throttled)
	assert.False(t, e.Ambiguous)
	assert.Equal(t, "v1", f.param(t, "/prod/app/db").Value)
}

// A parameter whose tags cannot be read for a reason other than its
// being gone fails the describe with that error (AccessDeniedException);
// one ListTagsForResource calls gone (InvalidResourceId: deleted between
// the two reads) is no parameter.
func TestAdapter_TagsReadFailureIsNotAbsence(t *testing.T) {
	f := start(t)
	f.create(t, "prod/app/db", "v1")
	f.srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "ListTagsForResource", Nth: 1, Fault: "error:AccessDeniedException:denied"},
		{Operation: "ListTagsForResource", Nth: 2, Fault: "error:InvalidResourceId:gone"},
	}})
	_, err := f.a.Describe(ctx, "prod/app/db")
	var e *engine.Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, "AccessDeniedException", e.Code)
	o, err := f.a.Describe(ctx, "prod/app/db")
	require.NoError(t, err)
	assert.False(t, o.Exists, "gone between the describe and the tags")
}

// A throttled read cuts the reads' limit, and the answered reads that
// follow (each after waiting for its turn at the cut limit) raise it again
// by the pace's Recovery: answers count as admitted (pace.Succeeded).
func TestAdapter_AnsweredReadsRaiseTheCutLimit(t *testing.T) {
	f := start(t)
	f.create(t, "prod/app/db", "v1")
	f.srv.SetFaults(t, emulator.Faults{Script: []emulator.ScriptedFault{
		{Operation: "ListTagsForResource", Nth: 1, Fault: "error:ThrottlingException:Rate exceeded"},
	}})
	_, err := f.a.Describe(ctx, "prod/app/db")
	require.NoError(t, err)
	after := f.a.Pace().Limit(pace.Reads)
	require.Less(t, after, pace.ParameterStoreLimits().Reads, "the throttle cut the limit")
	for range 3 {
		_, err := f.a.Describe(ctx, "prod/app/db")
		require.NoError(t, err)
	}
	assert.Greater(t, f.a.Pace().Limit(pace.Reads), after, "answered reads raise the cut limit")
}

// The pace's ceilings are Parameter Store's own (3 writes/s, 40 value
// reads/s), never Secrets Manager's.
func TestAdapter_OwnPace(t *testing.T) {
	f := start(t)
	assert.InDelta(t, 3, f.a.Pace().Limit(pace.Writes), 0.001)
	assert.InDelta(t, 40, f.a.Pace().Limit(pace.Batches), 0.001)
}

// TestPaceCeilingsAreTheEmulatorsQuotas: the pace ceilings of a Parameter
// Store bucket are the quotas the emulator enforces (AWS's default
// throughput: PutParameter 3/s, GetParameters 40/s shared with
// GetParameter and GetParametersByPath; DescribeParameters and the tag
// calls 10/s, unverified), so the benchmark's bounds (bench/harness, which
// read emulator.QuotaRate) and the client's pacing cannot drift apart.
func TestPaceCeilingsAreTheEmulatorsQuotas(t *testing.T) {
	l := pace.ParameterStoreLimits()
	assert.Equal(t, emulator.QuotaRate("PutParameter"), l.Writes)
	assert.Equal(t, emulator.QuotaRate("GetParameters"), l.Batches)
	assert.Equal(t, emulator.QuotaRate("DescribeParameters"), l.Lists)
	assert.Equal(t, emulator.QuotaRate("DescribeParameters"), l.Reads)
	assert.Equal(t, emulator.QuotaRate("ListTagsForResource"), l.Reads)
	assert.Equal(t, 3.0, l.Writes)
	assert.Equal(t, 40.0, l.Batches)
}
