package e2e

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Parameter Store's seams (issue 42, items 8, 10 and 11): the built
// binary against the emulator's Parameter Store.

// TestRegression_TooManyUpdatesFromPutParameterIsResentAsAThrottle:
// PutParameter's TooManyUpdates (a concurrent update of the same
// parameter; nothing applied) ended the run exit 5 where a throttle
// converges. It is now resent as a throttle is: re-observed, written
// once, converged.
func TestRegression_TooManyUpdatesFromPutParameterIsResentAsAThrottle(t *testing.T) {
	f, e, docs := psSynced(t)
	p0, _ := e.param(docs[0].Name)

	plain := `{"password": "CANARY-tmu-` + token(6) + `"}`
	f.writeDoc(docs[0].Rel, plain, "")
	f.Values = append(f.Values, canaryIn(plain))
	f.commit("update")
	e.setFaults(emulator.Faults{Seed: 1, Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 1, Fault: "error:TooManyUpdates"}}})
	putsBefore := e.stats().Calls["PutParameter"]
	r := f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
	p1, _ := e.param(docs[0].Name)
	assert.Equal(t, p0.Version+1, p1.Version, "written exactly once")
	assert.Equal(t, `{"password":"`+canaryIn(plain)+`"}`, aws.ToString(p1.Value))
	require.Equal(t, int64(2), e.stats().Calls["PutParameter"]-putsBefore, "the refused write and its resend")
}

// psReviewedPlan runs plan of the Parameter Store scope with --plan-file
// (names hidden) and returns the file's path.
func (f *fixture) psReviewedPlan(e *emu) string {
	f.t.Helper()
	p := filepath.Join(f.t.TempDir(), "reviewed.json")
	r := f.run(e, psEnv(e), f.psArgs("plan", "--plan-file", p)...)
	require.Equal(f.t, 0, r.Code, "plan: %s", r.Stdout)
	return p
}

// guessDigest is a plan file's keyed digest as docs/security.md describes
// it, computed by a reader who holds the file (its salt) and guesses what
// went in: HMAC-SHA-256 under the salt over the domain, then each part
// after a NUL.
func guessDigest(salt []byte, domain string, parts ...string) string {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte("sops-aws-sync:plan:" + domain))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// TestRegression_PlanFileFingerprintConfirmsAHiddenParameterName: a plan
// file written without names let its reader confirm a Parameter Store
// scope's hidden names offline from a word list: the fingerprint keyed
// on the parameter's ARN (which follows from the name) and its version
// (1, 2, …), and on the source tag (a digest of the document path), under
// the salt the file holds. Here the reader guesses the right name, the
// right ARN, version, path and metadata, and still matches no digest of
// the file. The same file, reviewed, is applied by sync --reviewed-plan on
// the unchanged scope (plan and sync compare equal) and is stale once AWS
// changed the parameter.
func TestRegression_PlanFileFingerprintConfirmsAHiddenParameterName(t *testing.T) {
	f, e, docs := psSynced(t)

	plain := `{"password": "CANARY-fp-` + token(6) + `"}`
	f.writeDoc(docs[0].Rel, plain, "")
	f.Values = append(f.Values, canaryIn(plain))
	f.commit("update")
	path := f.psReviewedPlan(e)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var v planview.View
	require.NoError(t, json.Unmarshal(raw, &v))
	require.False(t, v.NamesShown, "premise: names hidden")
	assert.NotContains(t, string(raw), strings.TrimPrefix(docs[0].Name, "/"), "premise: the name is not in the file")
	salt := v.Salt()
	require.NotNil(t, salt)

	p0, ok := e.param(docs[0].Name)
	require.True(t, ok)
	arn, ver := aws.ToString(p0.ARN), strconv.FormatInt(p0.Version, 10)
	meta, err := json.Marshal(struct {
		Source   string
		Seen     plan.MetadataSeen
		Change   string
		Replicas string
	}{model.SourceDigest(docs[0].Rel), plan.MetadataSeen{KMSKeyID: emulator.SSMDefaultKMSAlias}, "", ""})
	require.NoError(t, err)
	guesses := map[string]bool{
		guessDigest(salt, "versions", arn, ver):                       true,
		guessDigest(salt, "versions", "/"+docs[0].Name, ver):          true,
		guessDigest(salt, "metadata", arn, string(meta)):              true,
		guessDigest(salt, "metadata", "/"+docs[0].Name, string(meta)): true,
	}
	ops := 0
	for _, sc := range v.Scopes {
		for _, op := range sc.Operations {
			if op.Fingerprint == nil {
				continue
			}
			ops++
			assert.False(t, guesses[op.Fingerprint.Versions], "the versions digest of %s confirms a guess of the hidden name", op.Resource)
			assert.False(t, guesses[op.Fingerprint.Metadata], "the metadata digest of %s confirms a guess of the hidden name", op.Resource)
		}
	}
	require.Equal(t, 1, ops, "premise: one operation with a fingerprint")

	// The reviewed plan on the unchanged scope: plan and sync compare equal.
	r := f.run(e, psEnv(e), f.psArgs("plan", "--reviewed-plan", path)...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 1, Unchanged: 2})
	r = f.run(e, psEnv(e), f.psArgs("sync", "--reviewed-plan", path)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})

	// Still bound to what AWS held: a write after review makes it stale.
	f.writeDoc(docs[1].Rel, "api_key: CANARY-fp2-"+token(6)+"\n", "")
	f.Values = append(f.Values, "CANARY-fp2-")
	f.commit("second update")
	path = f.psReviewedPlan(e)
	// The same value written again out of band: a new version, the same
	// plan, so only the fingerprint tells.
	before, _ := e.param(docs[1].Name)
	e.putParam(docs[1].Name, aws.ToString(before.Value), ssmtypes.ParameterTypeSecureString)
	r = f.run(e, psEnv(e), f.psArgs("sync", "--reviewed-plan", path)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout, `"error_class":"plan:stale"`)
	assert.Contains(t, r.Stdout, "AWS changed since review")
	p1, _ := e.param(docs[1].Name)
	assert.Equal(t, before.Version+1, p1.Version, "nothing written after the out-of-band write")
}

// TestRegression_DescribeParametersWithoutARNRewroteEveryParameter:
// values were read through the ARN DescribeParameters returns, which the
// SSM API reference marks optional; without it every plan wanted to
// rewrite every parameter and sync ended exit 6. Parameters are now read
// by name: with the emulator's DescribeParameters answering no ARN, plan
// shows no change, sync converges without a write, and an update is
// written and verified.
func TestRegression_DescribeParametersWithoutARNRewroteEveryParameter(t *testing.T) {
	f, e, docs := psSynced(t)

	e.setFaults(emulator.Faults{Seed: 1, SSMDescribeWithoutARN: true})
	out, err := e.ssmClient().DescribeParameters(context.Background(), &ssm.DescribeParametersInput{})
	require.NoError(t, err)
	require.NotEmpty(t, out.Parameters)
	require.Nil(t, out.Parameters[0].ARN, "premise: DescribeParameters answers without the ARN")

	writes := e.psWriteCalls()
	r := f.run(e, psEnv(e), f.psArgs("plan")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 3})
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, writes, e.psWriteCalls(), "nothing rewritten")

	plain := `{"password": "CANARY-noarn-` + token(6) + `"}`
	f.writeDoc(docs[0].Rel, plain, "")
	f.Values = append(f.Values, canaryIn(plain))
	f.commit("update")
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
	p, _ := e.param(docs[0].Name)
	assert.Equal(t, `{"password":"`+canaryIn(plain)+`"}`, aws.ToString(p.Value))
}
