package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// import (SPEC §18) with the real binary, the real sops CLI and age, real
// Git and the emulator.

// importEstate is one secret of an estate made by hand: its name relative
// to the prefix, its value (string or binary), the document import must
// write for it ("" = skipped) and the plaintext that document decrypts to.
type importEstate struct {
	rel    string
	str    *string
	bin    []byte
	doc    string
	plain  []byte
	canary string
	// ptype and tags are a parameter's type ("" = SecureString) and tags
	// (paramEstate).
	ptype ssmtypes.ParameterType
	tags  map[string]string
}

// sopsRule writes the repository's .sops.yaml: documents under secrets/
// are encrypted for the fixture's age key; it is committed.
func (f *fixture) sopsRule() {
	f.t.Helper()
	rule := "creation_rules:\n  - path_regex: ^secrets/\n    age: " + f.recip + "\n"
	require.NoError(f.t, os.WriteFile(filepath.Join(f.Repo, ".sops.yaml"), []byte(rule), 0o600))
	f.commit("sops rule")
}

// importEnv is the environment of an import: sops on PATH, and TMPDIR a
// fresh directory the test scans afterwards.
func (f *fixture) importEnv(tmp string) []string {
	return []string{"PATH=" + filepath.Dir(sopsBin) + string(os.PathListSeparator) + os.Getenv("PATH"), "TMPDIR=" + tmp}
}

// startImport is the start of most import tests: a fixture whose
// .sops.yaml (committed) encrypts the documents under secrets/ for its age
// key, an emulator of the test's own holding the estate es in Secrets
// Manager (f.estate), and the estate's values, the canaries.
func startImport(t *testing.T, es []importEstate) (*fixture, *emu, []string) {
	t.Helper()
	f := newFixture(t)
	e := startEmulator(t)
	f.sopsRule()
	return f, e, f.estate(e, es)
}

// estate creates the secrets of es in the emulator under the fixture's
// prefix and makes each one's value and name a canary of every later run
// (names only while they are hidden); it returns the values' canaries.
func (f *fixture) estate(e *emu, es []importEstate) []string {
	f.t.Helper()
	for _, s := range es {
		in := &secretsmanager.CreateSecretInput{Name: aws.String(f.Prefix + "/" + s.rel), SecretString: s.str, SecretBinary: s.bin}
		_, err := e.sdk().CreateSecret(context.Background(), in)
		require.NoError(f.t, err, s.rel)
	}
	return f.canaries(es)
}

// canaries makes each value and name of es a canary of every later run
// and returns the values' canaries.
func (f *fixture) canaries(es []importEstate) []string {
	var out []string
	for _, s := range es {
		out = append(out, s.canary)
		f.Names = append(f.Names, s.rel)
	}
	f.Values = append(f.Values, out...)
	return out
}

// decrypt runs `sops decrypt` on a document of the work tree and returns
// its plaintext.
func (f *fixture) decrypt(rel string) []byte {
	f.t.Helper()
	cmd := exec.Command(sopsBin, "--disable-version-check", "decrypt", rel)
	cmd.Dir = f.Repo
	cmd.Env = f.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(f.t, cmd.Run(), "sops decrypt %s: %s", rel, errb.String())
	return out.Bytes()
}

// classes counts the records of r's stdout by their error_class.
func classes(t *testing.T, r result) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, rec := range r.records(t) {
		if c, ok := rec["error_class"].(string); ok {
			out[c]++
		}
	}
	return out
}

// importedDocs checks that the documents of es, and nothing else, are
// staged, and that each decrypts with the sops CLI to its plaintext (a
// .sops.json to it in canonical form).
func (f *fixture) importedDocs(es []importEstate) {
	f.t.Helper()
	staged := strings.Fields(f.git("diff", "--cached", "--name-only"))
	var docs []string
	for _, s := range es {
		if s.doc == "" {
			continue
		}
		docs = append(docs, s.doc)
		assert.Contains(f.t, staged, s.doc)
		got := f.decrypt(s.doc)
		if strings.HasSuffix(s.doc, ".sops.json") {
			// The JSON store writes its own spelling; the value is its
			// canonical form (SPEC §3.3), the live bytes.
			var err error
			got, err = canonical.FromJSON(got)
			require.NoError(f.t, err)
		}
		assert.Equal(f.t, s.plain, got, "%s decrypts to the live bytes", s.doc)
	}
	assert.ElementsMatch(f.t, docs, staged, "only the documents are staged")
}

// adoptFlags are the --adopt flags of the names of es that import writes
// a document for.
func (f *fixture) adoptFlags(es []importEstate) []string {
	var out []string
	for _, s := range es {
		if s.doc != "" {
			out = append(out, "--adopt", f.Prefix+"/"+s.rel)
		}
	}
	return out
}

// noCanaryInFiles fails when any regular file under the directories holds
// one of the canaries (plaintext values), Git's objects included.
func noCanaryInFiles(t *testing.T, canaries []string, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			for _, c := range canaries {
				require.NotContains(t, string(b), c, "a plaintext value is in %s", p)
			}
			return nil
		}))
	}
}

// mixedEstate is the estate of the end-to-end import: a canonical JSON
// object, a JSON object spelled by hand, a PEM text, binary bytes, a
// replicated secret, a rotating one, a service-owned one and one whose
// name maps to no document path.
func mixedEstate() []importEstate {
	tok := token(4)
	str := func(s string) *string { return &s }
	bin := append([]byte{0x00, 0xff, 0xfe}, []byte("CANARY-bin-"+tok)...)
	pem := "-----BEGIN CERTIFICATE-----\nCANARY-pem-" + tok + "\n-----END CERTIFICATE-----\n"
	return []importEstate{
		{rel: "api/json-" + tok, str: str(`{"password":"CANARY-json-` + tok + `","port":5432}`), doc: "secrets/api/json-" + tok + ".sops.json",
			plain: []byte(`{"password":"CANARY-json-` + tok + `","port":5432}`), canary: "CANARY-json-" + tok},
		{rel: "console-" + tok, str: str(`{"user": "u", "pw": "CANARY-console-` + tok + `"}`), doc: "secrets/console-" + tok + ".sops.txt",
			plain: []byte(`{"user": "u", "pw": "CANARY-console-` + tok + `"}`), canary: "CANARY-console-" + tok},
		{rel: "tls/cert-" + tok, str: str(pem), doc: "secrets/tls/cert-" + tok + ".sops.txt", plain: []byte(pem), canary: "CANARY-pem-" + tok},
		{rel: "blob-" + tok, bin: bin, doc: "secrets/blob-" + tok + ".sops.bin", plain: bin, canary: "CANARY-bin-" + tok},
		{rel: "replicated-" + tok, str: str(`{"k":"CANARY-repl-` + tok + `"}`), doc: "secrets/replicated-" + tok + ".sops.json",
			plain: []byte(`{"k":"CANARY-repl-` + tok + `"}`), canary: "CANARY-repl-" + tok},
		{rel: "db-" + tok, str: str(`{"host":"db.internal","password":"CANARY-rot-` + tok + `"}`), doc: "secrets/db-" + tok + ".sops.json",
			plain: []byte(`{"host":"db.internal"}`), canary: "CANARY-rot-" + tok},
		{rel: "rds-owned-" + tok, str: str(`{"password":"CANARY-svc-` + tok + `"}`), canary: "CANARY-svc-" + tok},
		{rel: "bad-" + tok + "//name", str: str(`CANARY-bad-` + tok), canary: "CANARY-bad-" + tok},
	}
}

// TestImport_MixedEstateImportsAndSyncAdoptsWithoutValueWrites: an estate
// of mixed secrets made by hand imports in one run: every kind is written
// as its document (canonical JSON → .sops.json, a hand-spelled JSON object
// and a PEM → .sops.txt, bytes → .sops.bin), the rotating secret without
// its rotated key, the service-owned one and the unmappable name skipped
// with their warnings; the documents are staged, decrypt with the sops
// CLI to the live bytes, and the plan of the staged tree (the import's
// report) adopts every one with value equal. After a commit, sync with
// the adopt entries adopts them with no value write. No plaintext value
// is in any file of the work tree (Git's objects included), of the run's
// TMPDIR, of its logs or of its report.
func TestImport_MixedEstateImportsAndSyncAdoptsWithoutValueWrites(t *testing.T) {
	es := mixedEstate()
	f, e, canaries := startImport(t, es)
	e.conditions(emulator.Conditions{Name: f.Prefix + "/" + es[4].rel, ReplicaRegions: []string{"eu-west-1"}})
	e.conditions(emulator.Conditions{Name: f.Prefix + "/" + es[5].rel, RotationEnabled: aws.Bool(true)})
	e.conditions(emulator.Conditions{Name: f.Prefix + "/" + es[6].rel, OwningService: aws.String("rds")})
	tmp := t.TempDir()
	before := e.mutatingCalls()

	r := f.run(e, runOpts{Env: f.importEnv(tmp)}, f.args("import", "--replica-regions", "eu-west-1")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 6})
	assert.Equal(t, before, e.mutatingCalls(), "import writes nothing to AWS")
	assert.Equal(t, map[string]int{"warning:import-service-owned": 1, "warning:import-name": 1}, classes(t, r), r.Stdout)

	f.importedDocs(es)
	var rot map[string]any
	require.NoError(t, json.Unmarshal(f.decrypt(es[5].doc), &rot))
	assert.NotContains(t, rot, "password", "a rotated key's value is not copied into Git")
	noCanaryInFiles(t, canaries, f.Repo, tmp)

	// The documents committed, sync adopts every one with no value write.
	f.commit("import")
	sync := f.args("sync", append([]string{"--replica-regions", "eu-west-1",
		"--aws-owned", `[{"secret":"` + es[5].rel + `","keys":["/password"]}]`}, f.adoptFlags(es)...)...)
	r = f.run(e, runOpts{}, sync...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
	assert.Equal(t, 6, r.Report.Counts.Update, "every imported secret adopted")
	calls := e.stats().Calls
	assert.Zero(t, calls["PutSecretValue"], "no value written")
	assert.EqualValues(t, 6, calls["TagResource"], "one TagResource per adoption")
}

// TestImport_SIGKILLLeavesOnlyWholeEncryptedDocuments: an import killed
// with SIGKILL — once while it writes documents, once after it staged them
// while the plan of the staged tree is stalled at the emulator (a hung
// ListSecrets) — leaves under the source root only whole SOPS documents
// that decrypt with the sops CLI (and no leftover of a temporary name
// holding anything but ciphertext): no plaintext value in any file of the
// work tree or of the run's TMPDIR.
func TestImport_SIGKILLLeavesOnlyWholeEncryptedDocuments(t *testing.T) {
	for _, at := range []string{"document written", "documents staged"} {
		t.Run(strings.ReplaceAll(at, " ", "-"), func(t *testing.T) {
			es := mixedEstate()[:4]
			f, e, canaries := startImport(t, es)
			// The import's own listing is ListSecrets #1; the plan of the
			// staged tree lists with #2, which never answers.
			e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "ListSecrets", Nth: 2, Fault: "hang"}}})
			tmp := t.TempDir()
			run := f.start(e, runOpts{Env: f.importEnv(tmp)}, f.args("import", "--operation-timeout", "10m")...)
			require.True(t, run.waitFor(func(m map[string]any) bool { return m["msg"] == at }), "no %q record", at)
			require.NoError(t, run.cmd.Process.Signal(syscall.SIGKILL))
			<-run.copied
			_ = run.cmd.Wait()

			n := 0
			require.NoError(t, filepath.WalkDir(filepath.Join(f.Repo, "secrets"), func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return err
				}
				rel, _ := filepath.Rel(f.Repo, p)
				if strings.HasSuffix(p, ".sops-aws-sync-import") {
					b, _ := os.ReadFile(p)
					assert.NotContains(t, string(b), "CANARY", "a leftover holds plaintext")
					return nil
				}
				n++
				plain := f.decrypt(filepath.ToSlash(rel))
				assert.Contains(t, string(plain), "CANARY", "%s decrypts to a value", rel)
				return nil
			}))
			assert.Positive(t, n, "the kill came after a document was written")
			if at == "documents staged" {
				assert.Equal(t, len(es), n, "every document was written before the kill")
			}
			noCanaryInFiles(t, canaries, f.Repo, tmp)
		})
	}
}

// TestImport_ADocumentThatDoesNotPlanAdoptRemovesEveryDocument: when the
// plan of the staged tree does not adopt one imported secret with value
// equal (here the plan's DescribeSecret of one name answers
// ResourceNotFoundException, so the plan would create it), import exits 3
// with import:not-adopted and leaves nothing behind: no document in the
// work tree, nothing staged, nothing written to AWS.
func TestImport_ADocumentThatDoesNotPlanAdoptRemovesEveryDocument(t *testing.T) {
	f, e, canaries := startImport(t, mixedEstate()[:3])
	// The import describes each of the 3 names (#1–#3); the plan of the
	// staged tree describes them again, and #4 says the secret is gone.
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "DescribeSecret", Nth: 4, Fault: "error:ResourceNotFoundException"}}})
	before := e.mutatingCalls()
	tmp := t.TempDir()
	r := f.run(e, runOpts{Env: f.importEnv(tmp)}, f.args("import")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "import:not-adopted" })
	require.NotNil(t, rec, r.Stdout)
	assert.Equal(t, before, e.mutatingCalls(), "nothing written to AWS")
	assert.Empty(t, f.git("diff", "--cached", "--name-only"), "nothing staged")
	assert.Empty(t, f.git("status", "--porcelain", "--untracked-files=all"), "no document left in the work tree")
	assert.NoDirExists(t, filepath.Join(f.Repo, "secrets"), "the directories import made are removed")
	noCanaryInFiles(t, canaries, f.Repo, tmp)
}

// TestImport_ConfigFileGainsTheEntriesAndThePlanAdoptsThem: with a
// --config file that lists the scope, import rewrites the file in place
// — its comments and key order kept — with the imported names in the
// scope's adopt and an aws-owned entry for the rotating secret; after a
// commit, plan and sync with that file alone adopt every one (value
// equal, no value written).
func TestImport_ConfigFileGainsTheEntriesAndThePlanAdoptsThem(t *testing.T) {
	all := mixedEstate()
	es := []importEstate{all[0], all[2], all[5]}
	f, e, _ := startImport(t, es)
	e.conditions(emulator.Conditions{Name: f.Prefix + "/" + es[2].rel, RotationEnabled: aws.Bool(true)})
	cfg := filepath.Join(f.Repo, "sops-aws-sync.yaml")
	head := "# the estate, moved in by import\nrepository-id: " + f.RepoID + "\nscopes:\n" +
		"  - name: app # the one scope\n    secret-prefix: " + f.Prefix + "\n"
	require.NoError(t, os.WriteFile(cfg, []byte(head), 0o640))
	r := f.run(e, runOpts{Env: f.importEnv(t.TempDir())}, "import", "--config", cfg)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 3})
	got, err := os.ReadFile(cfg)
	require.NoError(t, err)
	want := head + "    adopt:\n"
	var names []string
	for _, s := range es {
		names = append(names, f.Prefix+"/"+s.rel)
	}
	slices.Sort(names) // the names as listed
	for _, n := range names {
		want += "      - " + n + "\n"
	}
	want += "    aws-owned:\n      - secret: " + es[2].rel + "\n        keys: [/password]\n    adopt-require-match: true\n"
	assert.Equal(t, want, string(got))
	st, err := os.Stat(cfg)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm(), "the file keeps its mode")

	f.commit("import")
	r = f.run(e, runOpts{}, "plan", "--config", cfg)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 3})
	r = f.run(e, runOpts{}, "sync", "--config", cfg)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, nil)
	assert.Zero(t, e.stats().Calls["PutSecretValue"], "no value written")
}

// TestRegression_ImportedAdoptionOverwroteALiveChangeMadeBeforeTheMerge:
// import's --config gains adopt-require-match with the adopt entries, so
// a live value changed out of band between the import and the merge is
// conflict adopt-mismatch (exit 4, nothing written) in plan and sync,
// where it used to plan "adopt (value differs)" and the sync wrote the
// stale Git value over the live one.
func TestRegression_ImportedAdoptionOverwroteALiveChangeMadeBeforeTheMerge(t *testing.T) {
	es := mixedEstate()[:2]
	f, e, _ := startImport(t, es)
	cfg := filepath.Join(f.Repo, "sops-aws-sync.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("repository-id: "+f.RepoID+"\nsecret-prefix: "+f.Prefix+"\n"), 0o600))
	r := f.run(e, runOpts{Env: f.importEnv(t.TempDir())}, "import", "--config", cfg)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 2})
	f.commit("import")

	changed := `{"password":"CANARY-changed-` + tokOf(es) + `","port":5432}`
	f.Values = append(f.Values, "CANARY-changed-"+tokOf(es))
	_, err := e.sdk().PutSecretValue(context.Background(), &secretsmanager.PutSecretValueInput{
		SecretId: aws.String(f.Prefix + "/" + es[0].rel), SecretString: aws.String(changed)})
	require.NoError(t, err)
	for _, cmd := range []string{"plan", "sync"} {
		before := e.mutatingCalls()
		r = f.run(e, runOpts{}, cmd, "--config", cfg)
		expect(t, r, 4, vocab.StatusConflict, vocab.VerificationNotRun, nil)
		assert.Equal(t, 1, r.Report.Counts.Conflicts, cmd)
		rec := findRecord(r.records(t), func(m map[string]any) bool { return m["conflict_class"] != nil })
		require.NotNil(t, rec, r.Stdout)
		assert.Equal(t, string(vocab.ConflictAdoptMismatch), rec["conflict_class"], cmd)
		assert.Equal(t, before, e.mutatingCalls(), "%s writes nothing", cmd)
	}
	got, err := e.sdk().GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String(f.Prefix + "/" + es[0].rel)})
	require.NoError(t, err)
	assert.Equal(t, changed, aws.ToString(got.SecretString), "the live change is kept")
}

// TestImport_DryRunReadsNoValueAndWritesNothing: --dry-run lists and
// describes (no GetSecretValue, no BatchGetSecretValue), logs one "document
// would be written" record per secret it would import and the warnings of
// those it would skip, and writes no file; with --show-resource-names the
// records name the paths.
func TestImport_DryRunReadsNoValueAndWritesNothing(t *testing.T) {
	es := mixedEstate()
	f, e, _ := startImport(t, es)
	e.conditions(emulator.Conditions{Name: f.Prefix + "/" + es[6].rel, OwningService: aws.String("rds")})
	r := f.run(e, runOpts{Env: f.importEnv(t.TempDir()), ShowNames: true}, f.args("import", "--dry-run", "--show-resource-names",
		"--replica-regions", "eu-west-1")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{})
	calls := e.stats().Calls
	assert.Zero(t, calls["GetSecretValue"]+calls["BatchGetSecretValue"], "no value read")
	assert.Zero(t, e.mutatingCalls()-int64(len(es)), "nothing written to AWS but the estate")
	var would []string
	for _, rec := range r.records(t) {
		if rec["msg"] == "document would be written" {
			would = append(would, rec["resource"].(string))
		}
	}
	assert.ElementsMatch(t, []string{"secrets/api/json-" + tokOf(es) + ".sops.*", "secrets/console-" + tokOf(es) + ".sops.*",
		"secrets/tls/cert-" + tokOf(es) + ".sops.*", "secrets/blob-" + tokOf(es) + ".sops.*", "secrets/replicated-" + tokOf(es) + ".sops.*",
		"secrets/db-" + tokOf(es) + ".sops.*"}, would)
	assert.NotNil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "warning:import-service-owned" }))
	assert.Empty(t, f.git("status", "--porcelain", "--untracked-files=all"), "nothing written")
}

// TestRegression_DryRunPromisedADocumentWithoutACreationRule: with a
// .sops.yaml whose one creation rule covers secrets/api/ only, the dry run
// refuses the secret outside it with import:no-creation-rule (exit 3, as
// the real run does), where it used to log "document would be written"
// and exit 0; the real run gives the same class for the same one.
func TestRegression_DryRunPromisedADocumentWithoutACreationRule(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	rule := "creation_rules:\n  - path_regex: ^secrets/api/\n    age: " + f.recip + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(f.Repo, ".sops.yaml"), []byte(rule), 0o600))
	f.commit("sops rule for api/ only")
	es := mixedEstate()[:2]
	f.estate(e, es)
	for _, args := range [][]string{{"import", "--dry-run"}, {"import"}} {
		r := f.run(e, runOpts{Env: f.importEnv(t.TempDir())}, f.args(args[0], args[1:]...)...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
		assert.Equal(t, map[string]int{"import:no-creation-rule": 1}, classes(t, r), "%v: %s", args, r.Stdout)
		assert.Nil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["msg"] == "document would be written" }), "%v", args)
		assert.Empty(t, f.git("status", "--porcelain", "--untracked-files=all"), "%v: nothing written", args)
	}
}

// tokOf is the token mixedEstate put in every name.
func tokOf(es []importEstate) string { return strings.TrimPrefix(es[0].rel, "api/json-") }

// TestImport_SIGINTRemovesWhatItWrote: an import interrupted by SIGINT
// while the plan of the staged tree waits on AWS (a hung ListSecrets)
// unstages and removes every document it wrote and exits 130.
func TestImport_SIGINTRemovesWhatItWrote(t *testing.T) {
	f, e, _ := startImport(t, mixedEstate()[:3])
	e.setFaults(emulator.Faults{Script: []emulator.ScriptedFault{{Operation: "ListSecrets", Nth: 2, Fault: "hang"}}})
	run := f.start(e, runOpts{Env: f.importEnv(t.TempDir())}, f.args("import", "--operation-timeout", "10m")...)
	require.True(t, run.waitFor(func(m map[string]any) bool { return m["msg"] == "documents staged" }))
	require.NoError(t, run.cmd.Process.Signal(syscall.SIGINT))
	r := run.wait()
	expect(t, r, 130, vocab.StatusInterrupted, vocab.VerificationNotRun, nil)
	assert.Empty(t, f.git("diff", "--cached", "--name-only"), "nothing staged")
	assert.Empty(t, f.git("status", "--porcelain", "--untracked-files=all"), "no document left")
}
