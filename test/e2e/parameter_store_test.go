package e2e

import (
	"context"
	"errors"
	"os/exec"
	"strings"
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

// recreateOwned deletes "/"+name and creates it again with its tags (the
// ownership tags included) as typ: AWS refuses a type change in place
// (HierarchyTypeMismatchException), so this is how an owned parameter
// becomes a String or a StringList.
func (e *emu) recreateOwned(name, value string, typ ssmtypes.ParameterType) {
	e.t.Helper()
	tags := e.paramTags(name)
	ctx := context.Background()
	_, err := e.ssmClient().DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/" + name)})
	require.NoError(e.t, err)
	var list []ssmtypes.Tag
	for k, v := range tags {
		list = append(list, ssmtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	_, err = e.ssmClient().PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/" + name), Value: aws.String(value), Type: typ, Tags: list})
	require.NoError(e.t, err, "recreate as %s", typ)
}

// psSynced is the start of most Parameter Store tests: a fixture with the
// three standard documents synced into a parameter-store scope on an
// emulator of the test's own (exit 0, three creates).
func psSynced(t *testing.T) (*fixture, *emu, []doc) {
	t.Helper()
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	return f, e, docs
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

// classIn reports whether a record of r's stdout carries error_class c.
func classIn(t *testing.T, r result, c string) bool {
	t.Helper()
	return findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == c }) != nil
}

// callsSeen is the number of calls of any operation the emulator has seen.
func (e *emu) callsSeen() int64 {
	var n int64
	for _, c := range e.stats().Calls {
		n += c
	}
	return n
}

// TestParameterStore_Conflicts: each conflict blocks the whole plan (exit
// 4) with not one write, the other documents included: a same-name
// parameter we do not own (ownership), an owned parameter turned into a
// String or a StringList, or given a policy (parameter-shape). A label on
// an owned parameter is no conflict: the update is a new version and the
// label stays on the version it named.
func TestParameterStore_Conflicts(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	ctx := context.Background()

	// Not ours: the same name, no ownership tags.
	e.putParam(docs[0].Name, "CANARY-foreign", ssmtypes.ParameterTypeSecureString)
	r := f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
	assert.Equal(t, 1, r.Report.Counts.Conflicts)
	assert.Contains(t, r.Stdout, `"`+string(vocab.ConflictOwnership)+`"`)
	assert.Equal(t, int64(1), e.psWriteCalls(), "nothing written but the test's own parameter")
	_, err := e.ssmClient().DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/" + docs[0].Name)})
	require.NoError(t, err)

	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})

	for _, typ := range []ssmtypes.ParameterType{ssmtypes.ParameterTypeString, ssmtypes.ParameterTypeStringList} {
		// Someone overwrote an owned parameter as plain text (the value may
		// now be stored unencrypted): the tool does not write it back.
		e.recreateOwned(docs[1].Name, "CANARY-plain", typ)
		before := e.psWriteCalls()
		r = f.run(e, psEnv(e), f.psArgs("sync")...)
		expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
		assert.Contains(t, r.Stdout, string(vocab.ConflictParameterShape), typ)
		assert.Equal(t, before, e.psWriteCalls(), "%s: nothing written", typ)
		p, _ := e.param(docs[1].Name)
		assert.Equal(t, typ, p.Type)
	}
	e.recreateOwned(docs[1].Name, "CANARY-back", ssmtypes.ParameterTypeSecureString)
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})

	// A policy (an expiration would delete the parameter): parameter-shape.
	_, err = e.ssmClient().PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/" + docs[2].Name),
		Value: aws.String("CANARY-pol"), Type: ssmtypes.ParameterTypeSecureString, Overwrite: aws.Bool(true),
		Tier:     ssmtypes.ParameterTierAdvanced,
		Policies: aws.String(`[{"Type":"Expiration","Version":"1.0","Attributes":{"Timestamp":"2099-01-01T00:00:00.000Z"}}]`)})
	require.NoError(t, err)
	before := e.psWriteCalls()
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout, string(vocab.ConflictParameterShape))
	assert.Equal(t, before, e.psWriteCalls(), "policy: nothing written")
	_, err = e.ssmClient().DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/" + docs[2].Name)})
	require.NoError(t, err)
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1, Unchanged: 2})

	// A label is kept on the version it names; the update is not blocked.
	p0, _ := e.param(docs[0].Name)
	_, err = e.ssmClient().LabelParameterVersion(ctx, &ssm.LabelParameterVersionInput{Name: aws.String("/" + docs[0].Name),
		ParameterVersion: aws.Int64(p0.Version), Labels: []string{"stable"}})
	require.NoError(t, err)
	f.writeDoc(docs[0].Rel, `{"password": "CANARY-json3-`+token(6)+`"}`, "")
	f.commit("update labelled")
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
	out, err := e.ssmClient().GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/" + docs[0].Name + ":stable"), WithDecryption: aws.Bool(true)})
	require.NoError(t, err)
	assert.Equal(t, p0.Version, out.Parameter.Version, "the label stays on the version it named")
	assert.Equal(t, aws.ToString(p0.Value), aws.ToString(out.Parameter.Value))
}

// TestParameterStore_BadInputs: every input this target refuses ends exit 3
// before any AWS call: a name Parameter Store refuses (name:invalid), a
// .sops.bin document (source:binary-for-target), a value over the tier's
// limit (plaintext:too-large naming the tier that fits); nothing is
// advanced silently. With parameter-tier advanced the same value is
// written as an Advanced parameter.
func TestParameterStore_BadInputs(t *testing.T) {
	cases := []struct {
		name, rel, plain, class, says string
		decrypts                      bool // refused after decryption: observation reads may overlap it (SPEC §3.2)
	}{
		{"name", "secrets/a@b.sops.json", `{"k": "CANARY-at-` + token(4) + `"}`, "name:invalid", "", false},
		{"binary", "secrets/ks.sops.bin", "\x00\x01CANARY-bin-" + token(4) + "\xff", "source:binary-for-target", "", false},
		{"standard-too-large", "secrets/big.sops.txt", "CANARY-big-" + token(4) + strings.Repeat("x", 5000), "plaintext:too-large", "parameter-tier: advanced", true},
		{"advanced-too-large", "secrets/huge.sops.txt", "CANARY-huge-" + token(4) + strings.Repeat("x", 9000), "plaintext:too-large", "target secrets-manager", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			e := startEmulator(t)
			f.writeDoc(c.rel, c.plain, "")
			f.Values = append(f.Values, canaryIn(c.plain))
			f.commit("bad input")
			for _, cmd := range []string{"plan", "sync"} {
				r := f.run(e, psEnv(e), f.psArgs(cmd)...)
				expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
				assert.True(t, classIn(t, r, c.class), "%s: %s\n%s", cmd, c.class, r.Stdout)
				if c.says != "" {
					assert.Contains(t, r.Stdout, c.says, "the record names what would fit")
				}
			}
			if c.decrypts {
				assert.Zero(t, e.psWriteCalls(), "nothing written")
			} else {
				assert.Zero(t, e.callsSeen(), "refused before any AWS call")
			}
			assert.Empty(t, e.psParams(), "never silently advanced")
		})
	}
	t.Run("advanced-tier-fits", func(t *testing.T) {
		f := newFixture(t)
		e := startEmulator(t)
		plain := "CANARY-adv-" + token(4) + strings.Repeat("x", 5000)
		name := f.addDoc("big", ".sops.txt", plain)
		f.commit("big")
		r := f.run(e, psEnv(e), f.psArgs("sync", "--parameter-tier", "advanced")...)
		expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
		p, ok := e.param(name)
		require.True(t, ok)
		assert.Equal(t, plain, aws.ToString(p.Value))
		require.Len(t, e.psParams(), 1)
		assert.Equal(t, "Advanced", e.psParams()[0].Tier)
	})
}

// TestParameterStore_AmbiguousPutParameter: an update whose PutParameter
// loses its response, once applied and once not: the run judges by
// re-observing version and value, converges (exit 0), and the parameter is
// written exactly once (version +1: never resent blindly, never lost).
func TestParameterStore_AmbiguousPutParameter(t *testing.T) {
	for _, kind := range []string{"ambiguous-after-apply", "ambiguous-before-apply"} {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t)
			e := startEmulator(t)
			docs := f.standardDocs()
			r := f.run(e, psEnv(e), f.psArgs("sync")...)
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
			p0, _ := e.param(docs[0].Name)

			plain := `{"password": "CANARY-amb-` + token(6) + `"}`
			f.writeDoc(docs[0].Rel, plain, "")
			f.Values = append(f.Values, canaryIn(plain))
			f.commit("update")
			e.setFaults(emulator.Faults{Seed: 1, Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 1, Fault: kind}}})
			putsBefore := e.stats().Calls["PutParameter"]
			r = f.run(e, psEnv(e), f.psArgs("sync")...)
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
			p1, _ := e.param(docs[0].Name)
			assert.Equal(t, p0.Version+1, p1.Version, "written exactly once")
			assert.Equal(t, `{"password":"`+canaryIn(plain)+`"}`, aws.ToString(p1.Value))
			puts := e.stats().Calls["PutParameter"] - putsBefore
			if kind == "ambiguous-after-apply" {
				assert.Equal(t, int64(1), puts, "a write that landed is not resent")
			} else {
				assert.Equal(t, int64(2), puts, "a write that did not land is sent once more")
			}
		})
	}
}

// TestParameterStore_ThrottledAtReducedQuota: with PutParameter's quota at
// a third (1 write/s) the first sync of 8 parameters is throttled but exits
// 0 with every parameter written; throttling is counted, never an error.
func TestParameterStore_ThrottledAtReducedQuota(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	e.setFaults(emulator.Faults{Seed: 1, Quotas: true, QuotaScales: map[string]float64{"PutParameter": 1.0 / 3}})
	f.manyDocs(8)
	r := f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 8})
	noThrottleErrors(t, r.records(t))
	st := e.stats()
	require.Positive(t, st.Throttled["PutParameter"], "premise: the reduced quota throttled some writes")
	assert.Len(t, e.psParams(), 8)
	t.Logf("PutParameter calls %d, throttled %d", st.Calls["PutParameter"], st.Throttled["PutParameter"])
}

// TestParameterStore_DeletionGate: deletions count against
// --max-deletions (over it: gate, nothing deleted); the plan says the
// deletion is immediate and cannot be undone (plan file, show as text
// and Markdown).
func TestParameterStore_DeletionGate(t *testing.T) {
	f, e, docs := psSynced(t)
	f.removeDoc(docs[0].Rel)
	f.removeDoc(docs[1].Rel)
	f.commit("remove two")
	before := e.psWriteCalls()
	r, v, raw := f.runPlan(e, psEnv(e), f.psArgs("plan", "--max-deletions", "2")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{ScheduleDelete: 2, Unchanged: 1})
	assert.Equal(t, model.TargetParameterStore, v.Scopes[0].Target, "the plan file records the target")
	for _, format := range []string{"text", "markdown"} {
		shown, err := exec.Command(cliBin, "show", "--format", format, writeTemp(t, raw)).CombinedOutput()
		require.NoError(t, err, "%s", shown)
		assert.Contains(t, string(shown), "Parameter Store: 2 deletions are immediate and cannot be undone", format)
		assert.Contains(t, string(shown), "counted against --max-deletions", format)
		assert.Equal(t, 2, strings.Count(string(shown), "deleted at once from Parameter Store"), format)
	}
	r = f.run(e, psEnv(e), f.psArgs("sync", "--max-deletions", "1")...)
	require.NotEqual(t, 0, r.Code)
	assert.True(t, classIn(t, r, "gate:max-deletions"), r.Stdout)
	assert.Equal(t, before, e.psWriteCalls(), "nothing deleted over the limit")
	assert.Len(t, e.psParams(), 3)
	r = f.run(e, psEnv(e), f.psArgs("sync", "--max-deletions", "2")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 2, Unchanged: 1})
	assert.Len(t, e.psParams(), 1)
}

// TestParameterStore_TwoScopesOneRunOnePerTarget: a config file with two
// scopes over the same documents and prefix, one per target: the same
// names land once in each service, each scope converges, the re-run writes
// nothing.
func TestParameterStore_TwoScopesOneRunOnePerTarget(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	cfg := "repository-id: " + f.RepoID + "\nscopes:\n" +
		"  - name: sm\n    source-root: secrets\n    secret-prefix: " + f.Prefix + "\n" +
		"  - name: ps\n    source-root: secrets\n    secret-prefix: " + f.Prefix + "\n    target: parameter-store\n"
	o := psEnv(e, "AWS_ENDPOINT_URL_STS="+e.URL) // two scopes: their account, for the overlap rule
	o.Config = cfg
	r := f.run(e, o, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 6})
	assert.Len(t, e.state().Secrets, 3)
	assert.Len(t, e.psParams(), 3)
	for _, d := range docs {
		p, ok := e.param(d.Name)
		require.True(t, ok, d.Name)
		assert.Equal(t, e.currentValue(d.Name), aws.ToString(p.Value), "the same value in both services")
	}
	writes, smWrites := e.psWriteCalls(), e.mutatingCalls()
	r = f.run(e, o, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 6})
	assert.Equal(t, writes, e.psWriteCalls())
	assert.Equal(t, smWrites, e.mutatingCalls())
}
