package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestRegression_VerificationFindingHaltsOtherScopes: two scopes in one
// account and Region, the first with replica-regions; its replica in
// us-west-2 fails (a condition only an operator fixes). On every later
// run the first scope has nothing to write and its verification finds the
// Failed replica: that used to raise the run's halt, so the second scope's
// new document was apply:halted and the run exited 5 for good. With the
// real binary: the second scope creates its document, the first reports
// verify:replica-failed with its Region, nothing is halted, exit 6.
func TestRegression_VerificationFindingHaltsOtherScopes(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	e.setFaults(emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "us-west-2", Message: "CANARY replica key unusable"}}})
	add := func(scope, base string) string {
		d := doc{Rel: "secrets/" + scope + "/" + base + token(3) + ".sops.json", Plain: `{"password": "CANARY-` + scope + `-` + token(6) + `"}`}
		f.writeDoc(d.Rel, d.Plain, "")
		f.Values = append(f.Values, canaryIn(d.Plain))
		name := f.Prefix + "/" + scope + "/" + strings.TrimSuffix(strings.TrimPrefix(d.Rel, "secrets/"+scope+"/"), ".sops.json")
		f.Names = append(f.Names, name)
		return name
	}
	add("one", "x")
	add("two", "y")
	f.commit("two scopes")
	config := "repository-id: " + f.RepoID + "\nscopes:\n" +
		"  - name: one\n    source-root: secrets/one\n    secret-prefix: " + f.Prefix + "/one\n    aws-region: us-east-1\n    replica-regions: eu-west-1,us-west-2\n" +
		"  - name: two\n    source-root: secrets/two\n    secret-prefix: " + f.Prefix + "/two\n    aws-region: us-east-1\n"
	sts := []string{"AWS_ENDPOINT_URL_STS=" + e.URL}

	r := f.run(e, runOpts{Config: config, Env: sts}, "sync")
	expect(t, r, 6, vocab.StatusVerificationFailed, vocab.VerificationFailed, &vocab.Counts{Create: 2})

	// The next commit adds a document to the second scope only.
	z := add("two", "z")
	f.commit("a new document in scope two")
	r = f.run(e, runOpts{Config: config, Env: sts}, "sync")
	expect(t, r, 6, vocab.StatusVerificationFailed, vocab.VerificationFailed, &vocab.Counts{Create: 1, Unchanged: 2})
	require.NotNil(t, e.secretIn("us-east-1", z), "the second scope's new document was not created")
	recs := r.records(t)
	failed := findRecord(recs, func(m map[string]any) bool { return m["error_class"] == diag.VerifyReplicaFailed })
	require.NotNil(t, failed, r.Stdout)
	assert.Equal(t, "one", failed["scope"])
	assert.Equal(t, "us-west-2", failed["region"])
	assert.Nil(t, findRecord(recs, func(m map[string]any) bool { return m["error_class"] == diag.ApplyHalted }), "a scope was halted:\n%s", r.Stdout)
}
