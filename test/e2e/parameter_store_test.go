package e2e

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Parameter Store as a target (SPEC §16, issue 35): the real binary, real
// sops/age documents, the emulator's Parameter Store on the same listener,
// and the real SSM client as the independent reader.

// psWrites are the Parameter Store operations that change state.
var psWrites = []string{"PutParameter", "DeleteParameter", "DeleteParameters", "AddTagsToResource",
	"RemoveTagsFromResource", "LabelParameterVersion", "UnlabelParameterVersion"}

// psEnv points the CLI's Systems Manager client at the emulator (the SDK's
// own service endpoint variable, as AWS_ENDPOINT_URL_SECRETS_MANAGER).
func psEnv(e *emu, extra ...string) runOpts {
	return runOpts{Env: append([]string{"AWS_ENDPOINT_URL_SSM=" + e.URL}, extra...)}
}

// psArgs is f.args with --target parameter-store.
func (f *fixture) psArgs(command string, extra ...string) []string {
	return f.args(command, append([]string{"--target", "parameter-store"}, extra...)...)
}

// ssmClient is the real SDK's Systems Manager client on the emulator: the
// independent reader and the out-of-band writer.
func (e *emu) ssmClient() *ssm.Client {
	return ssm.New(ssm.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(e.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDE2E", "e2e-secret", ""),
	})
}

// psWriteCalls is the number of state-changing Parameter Store calls seen.
func (e *emu) psWriteCalls() int64 {
	st := e.stats()
	var n int64
	for _, op := range psWrites {
		n += st.Calls[op]
	}
	return n
}

// param reads name (the secret name; the parameter is "/"+name) through the
// SDK with decryption: its value, version, type and tier. ok false when
// ParameterNotFound.
func (e *emu) param(name string) (p ssmtypes.Parameter, ok bool) {
	e.t.Helper()
	out, err := e.ssmClient().GetParameter(context.Background(), &ssm.GetParameterInput{
		Name: aws.String("/" + name), WithDecryption: aws.Bool(true)})
	var nf *ssmtypes.ParameterNotFound
	if err != nil && errors.As(err, &nf) {
		return ssmtypes.Parameter{}, false
	}
	require.NoError(e.t, err, "GetParameter")
	return *out.Parameter, true
}

// paramTags reads the tags of "/"+name through the SDK.
func (e *emu) paramTags(name string) map[string]string {
	e.t.Helper()
	out, err := e.ssmClient().ListTagsForResource(context.Background(), &ssm.ListTagsForResourceInput{
		ResourceType: ssmtypes.ResourceTypeForTaggingParameter, ResourceId: aws.String("/" + name)})
	require.NoError(e.t, err, "ListTagsForResource")
	m := map[string]string{}
	for _, tg := range out.TagList {
		m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return m
}

// putParam writes "/"+name out of band (Overwrite=true), as an operator
// with the console would.
func (e *emu) putParam(name, value string, typ ssmtypes.ParameterType) {
	e.t.Helper()
	_, err := e.ssmClient().PutParameter(context.Background(), &ssm.PutParameterInput{
		Name: aws.String("/" + name), Value: aws.String(value), Type: typ, Overwrite: aws.Bool(true)})
	require.NoError(e.t, err, "out-of-band PutParameter")
}

// psParams is every parameter in the emulator's state.
func (e *emu) psParams() []emulator.ParameterDump { e.t.Helper(); return e.state().Parameters }

// TestParameterStore_Lifecycle: create (SecureString, standard tier, the
// three ownership tags, aws/ssm key), a re-run that is a no-op with zero
// writes, an update from a new commit, an out-of-band change repaired, a
// deletion under the limit; every value read back by the SDK.
func TestParameterStore_Lifecycle(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()

	r := f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	p, ok := e.param(docs[0].Name)
	require.True(t, ok, "the parameter is created with a leading /")
	assert.Equal(t, `{"password":"`+f.Values[0]+`","port":5432}`, aws.ToString(p.Value), "canonical JSON, decrypted by the SDK")
	assert.Equal(t, ssmtypes.ParameterTypeSecureString, p.Type)
	tags := e.paramTags(docs[0].Name)
	assert.Equal(t, model.ManagedByValue, tags[model.TagManagedBy])
	assert.NotEmpty(t, tags[model.TagScope])
	assert.NotEmpty(t, tags[model.TagSource])
	for _, d := range e.psParams() {
		assert.Equal(t, "Standard", d.Tier)
		assert.Equal(t, emulator.SSMDefaultKMSAlias, d.KeyID)
	}
	assert.Empty(t, e.state().Secrets, "nothing written to Secrets Manager")

	writes := e.psWriteCalls()
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, writes, e.psWriteCalls(), "a no-op run writes nothing")

	// An update from a new commit.
	f.writeDoc(docs[0].Rel, `{"password": "CANARY-json2-`+token(6)+`", "port": 5432}`, "")
	f.Values = append(f.Values, canaryIn(`CANARY-json2-`))
	f.commit("update")
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
	p2, _ := e.param(docs[0].Name)
	assert.Equal(t, p.Version+1, p2.Version)
	assert.Contains(t, aws.ToString(p2.Value), "CANARY-json2-")

	// Out-of-band change, repaired.
	e.putParam(docs[1].Name, "CANARY-oob", ssmtypes.ParameterTypeSecureString)
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
	p3, _ := e.param(docs[1].Name)
	assert.Equal(t, `{"api_key":"`+f.Values[1]+`","nested":{"flag":true}}`, aws.ToString(p3.Value))

	// Deletion under the limit: immediate.
	f.removeDoc(docs[2].Rel)
	f.commit("remove")
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 1, Unchanged: 2})
	_, ok = e.param(docs[2].Name)
	assert.False(t, ok, "deleted at once")
}
