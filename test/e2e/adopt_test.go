package e2e

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Adoption of named secrets (SPEC §11) with the real binary, real SOPS
// documents, real Git and the emulator.

// handMade creates a secret as a person would: no tags unless given, the
// value as given (nil: no value at all).
func (e *emu) handMade(t *testing.T, name string, value *string, tags map[string]string) string {
	t.Helper()
	in := &secretsmanager.CreateSecretInput{Name: aws.String(name), SecretString: value}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		in.Tags = append(in.Tags, types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	out, err := e.sdk().CreateSecret(context.Background(), in)
	require.NoError(t, err)
	return aws.ToString(out.ARN)
}

func (e *emu) totalCalls() int64 {
	var n int64
	for _, c := range e.stats().Calls {
		n += c
	}
	return n
}

// TestAdopt_ThreeHandMadeSecretsAdoptedThenNoOp: three secrets made by
// hand — one equal to its document, one differing, one with a key only in
// AWS — named in adopt are planned as adopt with the key-level diff against
// the live value (the live-only key counted, never named: not in the plan
// file, its renderings, the logs or the report), adopted in one sync (the
// report counts them as update, the plan file as adopt), and a re-run is a
// no-op that warns about the entries. The flag, the environment variable
// and the config file forms of adopt are each used once.
func TestAdopt_ThreeHandMadeSecretsAdoptedThenNoOp(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(3)
	oobKey := "OOBkey" + token(4)
	equal := f.addDoc("equal", ".sops.json", `{"k": "CANARY-eq-`+tok+`"}`)
	differs := f.addDoc("differs", ".sops.json", `{"k": "CANARY-d1-`+tok+`", "user": "u"}`)
	extra := f.addDoc("extra", ".sops.json", `{"k": "CANARY-x-`+tok+`"}`)
	f.commit("three documents for secrets made by hand")
	e.handMade(t, equal, aws.String(`{"k":"CANARY-eq-`+tok+`"}`), map[string]string{"owner": "ops"})
	e.handMade(t, differs, aws.String(`{"k":"CANARY-d0-`+tok+`","user":"u"}`), nil)
	e.handMade(t, extra, aws.String(`{"`+oobKey+`":"CANARY-live-`+tok+`","k":"CANARY-x-`+tok+`"}`), nil)
	f.Values = append(f.Values, oobKey, "CANARY-d0-"+tok, "CANARY-live-"+tok)
	adopt := []string{"--adopt", equal, "--adopt", differs, "--adopt", extra}

	// Without adopt, a same-name secret made by hand stays a conflict.
	r := f.run(e, runOpts{}, f.args("plan")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, &vocab.Counts{Conflicts: 3})

	before := e.mutatingCalls()
	wantKeys := map[string]*planview.KeyCounts{equal: {}, differs: {Changed: 1}, extra: {Removed: 1}}
	for _, show := range []bool{false, true} {
		args := f.args("plan", append(adopt, "--log-format", "text")...)
		if show {
			args = append(args, "--show-resource-names")
		}
		r, v, raw := f.runPlan(e, runOpts{ShowNames: show}, args...)
		expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 3})
		require.Len(t, v.Scopes, 1)
		assert.Equal(t, vocab.Counts{Adopt: 3}, v.Scopes[0].Counts)
		assert.Contains(t, string(raw), `"adopt": 3`)
		require.Len(t, v.Scopes[0].Operations, 3)
		for _, o := range v.Scopes[0].Operations {
			assert.Equal(t, vocab.ActionAdopt, o.Action)
			if show {
				assert.Equal(t, wantKeys[o.Resource], o.Keys, o.Resource)
				assert.Empty(t, o.KeyPaths.Removed, "a live-only key is never named")
			}
		}
		assert.Contains(t, r.Stdout, "Adopt (3):")
		assert.Contains(t, r.Stdout, "Plan: 0 to create, 3 to adopt, 0 to update")
		assert.Contains(t, r.Stdout, "adopt: ~0 +0 -0 (value equal)")
		assert.Contains(t, r.Stdout, "adopt: ~0 +0 -1 (value differs)")
		if show {
			assert.Contains(t, r.Stdout, "1 key not in the desired document (never named)")
		}
		for where, text := range map[string]string{"plan file": string(raw), "stdout": r.Stdout, "stderr": r.Stderr, "report": string(r.RawReport)} {
			assert.NotContains(t, text, oobKey, where)
			assert.NotContains(t, text, "CANARY", where)
		}
	}
	assert.Equal(t, before, e.mutatingCalls(), "plan is read-only")

	// sync adopts all three (flag form).
	r, v, raw := f.runPlan(e, runOpts{}, f.args("sync", adopt...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 3})
	assert.Equal(t, vocab.Counts{Adopt: 3}, v.Scopes[0].Counts)
	calls := e.stats().Calls
	assert.EqualValues(t, 3, calls["TagResource"], "one TagResource per adoption")
	assert.EqualValues(t, 2, calls["PutSecretValue"], "a value write only where the value differs")
	assert.EqualValues(t, 0, calls["CreateSecret"]-3, "no secret created by the tool")
	scope := model.Scope{RepositoryID: f.RepoID, SourceRoot: "secrets", Prefix: f.Prefix}
	for name, value := range map[string]string{equal: `{"k":"CANARY-eq-` + tok + `"}`, differs: `{"k":"CANARY-d1-` + tok + `","user":"u"}`, extra: `{"k":"CANARY-x-` + tok + `"}`} {
		assert.Equal(t, value, e.currentValue(name), name)
		s := e.secret(name)
		require.NotNil(t, s)
		assert.Equal(t, model.ManagedByValue, s.Tags[model.TagManagedBy], name)
		assert.Equal(t, scope.Digest(), s.Tags[model.TagScope], name)
	}
	assert.Equal(t, "ops", e.secret(equal).Tags["owner"], "a tag set by hand stays")
	assert.Len(t, e.secret(equal).Versions, 1, "an equal value gets no new version")
	for _, text := range []string{string(raw), r.Stdout, string(r.RawReport)} {
		assert.NotContains(t, text, oobKey)
	}

	// The Markdown rendering of the saved plan holds no live-only key either.
	out, err := exec.Command(cliBin, "show", "--format", "markdown", writeTemp(t, raw)).CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "| adopt |")
	assert.NotContains(t, string(out), oobKey)
	assert.NotContains(t, string(out), "CANARY")

	// The re-run (environment form) is a no-op that warns about the entries.
	before = e.mutatingCalls()
	r = f.run(e, runOpts{Env: []string{"SOPS_AWS_SYNC_ADOPT=" + strings.Join([]string{equal, differs, extra}, ",")}}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, before, e.mutatingCalls(), "a converged re-run writes nothing")
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "warning:adopt-owned" })
	require.NotNil(t, rec, "warning:adopt-owned record:\n%s", r.Stdout)

	// Config file form: the same no-op; the plan file carries the warning
	// with the setting as its subject (a count, no name).
	r, v, _ = f.runPlan(e, runOpts{Config: "adopt: [" + equal + ", " + differs + ", " + extra + "]\n"}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, before, e.mutatingCalls())
	require.Len(t, v.Scopes, 1)
	require.Len(t, v.Scopes[0].Diagnostics, 1)
	assert.Equal(t, diag.Record{Class: "warning:adopt-owned", Subject: "config file key adopt",
		Summary: "3 adopt entries name secrets this scope already owns; the entries do nothing",
		Next:    "remove the entry from adopt: the secret is managed like every other owned secret (docs/migration.md)"}, v.Scopes[0].Diagnostics[0])
}

// TestAdopt_EveryRefusalWritesNothing: named secrets that may not be
// adopted each give their conflict class — ownership (another scope's
// tags), service-owned, rotation, replication, adopt-deleted, payload (no
// value), adopt-mismatch (adopt-require-match with a differing value) —
// and the run makes no mutating call (exit 4), in plan and sync.
func TestAdopt_EveryRefusalWritesNothing(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(3)
	names := map[vocab.ConflictClass]string{}
	for _, c := range []vocab.ConflictClass{vocab.ConflictOwnership, vocab.ConflictServiceOwned, vocab.ConflictRotation,
		vocab.ConflictReplication, vocab.ConflictAdoptDeleted, vocab.ConflictPayload, vocab.ConflictAdoptMismatch} {
		names[c] = f.addDoc(string(c), ".sops.json", `{"k": "CANARY-`+string(c)+`-`+tok+`"}`)
	}
	fine := f.addDoc("fine", ".sops.json", `{"k": "CANARY-fine-`+tok+`"}`)
	f.commit("documents for secrets that may not be adopted")
	live := func(c vocab.ConflictClass) *string { return aws.String(`{"k":"CANARY-` + string(c) + `-` + tok + `"}`) }
	other := model.Scope{RepositoryID: "acme/other", SourceRoot: "secrets", Prefix: f.Prefix}
	e.handMade(t, names[vocab.ConflictOwnership], live(vocab.ConflictOwnership), other.Tags("secrets/ownership.sops.json"))
	e.conditions(emulator.Conditions{Name: e.handMade(t, names[vocab.ConflictServiceOwned], live(vocab.ConflictServiceOwned), nil), OwningService: aws.String("rds")})
	e.conditions(emulator.Conditions{Name: e.handMade(t, names[vocab.ConflictRotation], live(vocab.ConflictRotation), nil), RotationEnabled: aws.Bool(true)})
	e.conditions(emulator.Conditions{Name: e.handMade(t, names[vocab.ConflictReplication], live(vocab.ConflictReplication), nil), ReplicaRegions: []string{"eu-west-1"}})
	deleted := e.handMade(t, names[vocab.ConflictAdoptDeleted], live(vocab.ConflictAdoptDeleted), nil)
	_, err := e.sdk().DeleteSecret(context.Background(), &secretsmanager.DeleteSecretInput{SecretId: aws.String(deleted), RecoveryWindowInDays: aws.Int64(7)})
	require.NoError(t, err)
	e.handMade(t, names[vocab.ConflictPayload], nil, nil)
	e.handMade(t, names[vocab.ConflictAdoptMismatch], aws.String(`{"k":"CANARY-live-`+tok+`"}`), nil)
	e.handMade(t, fine, aws.String(`{"k":"CANARY-fine-`+tok+`"}`), nil)
	f.Values = append(f.Values, "CANARY-live-"+tok)

	args := []string{"--adopt-require-match", "--adopt", fine}
	for _, n := range names {
		args = append(args, "--adopt", n)
	}
	for _, cmd := range []string{"plan", "sync"} {
		before := e.mutatingCalls()
		r := f.run(e, runOpts{}, f.args(cmd, args...)...)
		expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
		assert.Equal(t, len(names), r.Report.Counts.Conflicts)
		assert.Equal(t, before, e.mutatingCalls(), "%s: a refused adoption writes nothing", cmd)
		var got []string
		for _, rec := range r.records(t) {
			if c, ok := rec["conflict_class"].(string); ok {
				got = append(got, c)
			}
		}
		var want []string
		for c := range names {
			want = append(want, string(c))
		}
		assert.ElementsMatch(t, want, got, "%s: conflict classes", cmd)
	}
	assert.Empty(t, e.secret(fine).Tags[model.TagManagedBy], "an adoptable secret beside a refusal is not adopted either")
}

// TestAdopt_EntryNamingNoDocumentIsExit3WithZeroCalls: an adopt entry that
// no document of the commit maps to is config:adopt-not-desired, exit 3,
// before any AWS call; its name is not logged while names are hidden.
func TestAdopt_EntryNamingNoDocumentIsExit3WithZeroCalls(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.addDoc("present", ".sops.json", `{"k": "CANARY-p-`+token(3)+`"}`)
	f.commit("one document")
	missing := f.Prefix + "/not-a-document"
	f.Names = append(f.Names, missing)
	for _, cmd := range []string{"plan", "sync"} {
		before := e.totalCalls()
		r := f.run(e, runOpts{}, f.args(cmd, "--adopt", missing)...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
		assert.Equal(t, before, e.totalCalls(), "%s: no AWS call", cmd)
		rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "config:adopt-not-desired" })
		require.NotNil(t, rec, "%s:\n%s", cmd, r.Stdout)
	}
}

// writeTemp writes b to a new file in a test directory and returns its path.
func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, os.WriteFile(p, b, 0o600))
	return p
}

// TestAdopt_PerScopeInOneRun: adopt is a per-scope setting (SPEC §10, §11):
// in a run of two scopes, the scope whose entry names its hand-made secret
// adopts it and the other creates its own; the plan file counts the
// adoption in that scope's section, the report as an update. An entry of
// one scope that names no document of that scope refuses the whole run
// (exit 3) before any Secrets Manager call in any scope.
func TestAdopt_PerScopeInOneRun(t *testing.T) {
	f := newFixture(t)
	e, env := roleEmulator(t)
	tok := token(3)
	f.writeDoc("secrets/one/db.sops.json", `{"password": "CANARY-one-`+tok+`"}`, "")
	f.writeDoc("secrets/two/db.sops.json", `{"password": "CANARY-two-`+tok+`"}`, "")
	f.Values = append(f.Values, "CANARY-one-"+tok, "CANARY-two-"+tok, "CANARY-byhand-"+tok)
	f.commit("two scopes")
	one, two := f.Prefix+"/one/db", f.Prefix+"/two/db"
	f.Names = append(f.Names, one, two)
	e.handMade(t, one, aws.String(`{"password":"CANARY-byhand-`+tok+`"}`), nil)
	scopes := func(twoAdopt string) string {
		c := "repository-id: " + f.RepoID + "\nscopes:\n" +
			"  - name: one\n    source-root: secrets/one\n    secret-prefix: " + f.Prefix + "/one\n    adopt: [" + one + "]\n" +
			"  - name: two\n    source-root: secrets/two\n    secret-prefix: " + f.Prefix + "/two\n"
		if twoAdopt != "" {
			c += "    adopt: [" + twoAdopt + "]\n"
		}
		return c
	}

	before := e.stats().Calls
	r := f.run(e, runOpts{Env: env, Config: scopes(f.Prefix + "/two/none")}, "sync")
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	after := e.stats().Calls
	for _, op := range []string{"ListSecrets", "DescribeSecret", "GetSecretValue", "BatchGetSecretValue", "TagResource", "PutSecretValue", "CreateSecret"} {
		assert.Equal(t, before[op], after[op], "%s: no Secrets Manager call", op)
	}
	require.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "config:adopt-not-desired" }), r.Stdout)

	r, v, _ := f.runPlan(e, runOpts{Env: env, Config: scopes("")}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1, Update: 1})
	require.Len(t, v.Scopes, 2)
	assert.Equal(t, vocab.Counts{Adopt: 1}, v.Scopes[0].Counts, "scope one adopts")
	assert.Equal(t, vocab.Counts{Create: 1}, v.Scopes[1].Counts, "scope two creates")
	assert.Equal(t, `{"password":"CANARY-one-`+tok+`"}`, e.currentValue(one))
	assert.Equal(t, model.ManagedByValue, e.secret(one).Tags[model.TagManagedBy])

	before2 := e.mutatingCalls()
	r = f.run(e, runOpts{Env: env, Config: scopes("")}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 2})
	assert.Equal(t, before2, e.mutatingCalls())
}

// TestRegression_AdoptDiagnosticsNameTheScopesConfigKey: issue 44 §4. An
// adopt entry of a scope listed in the config file's scopes: is named by
// its key, scopes.<name>.adopt, in warning:adopt-owned (the entry's secret
// is owned after the first sync) and in config:adopt-not-desired (an entry
// no document maps to), never "setting --adopt", a flag the operator did
// not give.
func TestRegression_AdoptDiagnosticsNameTheScopesConfigKey(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(3)
	db := f.addDoc("db", ".sops.json", `{"k": "CANARY-db-`+tok+`"}`)
	f.commit("a document for a secret made by hand")
	e.handMade(t, db, aws.String(`{"k":"CANARY-hand-`+tok+`"}`), nil)
	f.Values = append(f.Values, "CANARY-hand-"+tok)
	config := func(adopt string) string {
		return "repository-id: " + f.RepoID + "\nscopes:\n" +
			"  - name: app\n    source-root: secrets\n    secret-prefix: " + f.Prefix + "\n    adopt: [" + adopt + "]\n"
	}
	const key = "config file key scopes.app.adopt"

	r, v, _ := f.runPlan(e, runOpts{Config: config(f.Prefix + "/none")}, "plan")
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	require.Len(t, v.Scopes, 1)
	require.NotEmpty(t, v.Scopes[0].Diagnostics)
	assert.Equal(t, "config:adopt-not-desired", v.Scopes[0].Diagnostics[0].Class)
	assert.Equal(t, key, v.Scopes[0].Diagnostics[0].Subject)

	r = f.run(e, runOpts{Config: config(db)}, "sync")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	r, v, _ = f.runPlan(e, runOpts{Config: config(db)}, "plan", "--log-format", "text")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	require.Len(t, v.Scopes[0].Diagnostics, 1)
	assert.Equal(t, "warning:adopt-owned", v.Scopes[0].Diagnostics[0].Class)
	assert.Equal(t, key, v.Scopes[0].Diagnostics[0].Subject)
	assert.Contains(t, r.Stdout, key)
	assert.NotContains(t, r.Stdout, "setting --adopt")
}

// TestRegression_ReplicatedHandMadeSecretCanBeAdopted: issue 30 item 1
// with the real binary and an emulator whose secret was replicated by hand
// to eu-west-1. Named in adopt by a scope whose replica-regions lists
// eu-west-1 and us-west-2 it is adopted: the plan shows the adoption adding
// us-west-2, the sync tags it, keeps the eu-west-1 replica (never removed)
// and adds us-west-2, and a re-run is a no-op. A second secret with a
// replica in ap-south-1 (not listed) is conflict replication whose next
// line says to list that Region or remove the replica, not the looping
// "manage them here with replica-regions".
func TestRegression_ReplicatedHandMadeSecretCanBeAdopted(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(3)
	db := f.addDoc("db", ".sops.json", `{"k": "CANARY-db-`+tok+`"}`)
	f.commit("a document for a replicated secret made by hand")
	replicate := func(arn string, regions ...string) {
		in := &secretsmanager.ReplicateSecretToRegionsInput{SecretId: aws.String(arn)}
		for _, r := range regions {
			in.AddReplicaRegions = append(in.AddReplicaRegions, types.ReplicaRegionType{Region: aws.String(r)})
		}
		_, err := e.sdk().ReplicateSecretToRegions(context.Background(), in)
		require.NoError(t, err)
	}
	replicate(e.handMade(t, db, aws.String(`{"k":"CANARY-db-`+tok+`"}`), nil), "eu-west-1")
	args := []string{"--adopt", db, "--replica-regions", "eu-west-1,us-west-2", "--log-format", "text"}

	before := e.mutatingCalls()
	r := f.run(e, runOpts{}, f.args("plan", args...)...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 1})
	assert.Contains(t, r.Stdout, "Adopt (1):")
	assert.Contains(t, r.Stdout, "+ replica us-west-2")
	assert.NotContains(t, r.Stdout, "- replica")
	assert.Equal(t, before, e.mutatingCalls(), "plan is read-only")

	r = f.run(e, runOpts{}, f.args("sync", args...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	calls := e.stats().Calls
	assert.Zero(t, calls["RemoveRegionsFromReplication"], "the adopted replica is kept")
	assert.EqualValues(t, 2, calls["ReplicateSecretToRegions"], "the hand-made replica, then us-west-2")
	primary := e.secretIn("us-east-1", db)
	require.NotNil(t, primary)
	assert.Equal(t, model.ManagedByValue, primary.Tags[model.TagManagedBy])
	assert.Equal(t, map[string]string{"eu-west-1": "InSync", "us-west-2": "InSync"}, replicaStatuses(primary))

	before = e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", args...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
	assert.Equal(t, before, e.mutatingCalls(), "then a no-op")

	// A replica in a Region the scope does not list: conflict replication,
	// nothing written, a next line that does not loop.
	other := f.addDoc("other", ".sops.json", `{"k": "CANARY-other-`+tok+`"}`)
	f.commit("a second replicated secret")
	replicate(e.handMade(t, other, aws.String(`{"k":"CANARY-other-`+tok+`"}`), nil), "eu-west-1", "ap-south-1")
	before = e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", "--adopt", other, "--replica-regions", "eu-west-1,us-west-2", "--log-format", "text")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1, Conflicts: 1})
	assert.Equal(t, before, e.mutatingCalls(), "a refused adoption writes nothing")
	assert.Contains(t, r.Stdout, "add each of its replica Regions to replica-regions")
	assert.NotContains(t, r.Stdout, "manage them here with replica-regions")
}
