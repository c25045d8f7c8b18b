package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// secretIn returns the secret named name in region from the emulator state,
// or nil.
func (e *emu) secretIn(region, name string) *emulator.SecretDump {
	for _, s := range e.state().Secrets {
		if s.Name == name && s.Region == region {
			s := s
			return &s
		}
	}
	return nil
}

// replicaStatuses are a primary's replicas by Region, with their status.
func replicaStatuses(s *emulator.SecretDump) map[string]string {
	out := map[string]string{}
	for _, r := range s.ReplicationStatus {
		out[r.Region] = r.Status
	}
	return out
}

// oneDoc writes and commits one JSON document with a canary value.
func (f *fixture) oneDoc() doc {
	f.t.Helper()
	d := doc{Rel: "secrets/r" + token(3) + ".sops.json", Plain: `{"password": "CANARY-replica-` + token(6) + `"}`}
	f.writeDoc(d.Rel, d.Plain, "")
	d.Name = f.nameOf(d.Rel)
	f.Names = append(f.Names, d.Name, strings.TrimPrefix(d.Rel, "secrets/"))
	f.Values = append(f.Values, canaryIn(d.Plain))
	f.commit("add a document")
	return d
}

// verifyRounds is the count of the "verification finished" record.
func verifyRounds(t *testing.T, r result) int {
	t.Helper()
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["msg"] == "verification finished" })
	require.NotNil(t, rec, "no verification record:\n%s", r.Stdout)
	return int(rec["count"].(float64))
}

// TestReplicaRegionsLifecycle is issue 23's first "Done when" with the real
// binary, a SOPS document, Git and the emulator across emulated Regions:
// without replica-regions a replica is conflict replication; create with
// two replicas verified InSync after the emulator's replication lag; the
// same scope in a replica's Region plans nothing; a Region added is
// replicated; a Region dropped is blocked by --max-deletions 0 and allowed
// with 1; delete then restore with replicas; a replica failure exits 6
// without its status message.
func TestReplicaRegionsLifecycle(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t, "--replication-lag-ms", "1500")
	d := f.oneDoc()
	two := []string{"--replica-regions", "eu-west-1,us-west-2"}

	// Create with two replicas: one CreateSecret carries them; verification
	// polls until both are InSync (1.5 s of lag at a 250 ms poll).
	r := f.run(e, runOpts{}, f.args("plan", two...)...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 1})
	r = f.run(e, runOpts{}, f.args("sync", two...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	assert.GreaterOrEqual(t, verifyRounds(t, r), 2, "verification waited for the replicas")
	assert.Equal(t, int64(1), e.stats().Calls["CreateSecret"])
	assert.Zero(t, e.stats().Calls["ReplicateSecretToRegions"], "the create carried the replicas")
	primary := e.secretIn("us-east-1", d.Name)
	require.NotNil(t, primary)
	assert.Equal(t, map[string]string{"eu-west-1": "InSync", "us-west-2": "InSync"}, replicaStatuses(primary))
	for _, region := range []string{"eu-west-1", "us-west-2"} {
		rep := e.secretIn(region, d.Name)
		require.NotNil(t, rep, region)
		assert.True(t, rep.Replica)
		assert.Equal(t, "us-east-1", rep.PrimaryRegion)
	}
	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", two...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
	assert.Equal(t, before, e.mutatingCalls(), "then a no-op")

	// Without replica-regions a replica is conflict replication, as before.
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, &vocab.Counts{Conflicts: 1})
	assert.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] == string(vocab.ConflictReplication) }))

	// The same scope in a replica's Region: the replica is this scope's
	// secret written through its primary, never a candidate, conflict or
	// orphan there; nothing is planned or written.
	before = e.mutatingCalls()
	for _, extra := range [][]string{nil, {"--replica-regions", "us-east-1"}} {
		r = f.run(e, runOpts{}, f.args("sync", append([]string{"--aws-region", "eu-west-1"}, extra...)...)...)
		expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
		assert.Nil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["level"] == "WARN" || m["conflict_class"] != nil }),
			"no conflict or orphan warning in the replica Region:\n%s", r.Stdout)
	}
	assert.Equal(t, before, e.mutatingCalls())

	// A Region added: one ReplicateSecretToRegions, no new version.
	three := []string{"--replica-regions", "eu-west-1,us-west-2,ap-south-1"}
	r = f.run(e, runOpts{}, f.args("sync", three...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	assert.Equal(t, int64(1), e.stats().Calls["ReplicateSecretToRegions"])
	assert.Len(t, e.secretIn("us-east-1", d.Name).Versions, 1)
	require.NotNil(t, e.secretIn("ap-south-1", d.Name))

	// A Region dropped: a removal is a deletion, blocked by --max-deletions 0.
	before = e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", append(two, "--max-deletions", "0")...)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == diag.GateMaxDeletions }))
	assert.Equal(t, before, e.mutatingCalls())
	assert.Zero(t, e.stats().Calls["RemoveRegionsFromReplication"])
	r = f.run(e, runOpts{}, f.args("sync", append(two, "--max-deletions", "1")...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	assert.Equal(t, int64(1), e.stats().Calls["RemoveRegionsFromReplication"])
	assert.Nil(t, e.secretIn("ap-south-1", d.Name), "the dropped Region's replica is gone")
	assert.Equal(t, map[string]string{"eu-west-1": "InSync", "us-west-2": "InSync"}, replicaStatuses(e.secretIn("us-east-1", d.Name)))

	// Delete: the replicas are removed, then the primary is scheduled for
	// deletion. Restore: restored, then replicated again.
	require.NoError(t, os.WriteFile(filepath.Join(f.Repo, "secrets", "README.md"), []byte("kept so the source root stays\n"), 0o600))
	f.removeDoc(d.Rel)
	f.commit("remove the document")
	r = f.run(e, runOpts{}, f.args("sync", append(two, "--allow-empty")...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 1})
	primary = e.secretIn("us-east-1", d.Name)
	require.NotNil(t, primary.DeletedDate)
	assert.Empty(t, primary.ReplicaRegions)
	assert.Nil(t, e.secretIn("eu-west-1", d.Name))
	assert.Nil(t, e.secretIn("us-west-2", d.Name))
	f.git("revert", "--no-edit", "HEAD")
	r = f.run(e, runOpts{}, f.args("sync", two...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Restore: 1, Update: 1})
	primary = e.secretIn("us-east-1", d.Name)
	assert.Nil(t, primary.DeletedDate)
	assert.Equal(t, map[string]string{"eu-west-1": "InSync", "us-west-2": "InSync"}, replicaStatuses(primary))

	// A replica failure: exit 6, the Region logged, AWS's status message
	// (a canary: the fixture's scan fails on it) never shown.
	e.setFaults(emulator.Faults{ReplicationLagMS: 1500, ReplicaFailures: []emulator.ReplicaFailure{{Region: "ap-south-1", Message: "CANARY replica key unusable"}}})
	r = f.run(e, runOpts{}, f.args("sync", three...)...)
	expect(t, r, 6, vocab.StatusVerificationFailed, vocab.VerificationFailed, &vocab.Counts{Update: 1})
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == diag.VerifyReplicaFailed })
	require.NotNil(t, rec, r.Stdout)
	assert.Equal(t, "ap-south-1", rec["region"])
}

// TestReplicaClashExits4WithoutWriting: a same-name secret in a listed
// replica Region is conflict replica-clash before any write.
func TestReplicaClashExits4WithoutWriting(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	d := f.oneDoc()
	west := e.sdk()
	_, err := west.CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{Name: aws.String(d.Name), SecretString: aws.String("theirs")},
		func(o *secretsmanager.Options) { o.Region = "us-west-2" })
	require.NoError(t, err)
	r := f.run(e, runOpts{}, f.args("sync", "--replica-regions", "us-west-2")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, &vocab.Counts{Conflicts: 1})
	assert.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] == string(vocab.ConflictReplicaClash) }))
	assert.Zero(t, e.mutatingCalls()-1, "only the test's own CreateSecret")
	assert.Nil(t, e.secretIn("us-east-1", d.Name))
	assert.True(t, slices.ContainsFunc(e.state().Secrets, func(s emulator.SecretDump) bool { return s.Region == "us-west-2" && !s.Replica }))
}

// TestReplicaRegionsPerScopeInOneRun: a config file of two scopes in
// us-east-1 (replica-regions eu-west-1) and eu-west-1, with prefixes that do
// not overlap, in one run of the real binary: each scope's replica-regions
// is its own (only the first replicates), the replica in eu-west-1 is never
// a candidate, conflict or orphan of the scope there, and a re-run is a
// no-op. With one prefix for both, the scope in eu-west-1 would write the
// names the other replicates there: the run is refused before any secret is
// read (config:scope-overlap, exit 3).
func TestReplicaRegionsPerScopeInOneRun(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	x := doc{Rel: "secrets/us/x" + token(3) + ".sops.json", Plain: `{"password": "CANARY-us-` + token(6) + `"}`}
	y := doc{Rel: "secrets/eu/y" + token(3) + ".sops.json", Plain: `{"password": "CANARY-eu-` + token(6) + `"}`}
	for _, d := range []*doc{&x, &y} {
		f.writeDoc(d.Rel, d.Plain, "")
		f.Values = append(f.Values, canaryIn(d.Plain))
	}
	f.commit("two scopes")
	xName := f.Prefix + "/us/" + strings.TrimSuffix(strings.TrimPrefix(x.Rel, "secrets/us/"), ".sops.json")
	yName := f.Prefix + "/eu/" + strings.TrimSuffix(strings.TrimPrefix(y.Rel, "secrets/eu/"), ".sops.json")
	f.Names = append(f.Names, xName, yName)
	config := func(euPrefix string) string {
		return "repository-id: " + f.RepoID + "\nscopes:\n" +
			"  - name: us\n    source-root: secrets/us\n    secret-prefix: " + f.Prefix + "/us\n    aws-region: us-east-1\n    replica-regions: eu-west-1\n" +
			"  - name: eu\n    source-root: secrets/eu\n    secret-prefix: " + euPrefix + "\n    aws-region: eu-west-1\n"
	}
	sts := []string{"AWS_ENDPOINT_URL_STS=" + e.URL} // one account of every scope: GetCallerIdentity

	r := f.run(e, runOpts{Config: config(f.Prefix + "/eu"), Env: sts}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 2})
	require.NotNil(t, e.secretIn("us-east-1", xName))
	assert.Equal(t, map[string]string{"eu-west-1": "InSync"}, replicaStatuses(e.secretIn("us-east-1", xName)))
	rep := e.secretIn("eu-west-1", xName)
	require.NotNil(t, rep)
	assert.True(t, rep.Replica)
	eu := e.secretIn("eu-west-1", yName)
	require.NotNil(t, eu)
	assert.Empty(t, eu.ReplicaRegions, "the eu scope lists no replica Region")
	before := e.mutatingCalls()
	r = f.run(e, runOpts{Config: config(f.Prefix + "/eu"), Env: sts}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 2})
	assert.Equal(t, before, e.mutatingCalls())
	assert.Nil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["level"] == "WARN" }), "no orphan warning:\n%s", r.Stdout)

	// One prefix for both: the eu scope's names could be the replicated
	// ones; refused before anything is read.
	calls := e.stats().Calls
	r = f.run(e, runOpts{Config: config(f.Prefix + "/us"), Env: sts}, "sync")
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == diag.ConfigScopeOverlap }))
	after := e.stats().Calls
	assert.Equal(t, calls["ListSecrets"], after["ListSecrets"], "nothing was read")
	assert.Equal(t, calls["DescribeSecret"], after["DescribeSecret"], "nothing was read")
}

// TestRegression_FailedReplicaPlansDrift: with a configured replica Failed,
// plan --detailed-exit-code exits 2 (status drift, nothing to write), so
// the scheduled drift check keeps its issue open while every sync exits 6;
// the plan file's Markdown (the drift issue's body) names the Region and
// never AWS's status message (a canary the fixture's scan fails on). It
// exited 0, converged.
func TestRegression_FailedReplicaPlansDrift(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.oneDoc()
	two := []string{"--replica-regions", "eu-west-1,us-west-2"}
	e.setFaults(emulator.Faults{ReplicaFailures: []emulator.ReplicaFailure{{Region: "us-west-2", Message: "CANARY replica key unusable"}}})
	r := f.run(e, runOpts{}, f.args("sync", two...)...)
	expect(t, r, 6, vocab.StatusVerificationFailed, vocab.VerificationFailed, &vocab.Counts{Create: 1})
	e.setFaults(emulator.Faults{})

	planFile := filepath.Join(t.TempDir(), "plan.json")
	r = f.run(e, runOpts{}, f.args("plan", append(two, "--detailed-exit-code", "--plan-file", planFile)...)...)
	expect(t, r, 2, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	rec := findRecord(r.records(t), func(m map[string]any) bool {
		return m["error_class"] == diag.WarningReplicasNotInSync && m["region"] != nil
	})
	require.NotNil(t, rec, r.Stdout)
	assert.Equal(t, "us-west-2", rec["region"])
	out, err := exec.Command(cliBin, "show", "--format", "markdown", planFile).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "Failed in us-west-2")
	assert.NotContains(t, string(out), "CANARY")

	r = f.run(e, runOpts{}, f.args("sync", two...)...)
	expect(t, r, 6, vocab.StatusVerificationFailed, vocab.VerificationFailed, &vocab.Counts{Unchanged: 1})
}
