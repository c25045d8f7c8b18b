package e2e

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
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
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	p0, _ := e.param(docs[0].Name)

	plain := `{"password": "CANARY-tmu-` + token(6) + `"}`
	f.writeDoc(docs[0].Rel, plain, "")
	f.Values = append(f.Values, canaryIn(plain))
	f.commit("update")
	e.setFaults(emulator.Faults{Seed: 1, Script: []emulator.ScriptedFault{{Operation: "PutParameter", Nth: 1, Fault: "error:TooManyUpdates"}}})
	putsBefore := e.stats().Calls["PutParameter"]
	r = f.run(e, psEnv(e), f.psArgs("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 2})
	p1, _ := e.param(docs[0].Name)
	assert.Equal(t, p0.Version+1, p1.Version, "written exactly once")
	assert.Equal(t, `{"password":"`+canaryIn(plain)+`"}`, aws.ToString(p1.Value))
	require.Equal(t, int64(2), e.stats().Calls["PutParameter"]-putsBefore, "the refused write and its resend")
}
