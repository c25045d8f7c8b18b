package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Issue 13 with the real binary, real SOPS documents, real Git and the
// emulator: the plan file, its text rendering, show, and every invalid
// document reported at once.

// runPlan runs the CLI with --plan-file and returns the run and the plan
// file, which it reads strictly (planview.ReadFile) and scans for the same
// canaries as stdout, stderr and the report.
func (f *fixture) runPlan(e *emu, o runOpts, args ...string) (result, planview.View, []byte) {
	f.t.Helper()
	p := filepath.Join(f.t.TempDir(), "plan.json")
	r := f.run(e, o, append(args, "--plan-file", p)...)
	raw, err := os.ReadFile(p)
	require.NoError(f.t, err, "no plan file written\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	st, err := os.Stat(p)
	require.NoError(f.t, err)
	assert.Equal(f.t, os.FileMode(0o600), st.Mode().Perm(), "plan file mode")
	v, err := planview.ReadFile(p)
	require.NoError(f.t, err, "the plan file is not a valid v1 plan:\n%s", raw)
	f.scan(e, o, result{Stdout: string(raw)})
	return r, v, raw
}

// addDoc encrypts plain at secrets/<stem><suffix> and registers its value
// canary and its names; it returns the secret name.
func (f *fixture) addDoc(stem, suffix, plain string) string {
	f.t.Helper()
	rel := "secrets/" + stem + suffix
	f.writeDoc(rel, plain, "")
	f.Values = append(f.Values, canaryIn(plain))
	name := f.nameOf(rel)
	f.Names = append(f.Names, name, stem+suffix)
	return name
}

// byResource indexes a view's operations by resource (an action may
// appear twice for one resource only for restore + its follow-up update).
func byResource(v planview.View) map[string][]planview.Op {
	out := map[string][]planview.Op{}
	for _, o := range v.Scopes[0].Operations {
		out[o.Resource] = append(out[o.Resource], o)
	}
	return out
}

var ordinalLabel = regexp.MustCompile(`^resource-[0-9]{4}$`)

// TestPlanFile_EveryActionAndReason builds, with real documents and
// out-of-band writes, a plan holding every action and reason the tool can
// be brought to through AWS's API (no-current-version needs a version with
// no AWSCURRENT, which AWS's API cannot produce; it is covered in
// internal/plan): a nested YAML document edited in Git, a value edited out
// of band, a key added out of band (counted, never named), a binary stored
// value, a create, a restore (and, in sync, its follow-up update), a
// schedule-delete, both unchanged reasons, metadata, and a conflict. It
// checks the plan file with names shown and hidden, the text rendering, and
// the canaries (plaintext values, ciphertext, the out-of-band key name,
// names when hidden) in every output.
func TestPlanFile_EveryActionAndReason(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(3)
	oobKey := "OOBkey" + token(4)
	f.Values = append(f.Values, oobKey)

	nested := f.addDoc("nested", ".sops.yaml", "db:\n  host: db.internal\n  password: CANARY-n1-"+tok+"\nfeature:\n  flags: [a, b]\n")
	edited := f.addDoc("edited", ".sops.json", `{"user": "u", "password": "CANARY-e-`+tok+`"}`)
	oob := f.addDoc("oob", ".sops.json", `{"user": "u", "token": "CANARY-o-`+tok+`"}`)
	blob := f.addDoc("blob", ".sops.json", `{"k": "CANARY-b-`+tok+`"}`)
	same := f.addDoc("same", ".sops.json", `{"k": "CANARY-s-`+tok+`"}`)
	gone := f.addDoc("gone", ".sops.json", `{"k": "CANARY-g-`+tok+`"}`)
	back := f.addDoc("back", ".sops.json", `{"k": "CANARY-k1-`+tok+`"}`)
	asleep := f.addDoc("asleep", ".sops.json", `{"k": "CANARY-a-`+tok+`"}`)
	f.commit("eight documents")
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 8})

	f.removeDoc("secrets/back.sops.json")
	f.removeDoc("secrets/asleep.sops.json")
	f.commit("remove two")
	r = f.run(e, runOpts{}, f.args("sync", "--recovery-window-days", "7")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 2, Unchanged: 6})

	// In Git: the nested document changes one leaf, gains one and drops one;
	// back returns with another value; gone is removed; one document is new.
	f.addDoc("nested", ".sops.yaml", "db:\n  host: db.internal\n  password: CANARY-n2-"+tok+"\n  port: 5432\n")
	f.addDoc("back", ".sops.json", `{"k": "CANARY-k2-`+tok+`"}`)
	f.removeDoc("secrets/gone.sops.json")
	created := f.addDoc("new", ".sops.json", `{"k": "CANARY-c-`+tok+`"}`)
	f.commit("edit")
	// Out of band: a value edited, a key added, a binary value.
	e.putValue(edited, `{"password":"CANARY-x-`+tok+`","user":"u"}`)
	f.Values = append(f.Values, "CANARY-x-"+tok)
	e.putValue(oob, `{"token":"CANARY-o-`+tok+`","user":"u","`+oobKey+`":"CANARY-y-`+tok+`"}`)
	_, err := e.sdk().PutSecretValue(context.Background(), &secretsmanager.PutSecretValueInput{
		SecretId: aws.String(blob), SecretBinary: []byte("CANARY-bin-" + tok)})
	require.NoError(t, err)

	type want struct {
		action vocab.Action
		reason vocab.Reason
		keys   *planview.KeyCounts
		paths  *planview.KeyPaths // with names shown
		none   vocab.KeysUnavailable
	}
	plan := map[string][]want{
		back:    {{action: vocab.ActionRestore, reason: vocab.ReasonScheduledForDeletion}},
		created: {{action: vocab.ActionCreate, reason: vocab.ReasonAbsent, keys: &planview.KeyCounts{Added: 1}, paths: &planview.KeyPaths{Added: []string{"/k"}, Removed: []string{}, Changed: []string{}}}},
		nested: {{action: vocab.ActionUpdate, reason: vocab.ReasonValueDiffers, keys: &planview.KeyCounts{Added: 1, Removed: 1, Changed: 1},
			paths: &planview.KeyPaths{Added: []string{"/db/port"}, Removed: []string{}, Changed: []string{"/db/password"}}}},
		edited: {{action: vocab.ActionUpdate, reason: vocab.ReasonValueDiffers, keys: &planview.KeyCounts{Changed: 1},
			paths: &planview.KeyPaths{Added: []string{}, Removed: []string{}, Changed: []string{"/password"}}}},
		oob: {{action: vocab.ActionUpdate, reason: vocab.ReasonValueDiffers, keys: &planview.KeyCounts{Removed: 1},
			paths: &planview.KeyPaths{Added: []string{}, Removed: []string{}, Changed: []string{}}}},
		blob:   {{action: vocab.ActionUpdate, reason: vocab.ReasonStoredValueBinary, none: vocab.KeysStoredValueBinary}},
		gone:   {{action: vocab.ActionScheduleDelete, reason: vocab.ReasonNotDesired}},
		same:   {{action: vocab.ActionUnchanged, reason: vocab.ReasonValueEqual}},
		asleep: {{action: vocab.ActionUnchanged, reason: vocab.ReasonScheduledForDeletion}},
	}
	check := func(v planview.View, show bool, plan map[string][]want) {
		t.Helper()
		assert.Equal(t, show, v.NamesShown)
		assert.Equal(t, f.git("rev-parse", "HEAD"), v.GitRevision)
		assert.Empty(t, v.Scopes[0].Diagnostics)
		got := byResource(v)
		if !show {
			// Hidden: the same plan by ordinal, no name, no key path.
			for res, ops := range got {
				assert.Regexp(t, ordinalLabel, res)
				for _, o := range ops {
					assert.Nil(t, o.KeyPaths, "no key path with names hidden")
				}
			}
			var hidden, shown []string
			for _, o := range v.Scopes[0].Operations {
				hidden = append(hidden, string(o.Action)+" "+string(o.Reason))
			}
			for _, ws := range plan {
				for _, w := range ws {
					shown = append(shown, string(w.action)+" "+string(w.reason))
				}
			}
			assert.ElementsMatch(t, shown, hidden)
			return
		}
		require.Len(t, got, len(plan), "%v", got)
		for name, ws := range plan {
			ops := got[name]
			require.Len(t, ops, len(ws), name)
			for i, w := range ws {
				o := ops[i]
				assert.Equal(t, w.action, o.Action, name)
				assert.Equal(t, w.reason, o.Reason, name)
				assert.Equal(t, w.keys, o.Keys, name)
				assert.Equal(t, w.none, o.KeysUnavailable, name)
				if w.keys != nil {
					assert.Equal(t, w.paths, o.KeyPaths, name)
				}
			}
		}
	}

	before := e.mutatingCalls()
	_, v, _ := f.runPlan(e, runOpts{}, f.args("plan")...)
	check(v, false, plan)
	assert.Equal(t, vocab.Counts{Create: 1, Update: 4, Restore: 1, ScheduleDelete: 1, Unchanged: 2}, v.Scopes[0].Counts)
	_, v, _ = f.runPlan(e, runOpts{ShowNames: true}, f.args("plan", "--show-resource-names")...)
	check(v, true, plan)
	assert.Equal(t, before, e.mutatingCalls(), "plan is read-only")

	// The text rendering follows the text log; names hidden.
	r, v, _ = f.runPlan(e, runOpts{}, f.args("plan", "--log-format", "text")...)
	assert.Contains(t, r.Stdout, "\n"+planview.Text(v), "plan prints the rendering of its plan file")
	assert.Contains(t, r.Stdout, "Plan: 1 to create, 4 to update, 1 to restore, 1 to schedule for deletion, 2 unchanged.\n")
	assert.Contains(t, r.Stdout, "update: ~0 +0 -1 (value differs)")

	// sync applies that plan: its plan file adds the follow-up update of
	// the restored secret, computed against the restored value.
	plan[back] = append(plan[back], want{action: vocab.ActionUpdate, reason: vocab.ReasonRestoreThenUpdate,
		keys: &planview.KeyCounts{Changed: 1}, paths: &planview.KeyPaths{Added: []string{}, Removed: []string{}, Changed: []string{"/k"}}})
	r, v, _ = f.runPlan(e, runOpts{ShowNames: true}, f.args("sync", "--show-resource-names", "--log-format", "text")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1, Update: 5, Restore: 1, ScheduleDelete: 1, Unchanged: 2})
	check(v, true, plan)
	assert.Contains(t, r.Stdout, "  - 1 key not in the desired document (never named)")

	// Metadata: a configured description plans metadata updates, which
	// list the kind, never the value.
	_, v, raw := f.runPlan(e, runOpts{}, f.args("plan", "--description", "CANARY-description")...)
	require.NotEmpty(t, v.Scopes[0].Operations)
	for _, o := range v.Scopes[0].Operations {
		if o.Action == vocab.ActionUnchanged {
			continue
		}
		assert.Equal(t, vocab.ActionUpdate, o.Action)
		assert.Equal(t, vocab.ReasonMetadata, o.Reason)
		assert.Equal(t, []vocab.MetadataKind{vocab.MetadataDescription}, o.Metadata)
		assert.Equal(t, &planview.KeyCounts{}, o.Keys)
	}
	assert.NotContains(t, string(raw), "CANARY-description", "a metadata value never reaches the plan file")

	// A conflict empties the plan: conflicts first with their class, the
	// rest unchanged.
	taken := f.addDoc("taken", ".sops.json", `{"k": "CANARY-t-`+tok+`"}`)
	f.commit("a name someone else owns")
	_, err = e.sdk().CreateSecret(context.Background(), &secretsmanager.CreateSecretInput{Name: aws.String(taken), SecretString: aws.String(`{"k":"CANARY-foreign"}`)})
	require.NoError(t, err)
	r, v, _ = f.runPlan(e, runOpts{ShowNames: true}, f.args("plan", "--show-resource-names")...)
	expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
	require.NotEmpty(t, v.Scopes[0].Operations)
	assert.Equal(t, planview.Op{Resource: taken, Action: vocab.ActionConflict, Reason: vocab.Reason(vocab.ConflictOwnership)}, v.Scopes[0].Operations[0])
	for _, o := range v.Scopes[0].Operations[1:] {
		assert.Equal(t, vocab.ActionUnchanged, o.Action, "a conflict plans nothing else")
	}
}

// TestShowRendersSavedPlanFileWithoutRepoOrAWS: show renders a saved plan
// file as text and Markdown in a directory that is no repository, with no
// AWS credentials, Region or endpoint and no SOPS key in the environment.
func TestShowRendersSavedPlanFileWithoutRepoOrAWS(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	_, v, raw := f.runPlan(e, runOpts{}, f.args("plan")...)
	dir := t.TempDir()
	p := filepath.Join(dir, "saved-plan.json")
	require.NoError(t, os.WriteFile(p, raw, 0o600))
	before := e.stats().Calls

	show := func(args ...string) (int, string, string) {
		cmd := exec.Command(cliBin, append([]string{"show", p}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		f.scan(nil, runOpts{}, result{Stdout: stdout.String(), Stderr: stderr.String()})
		return code, stdout.String(), stderr.String()
	}
	code, out, errOut := show()
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, planview.Text(v), out)
	assert.Contains(t, out, "Plan: 3 to create, 0 to update, 0 to restore, 0 to schedule for deletion, 0 unchanged.")
	code, out, _ = show("--format", "markdown")
	require.Equal(t, 0, code)
	assert.Equal(t, planview.Markdown(v), out)
	code, out, _ = show("--format", "markdown", "--max-bytes", "3000")
	require.Equal(t, 0, code)
	assert.Less(t, len(out), 3000)
	assert.Equal(t, before, e.stats().Calls, "show makes no AWS call")

	require.NoError(t, os.WriteFile(p, []byte(`{"schema_version":"sops-aws-sync/plan/v9"}`), 0o600))
	code, out, errOut = show()
	assert.Equal(t, 3, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "planfile:unknown-schema")
}

// TestExit3_EveryInvalidDocumentReportedAtOnce: three invalid documents of
// three classes (no key for this runner, committed unencrypted, a duplicate
// key inside the encrypted JSON) among good ones give exit 3, zero AWS
// calls, and three diagnostics — three log records, three plan-file
// diagnostics, three rendered errors — with ordinals, or paths when names
// are shown.
func TestExit3_EveryInvalidDocumentReportedAtOnce(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs() // ordinals by path: d…json (1), d…yaml (2), then e-, f-, g- (3–5), nested/… (6)
	other, err := newRecipient()
	require.NoError(t, err)
	f.writeDoc("secrets/e-other-key.sops.json", `{"v":"CANARY-other-`+token(4)+`"}`, other)
	f.writeDoc("secrets/f-dup.sops.json", `{"v": "CANARY-dup-`+token(4)+`", "v": "x"}`, "")
	plain := `{"v":"CANARY-plain-` + token(4) + `"}`
	require.NoError(t, os.WriteFile(filepath.Join(f.Repo, "secrets", "g-plain.sops.json"), []byte(plain), 0o600))
	f.Values = append(f.Values, canaryIn(plain))
	f.Names = append(f.Names, "e-other-key", "f-dup", "g-plain")
	f.commit("three invalid documents")
	wantClasses := []string{"decrypt:no-key", "plaintext:duplicate-key", "decrypt:not-encrypted"}

	for _, show := range []bool{false, true} {
		args := f.args("sync")
		if show {
			args = append(args, "--show-resource-names")
		}
		r, v, _ := f.runPlan(e, runOpts{ShowNames: show}, args...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
		e.onlyReads("no write")
		var logged, subjects []string
		for _, rec := range r.records(t) {
			if c, ok := rec["error_class"].(string); ok && rec["phase"] == "plan" {
				logged = append(logged, c)
				subjects = append(subjects, rec["resource"].(string))
			}
		}
		assert.Equal(t, wantClasses, logged)
		var filed, fileSubjects []string
		for _, d := range v.Scopes[0].Diagnostics {
			filed = append(filed, d.Class)
			fileSubjects = append(fileSubjects, d.Subject)
		}
		assert.Equal(t, wantClasses, filed)
		assert.Equal(t, subjects, fileSubjects)
		if show {
			assert.Equal(t, []string{"secrets/e-other-key.sops.json", "secrets/f-dup.sops.json", "secrets/g-plain.sops.json"}, subjects)
		} else {
			assert.Equal(t, []string{"resource-0003", "resource-0004", "resource-0005"}, subjects)
		}
		assert.Empty(t, v.Scopes[0].Operations)
		assert.Contains(t, planview.Text(v), "Errors (3):")
	}
}

// TestCanary_PlanOutputsHoldNoValueCiphertextOrOutOfBandKey: with names on
// and off, in the JSON log and the text rendering, the plan file, stdout and
// stderr hold no plaintext value, no ciphertext fragment of the committed
// document and no name of a key added out of band — while the desired
// document's key paths do appear when names are shown (so the check would
// see a leak).
func TestCanary_PlanOutputsHoldNoValueCiphertextOrOutOfBandKey(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(3)
	name := f.addDoc("app", ".sops.yaml", "db:\n  pw_key: CANARY-v1-"+tok+"\n")
	f.commit("one document")
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	enc, err := os.ReadFile(filepath.Join(f.Repo, "secrets", "app.sops.yaml"))
	require.NoError(t, err)
	m := regexp.MustCompile(`ENC\[AES256_GCM,data:([^,]{6,})`).FindSubmatch(enc)
	require.NotNil(t, m, "a ciphertext fragment of the document")
	oobKey := "OOBkey" + token(4)
	e.putValue(name, `{"db":{"pw_key":"CANARY-v0-`+tok+`"},"`+oobKey+`":"CANARY-oob-`+tok+`"}`)
	never := []string{"CANARY", string(m[1]), oobKey, tok}
	for _, show := range []bool{false, true} {
		for _, format := range []string{"json", "text"} {
			args := f.args("plan", "--log-format", format)
			if show {
				args = append(args, "--show-resource-names")
			}
			r, v, raw := f.runPlan(e, runOpts{ShowNames: show}, args...)
			require.Len(t, v.Scopes[0].Operations, 1)
			assert.Equal(t, &planview.KeyCounts{Removed: 1, Changed: 1}, v.Scopes[0].Operations[0].Keys)
			for where, text := range map[string]string{"plan file": string(raw), "stdout": r.Stdout, "stderr": r.Stderr} {
				for _, c := range never {
					assert.NotContains(t, text, c, "%s (names %v, %s log)", where, show, format)
				}
			}
			if show {
				assert.Contains(t, string(raw), `"/db/pw_key"`, "desired key paths are shown with names")
			} else {
				assert.NotContains(t, string(raw)+r.Stdout, "pw_key", "no key path with names hidden")
			}
		}
	}
}

// TestPlanFile_EngineStopsCarryTheirDiagnostic: a run the engine stops
// still writes its plan file, with the diagnostic of what stopped it: a
// failed first observation (observe:failed, no operation, exit 5) and the
// deletion limit (gate:max-deletions, the gated operations listed, exit 3).
func TestPlanFile_EngineStopsCarryTheirDiagnostic(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)

	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "ListSecrets", Nth: 1, Fault: "error:AccessDeniedException"}}})
	r, v, _ := f.runPlan(e, runOpts{}, f.args("plan")...)
	expect(t, r, 5, vocab.StatusObservationFailed, vocab.VerificationNotRun, nil)
	assert.Empty(t, v.Scopes[0].Operations)
	require.Len(t, v.Scopes[0].Diagnostics, 1)
	assert.Equal(t, "observe:failed", v.Scopes[0].Diagnostics[0].Class)
	e.setFaults(emulator.Faults{})

	f.removeDoc(docs[0].Rel)
	f.commit("remove one")
	r, v, _ = f.runPlan(e, runOpts{}, f.args("sync", "--max-deletions", "0")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	require.Len(t, v.Scopes[0].Diagnostics, 1)
	assert.Equal(t, "gate:max-deletions", v.Scopes[0].Diagnostics[0].Class)
	assert.Equal(t, 1, v.Scopes[0].Counts.ScheduleDelete, "the gated plan still shows what it would do")
	assert.Contains(t, planview.Text(v), "gate:max-deletions")
}
