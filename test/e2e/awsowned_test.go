package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Keys owned by AWS (SPEC §13) with the real binary, real SOPS documents,
// real Git and the emulator's rotation, step by step.

// liveJSON decodes the AWSCURRENT value of name.
func (e *emu) liveJSON(t *testing.T, name string) map[string]string {
	t.Helper()
	var m map[string]string
	require.NoError(t, json.Unmarshal([]byte(e.currentValue(name)), &m), "live value is not a JSON object of strings")
	return m
}

// rotate runs the four steps of a rotation that sets /password, or the
// steps listed; its finish leaves AWSPENDING on the new current version,
// as AWS's sample rotation functions do (the tool removes it from the
// version its write replaces, SPEC §13).
func (e *emu) rotate(name string, values map[string]string, steps ...string) {
	e.t.Helper()
	if len(steps) == 0 {
		steps = []string{emulator.RotationCreate, emulator.RotationSet, emulator.RotationTest, emulator.RotationFinish}
	}
	for _, s := range steps {
		rot := emulator.Rotation{Name: name, Step: s}
		if s == emulator.RotationCreate {
			rot.Values = values
		}
		e.ctl.Rotate(rot)
	}
}

// strayPending returns the versions of name that carry AWSPENDING
// without AWSCURRENT (a rotation in flight, to AWS and the planner).
func (e *emu) strayPending(name string) []string {
	var out []string
	if s := e.secret(name); s != nil {
		for _, v := range s.Versions {
			if slices.Contains(v.Stages, "AWSPENDING") && !slices.Contains(v.Stages, "AWSCURRENT") {
				out = append(out, v.VersionID)
			}
		}
	}
	return out
}

// planFileOf runs plan with --plan-file and returns the run and the view.
func (f *fixture) planFileOf(e *emu, o runOpts, extra ...string) (result, planview.View, []byte) {
	f.t.Helper()
	p := filepath.Join(f.t.TempDir(), "plan.json")
	r := f.run(e, o, f.args("plan", append([]string{"--plan-file", p}, extra...)...)...)
	raw, err := os.ReadFile(p)
	require.NoError(f.t, err)
	v, err := planview.Parse(raw)
	require.NoError(f.t, err)
	return r, v, raw
}

const awsOwnedPassword = "aws-owned:\n  - secret: db\n    keys: [/password]\n"

// TestAWSOwned_RotationBesideGit: a rotation-enabled secret whose
// /password AWS owns. A rotation between two syncs is not drift (plan
// --detailed-exit-code exits 0, the plan counts the kept key, sync writes
// nothing); a Git change to /host after a rotation keeps the rotated
// password; a sync during a rotation (after create-pending, before finish)
// is exit 4 rotation with nothing written, and converges once the
// rotation finished; a rotation function that drops /password leaves
// conflict aws-owned-missing.
func TestAWSOwned_RotationBesideGit(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	rot1, rot2 := "CANARY-rot1-"+tok, "CANARY-rot2-"+tok
	f.Values = append(f.Values, rot1, rot2, "CANARY-h2-"+tok, "CANARY-h3-"+tok)
	name := f.addDoc("db", ".sops.json", `{"host": "CANARY-h1-`+tok+`", "password": "CANARY-seed-`+tok+`"}`)
	f.commit("db document")
	o := runOpts{Config: awsOwnedPassword}

	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	require.Equal(t, "CANARY-seed-"+tok, e.liveJSON(t, name)["password"], "create takes the document's value")

	// Without aws-owned the rotating secret is conflict rotation, as before.
	e.conditions(emulator.Conditions{Name: name, RotationEnabled: aws.Bool(true)})
	expect(t, f.run(e, runOpts{}, f.args("plan")...), 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)

	// A rotation between two syncs is not drift.
	e.rotate(name, map[string]string{"/password": rot1})
	writes := e.mutatingCalls()
	r, v, raw := f.planFileOf(e, o, "--detailed-exit-code")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	require.Len(t, v.Scopes[0].Operations, 1)
	assert.Equal(t, 1, v.Scopes[0].Operations[0].AWSOwnedKept, "the plan file counts the kept key")
	assert.NotContains(t, string(raw), rot1)
	shown, err := exec.Command(cliBin, "show", writeTemp(t, raw)).CombinedOutput()
	require.NoError(t, err, "%s", shown)
	assert.Contains(t, string(shown), "kept: 1 key owned by AWS")
	md, err := exec.Command(cliBin, "show", "--format", "markdown", writeTemp(t, raw)).CombinedOutput()
	require.NoError(t, err, "%s", md)
	assert.Contains(t, string(md), "kept: 1 key owned by AWS")
	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
	assert.Equal(t, writes, e.mutatingCalls(), "a rotated password is no change: nothing written")
	assert.Equal(t, rot1, e.liveJSON(t, name)["password"])

	// A Git change to /host after the rotation keeps the rotated password.
	f.writeDoc("secrets/db.sops.json", `{"host": "CANARY-h2-`+tok+`", "password": "CANARY-seed-`+tok+`"}`, "")
	f.commit("move the database")
	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	live := e.liveJSON(t, name)
	assert.Equal(t, "CANARY-h2-"+tok, live["host"])
	assert.Equal(t, rot1, live["password"], "the rotated password was kept")
	assert.Empty(t, e.strayPending(name), "the rotation's leftover AWSPENDING was removed from the version the write replaced")

	// A sync during a rotation: exit 4 rotation, nothing written.
	e.rotate(name, map[string]string{"/password": rot2}, emulator.RotationCreate, emulator.RotationSet)
	f.writeDoc("secrets/db.sops.json", `{"host": "CANARY-h3-`+tok+`", "password": "CANARY-seed-`+tok+`"}`, "")
	f.commit("move the database again")
	writes = e.mutatingCalls()
	r = f.run(e, o, f.args("sync")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, &vocab.Counts{Conflicts: 1})
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] != nil })
	require.NotNil(t, rec)
	assert.Equal(t, "rotation", rec["conflict_class"])
	assert.Equal(t, writes, e.mutatingCalls(), "nothing written during the rotation")
	e.rotate(name, nil, emulator.RotationTest, emulator.RotationFinish)
	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	live = e.liveJSON(t, name)
	assert.Equal(t, "CANARY-h3-"+tok, live["host"])
	assert.Equal(t, rot2, live["password"])

	// A rotation function that drops /password: the tool does not know it.
	e.ctl.Rotate(emulator.Rotation{Name: name, Step: emulator.RotationCreate, Remove: []string{"/password"}})
	e.ctl.Rotate(emulator.Rotation{Name: name, Step: emulator.RotationFinish, RemovePending: true})
	writes = e.mutatingCalls()
	r = f.run(e, o, f.args("sync")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, &vocab.Counts{Conflicts: 1})
	rec = findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] != nil })
	require.NotNil(t, rec)
	assert.Equal(t, "aws-owned-missing", rec["conflict_class"])
	assert.Equal(t, writes, e.mutatingCalls())
}

var alnum32 = regexp.MustCompile(`^[A-Za-z0-9]{32}$`)

// TestAWSOwned_GeneratedValueLeaksNowhere: a create with generate: 32
// stores a 32-character [A-Za-z0-9] value that appears in no output, log,
// report, plan file or Git object, and is never written again.
func TestAWSOwned_GeneratedValueLeaksNowhere(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	name := f.addDoc("db", ".sops.json", `{"host": "CANARY-h-`+tok+`", "user": "app"}`)
	f.commit("db document without a password")
	o := runOpts{Config: awsOwnedPassword + "    generate: 32\n"}

	planFile := filepath.Join(t.TempDir(), "plan.json")
	runs := []result{f.run(e, o, f.args("sync", "--plan-file", planFile, "--log-level", "debug")...)}
	expect(t, runs[0], 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	live := e.liveJSON(t, name)
	gen := live["password"]
	require.Regexp(t, alnum32, gen, "generated value")
	assert.Equal(t, "CANARY-h-"+tok, live["host"])
	assert.Equal(t, "app", live["user"])

	writes := e.mutatingCalls()
	r, _, raw := f.planFileOf(e, runOpts{Config: o.Config, ShowNames: true}, "--show-resource-names", "--log-format", "text")
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	runs = append(runs, r, f.run(e, o, f.args("sync", "--log-level", "debug")...))
	expect(t, runs[2], 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
	assert.Equal(t, writes, e.mutatingCalls(), "the generated value is never written again")
	assert.Equal(t, gen, e.liveJSON(t, name)["password"])

	firstPlan, err := os.ReadFile(planFile)
	require.NoError(t, err)
	for i, r := range runs {
		for where, text := range map[string]string{"stdout": r.Stdout, "stderr": r.Stderr, "report": string(r.RawReport)} {
			assert.NotContains(t, text, gen, "run %d: generated value in %s", i, where)
		}
	}
	for where, text := range map[string][]byte{"plan file": firstPlan, "plan file with names": raw} {
		assert.NotContains(t, string(text), gen, "generated value in the %s", where)
	}
	objects := exec.Command(gitBin, "cat-file", "--batch-all-objects", "--batch")
	objects.Dir, objects.Env = f.Repo, f.env()
	all, err := objects.Output()
	require.NoError(t, err)
	require.NotEmpty(t, all)
	assert.NotContains(t, string(all), gen, "generated value in a Git object")
	require.NoError(t, filepath.WalkDir(f.Repo, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			assert.NotContains(t, string(b), gen, "generated value in %s", p)
		}
		return err
	}))
}

// TestAWSOwned_WholeValueSeedsOnce: keys [""] seeds the value at create
// and never writes it again, whatever the document or AWS hold later.
func TestAWSOwned_WholeValueSeedsOnce(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	name := f.addDoc("seed", ".sops.json", `{"k": "CANARY-seed-`+tok+`"}`)
	f.commit("seed document")
	f.Values = append(f.Values, "CANARY-aws-"+tok, "CANARY-git2-"+tok)
	o := runOpts{Config: "aws-owned: [{secret: seed, keys: [\"\"]}]\n"}
	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	assert.Equal(t, `{"k":"CANARY-seed-`+tok+`"}`, e.currentValue(name))

	e.putValue(name, `{"k":"CANARY-aws-`+tok+`"}`)
	f.writeDoc("secrets/seed.sops.json", `{"k": "CANARY-git2-`+tok+`"}`, "")
	f.commit("a new seed that must not be written")
	writes := e.mutatingCalls()
	r := f.run(e, o, f.args("plan", "--detailed-exit-code")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
	assert.Equal(t, writes, e.mutatingCalls(), "the value is never written again")
	assert.Equal(t, `{"k":"CANARY-aws-`+tok+`"}`, e.currentValue(name))
}

// TestAWSOwned_InvalidEntriesExit3WithZeroAWSCalls: every entry that
// breaks a rule is exit 3 (invalid) before any AWS call, in plan and sync;
// a create that lacks a listed key without generate is exit 3 with nothing
// written.
func TestAWSOwned_InvalidEntriesExit3WithZeroAWSCalls(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.addDoc("db", ".sops.json", `{"host": "CANARY-h-`+token(4)+`"}`)
	f.addDoc("cert", ".sops.txt", "CANARY-cert-"+token(4)+"\n")
	f.commit("documents")
	for what, cfg := range map[string]string{
		"bad pointer":                  "aws-owned: [{secret: db, keys: [password]}]\n",
		"pattern matching no document": "aws-owned: [{secret: cache/*, keys: [/password]}]\n",
		"generate without a key":       "aws-owned: [{secret: db, keys: [\"\"], generate: 32}]\n",
		"whole-value document key":     "aws-owned: [{secret: cert, keys: [/k]}]\n",
		"two entries for one document": "aws-owned: [{secret: db, keys: [/a]}, {secret: \"d*\", keys: [/b]}]\n",
		"generate too short":           "aws-owned: [{secret: db, keys: [/password], generate: 4}]\n",
	} {
		for _, cmd := range []string{"plan", "sync"} {
			r := f.run(e, runOpts{Config: cfg}, f.args(cmd)...)
			expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
			assert.Contains(t, r.Stderr+r.Stdout, "aws-owned", "%s: the error names the setting", what)
			assert.Zero(t, e.totalCalls(), "%s (%s): an AWS call was made", what, cmd)
		}
	}
	r := f.run(e, runOpts{Config: awsOwnedPassword}, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.True(t, strings.Contains(r.Stdout, "config:aws-owned"), "stdout: %s", r.Stdout)
	e.onlyReads("a create that lacks /password without generate")
	assert.Zero(t, e.mutatingCalls())
}

// TestRegression_AdoptedAWSOwnedKeyIsKeptNotRemoved: adopting a secret
// made by hand whose /password AWS owns, from a document without it. The
// adopt line counts the password only as kept, never as a key "not in the
// desired document" (which read as "the password is dropped"), with names
// hidden and shown; the adoption keeps the live password, also when a
// Git-owned key differs (the adoption wrote the document alone, and
// verification then found /password missing).
func TestRegression_AdoptedAWSOwnedKeyIsKeptNotRemoved(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	pw := "CANARY-pw-" + tok
	f.Values = append(f.Values, pw, "CANARY-h2-"+tok)
	name := f.addDoc("db", ".sops.json", `{"host": "CANARY-h1-`+tok+`"}`)
	f.commit("db document without the password")
	e.handMade(t, name, aws.String(`{"host":"CANARY-h1-`+tok+`","password":"`+pw+`"}`), nil)
	o := runOpts{Config: awsOwnedPassword}

	for _, show := range []bool{false, true} {
		args := f.args("plan", "--adopt", name, "--log-format", "text")
		if show {
			args = append(args, "--show-resource-names")
		}
		r, v, _ := f.runPlan(e, runOpts{Config: o.Config, ShowNames: show}, args...)
		expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 1})
		require.Len(t, v.Scopes[0].Operations, 1)
		op := v.Scopes[0].Operations[0]
		assert.Equal(t, vocab.ActionAdopt, op.Action)
		assert.Equal(t, &planview.KeyCounts{}, op.Keys, "the kept password is no key change")
		assert.Equal(t, 1, op.AWSOwnedKept)
		assert.Contains(t, r.Stdout, "adopt: ~0 +0 -0 (value equal)")
		assert.Contains(t, r.Stdout, "kept: 1 key owned by AWS")
		assert.NotContains(t, r.Stdout, "not in the desired document")
	}

	f.writeDoc("secrets/db.sops.json", `{"host": "CANARY-h2-`+tok+`"}`, "")
	f.commit("move the database")
	r := f.run(e, o, f.args("sync", "--adopt", name, "--log-format", "text")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	assert.Contains(t, r.Stdout, "adopt: ~1 +0 -0 (value differs)")
	live := e.liveJSON(t, name)
	assert.Equal(t, "CANARY-h2-"+tok, live["host"])
	assert.Equal(t, pw, live["password"], "the adoption kept the password AWS owns")
	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
}

// TestRegression_AdoptingARotatingSecretIsRefused: a secret made by hand
// that already rotates, named in adopt. Without aws-owned it is conflict
// rotation whose next action says to list the rotated keys (it said "a
// rotated secret cannot also be Git-managed"); while a rotation is in
// flight, conflict rotation whose next action says to re-run after it
// finishes, with nothing written; once it finished, with aws-owned
// listing /password, sync adopts it (it was conflict rotation for good),
// keeps the rotated password, and the next run is a no-op.
func TestRegression_AdoptingARotatingSecretIsRefused(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	rotated := "CANARY-rot-" + tok
	f.Values = append(f.Values, "CANARY-pw0-"+tok, rotated)
	name := f.addDoc("db", ".sops.json", `{"host": "CANARY-h1-`+tok+`"}`)
	f.commit("db document without the password")
	e.handMade(t, name, aws.String(`{"host":"CANARY-h1-`+tok+`","password":"CANARY-pw0-`+tok+`"}`), nil)
	e.conditions(emulator.Conditions{Name: name, RotationEnabled: aws.Bool(true)})
	o := runOpts{Config: awsOwnedPassword}
	conflictNext := func(r result) string {
		t.Helper()
		expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, &vocab.Counts{Conflicts: 1})
		assert.NotContains(t, r.Stdout, "cannot also be Git-managed")
		i := strings.Index(r.Stdout, "conflict: rotation")
		require.GreaterOrEqual(t, i, 0, "stdout:\n%s", r.Stdout)
		return r.Stdout[i:]
	}

	writes := e.mutatingCalls()
	r, v, _ := f.runPlan(e, runOpts{}, f.args("plan", "--adopt", name, "--log-format", "text")...)
	assert.Contains(t, conflictNext(r), "next: list the keys the rotation changes in aws-owned")
	assert.Equal(t, vocab.CaseRotationKeysNotListed, v.Scopes[0].Operations[0].Case)

	e.rotate(name, map[string]string{"/password": rotated}, emulator.RotationCreate, emulator.RotationSet)
	for _, cmd := range []string{"plan", "sync"} {
		r, v, _ := f.runPlan(e, o, f.args(cmd, "--adopt", name, "--log-format", "text")...)
		assert.Contains(t, conflictNext(r), "next: re-run after the rotation finishes", cmd)
		assert.Equal(t, vocab.CaseRotationInFlight, v.Scopes[0].Operations[0].Case, cmd)
	}
	assert.Equal(t, writes, e.mutatingCalls(), "nothing written while refused")

	e.rotate(name, nil, emulator.RotationTest, emulator.RotationFinish)
	r = f.run(e, o, f.args("sync", "--adopt", name, "--log-format", "text")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1})
	assert.Contains(t, r.Stdout, "adopt: ~0 +0 -0 (value equal)")
	assert.Contains(t, r.Stdout, "kept: 1 key owned by AWS")
	live := e.liveJSON(t, name)
	assert.Equal(t, rotated, live["password"], "the rotated password is kept")
	assert.Equal(t, "CANARY-h1-"+tok, live["host"])
	assert.Equal(t, model.ManagedByValue, e.secret(name).Tags[model.TagManagedBy], "adopted")
	writes = e.mutatingCalls()
	expect(t, f.run(e, o, f.args("sync")...), 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 1})
	assert.Equal(t, writes, e.mutatingCalls(), "the adopted rotating secret is a no-op")
}

// TestRegression_GeneratedKeyPastTheSizeLimitBlocksEveryLaterRun: a
// document just under Secrets Manager's 65,536 bytes whose /password
// aws-owned generates planned a clean create, created the secret without
// the key (exit 6), and every later run was conflict aws-owned-missing.
// Now plan and sync stop at planning: exit 3, gate:value-too-large naming
// the document by its resource label with its next action, nothing
// written; a shorter generate that fits creates the secret with the key.
// A parameter-store scope cannot have aws-owned at all (exit 3 before any
// AWS call), so its tier limits are never met this way.
func TestRegression_GeneratedKeyPastTheSizeLimitBlocksEveryLaterRun(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	// {"host":"…","pad":"x…"} + ,"password":"<32>" is one byte over 65,536.
	host := "CANARY-h-" + tok
	fixed := len(`{"host":"` + host + `","pad":""}`)
	pad := strings.Repeat("x", 65536-fixed-len(`,"password":""`)-32+1)
	name := f.addDoc("db", ".sops.json", `{"host": "`+host+`", "pad": "`+pad+`"}`)
	f.commit("a large db document without a password")
	o := runOpts{Config: awsOwnedPassword + "    generate: 32\n"}
	for _, cmd := range []string{"plan", "sync"} {
		r := f.run(e, o, f.args(cmd, "--log-format", "text")...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
		assert.Contains(t, r.Stdout, "gate:value-too-large resource-0001: with the keys aws-owned lists", cmd)
		assert.Contains(t, r.Stdout, "next: shorten the document", cmd)
		assert.Zero(t, e.mutatingCalls(), "%s: nothing written", cmd)
	}
	r := f.run(e, runOpts{Config: awsOwnedPassword + "    generate: 31\n"}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	assert.Len(t, e.liveJSON(t, name)["password"], 31)
	assert.Len(t, e.currentValue(name), 65536)

	r = f.run(e, o, f.psArgs("plan")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	assert.Contains(t, r.Stdout+r.Stderr, "aws-owned")
}
