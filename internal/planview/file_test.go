package planview

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

func fileOf(t *testing.T, shown bool) []byte {
	t.Helper()
	b, err := Marshal(Build(fixtures(t)["full"], model.Redaction{ShowNames: shown}))
	require.NoError(t, err)
	return b
}

func classOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	return ""
}

func TestParseRejectsAnUnknownSchemaWithItsClass(t *testing.T) {
	for _, s := range []string{
		`{"schema_version":"sops-aws-sync/plan/v4","anything":"new"}`,
		`{"schema_version":"sops-aws-sync/report/v1"}`,
		`{"schema_version":1}`,
		`{"git_revision":""}`,
	} {
		_, err := Parse([]byte(s))
		assert.Equal(t, diag.PlanfileUnknownSchema, classOf(err), s)
	}
}

func TestParseRejectsSchemaDrift(t *testing.T) {
	mutate := func(shown bool, f func(m map[string]any)) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(fileOf(t, shown), &m))
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	sc := func(m map[string]any) map[string]any { return m["scopes"].([]any)[0].(map[string]any) }
	op := func(m map[string]any, i int) map[string]any { return sc(m)["operations"].([]any)[i].(map[string]any) }
	// operation 1 is the create, 2 the first update, 0 the restore.
	bad := map[string][]byte{
		"extra top key":        mutate(false, func(m map[string]any) { m["status"] = "drift" }),
		"missing top key":      mutate(false, func(m map[string]any) { delete(m, "diagnostics") }),
		"null operations":      mutate(false, func(m map[string]any) { sc(m)["operations"] = nil }),
		"extra counts key":     mutate(false, func(m map[string]any) { sc(m)["counts"].(map[string]any)["deleted"] = 0 }),
		"counts mismatch":      mutate(false, func(m map[string]any) { sc(m)["counts"].(map[string]any)["create"] = 7.0 }),
		"v1 summary in v2":     mutate(false, func(m map[string]any) { m["summary"] = sc(m)["counts"] }),
		"v1 operations in v2":  mutate(false, func(m map[string]any) { m["operations"] = sc(m)["operations"]; delete(m, "scopes") }),
		"null scopes":          mutate(false, func(m map[string]any) { m["scopes"] = nil }),
		"no scope, no error":   mutate(false, func(m map[string]any) { m["scopes"] = []any{} }),
		"extra scope key":      mutate(false, func(m map[string]any) { sc(m)["account"] = "111122223333" }),
		"missing scope key":    mutate(false, func(m map[string]any) { delete(sc(m), "region") }),
		"scope name rule":      mutate(false, func(m map[string]any) { sc(m)["name"] = "Prod EU" }),
		"long scope name":      mutate(false, func(m map[string]any) { sc(m)["name"] = strings.Repeat("a", 33) }),
		"not a Region":         mutate(false, func(m map[string]any) { sc(m)["region"] = "europe" }),
		"unknown status":       mutate(false, func(m map[string]any) { sc(m)["status"] = "done" }),
		"empty status":         mutate(false, func(m map[string]any) { sc(m)["status"] = "" }),
		"unknown verification": mutate(false, func(m map[string]any) { sc(m)["verification"] = "maybe" }),
		"duplicate scope name": mutate(false, func(m map[string]any) {
			m["scopes"] = append(m["scopes"].([]any), m["scopes"].([]any)[0])
		}),
		"scope name hides a path": mutate(false, func(m map[string]any) {
			sc(m)["diagnostics"] = []any{map[string]any{"class": "decrypt:no-key", "summary": "s", "next": "", "subject": "secrets/prod/db.sops.yaml"}}
		}),
		"extra op key":           mutate(false, func(m map[string]any) { op(m, 0)["value"] = "x" }),
		"unknown action":         mutate(false, func(m map[string]any) { op(m, 0)["action"] = "adopt" }),
		"reason of other action": mutate(false, func(m map[string]any) { op(m, 0)["reason"] = "absent" }),
		"name with names hidden": mutate(false, func(m map[string]any) { op(m, 0)["resource"] = "prod/app/x" }),
		"key_paths names hidden": mutate(false, func(m map[string]any) {
			op(m, 1)["key_paths"] = map[string]any{"added": []string{"/a"}, "removed": []string{}, "changed": []string{}}
		}),
		"keys on a restore":        mutate(false, func(m map[string]any) { op(m, 0)["keys"] = map[string]any{"added": 0, "removed": 0, "changed": 0} }),
		"create without keys":      mutate(false, func(m map[string]any) { delete(op(m, 1), "keys") }),
		"keys and unavailable":     mutate(false, func(m map[string]any) { op(m, 1)["keys_unavailable"] = "stored-value-binary" }),
		"create unavailable":       mutate(false, func(m map[string]any) { delete(op(m, 1), "keys"); op(m, 1)["keys_unavailable"] = "stored-value-binary" }),
		"unknown unavailable":      mutate(false, func(m map[string]any) { delete(op(m, 1), "keys"); op(m, 1)["keys_unavailable"] = "huge" }),
		"negative count":           mutate(false, func(m map[string]any) { op(m, 1)["keys"].(map[string]any)["added"] = -1 }),
		"no key_paths names shown": mutate(true, func(m map[string]any) { delete(op(m, 1), "key_paths") }),
		"more named than counted": mutate(true, func(m map[string]any) {
			op(m, 2)["key_paths"].(map[string]any)["removed"] = []string{"/a", "/b", "/c", "/d"}
		}),
		"invalid pointer": mutate(true, func(m map[string]any) { op(m, 1)["key_paths"].(map[string]any)["added"] = []string{"/a", "/b~", "/c"} }),
		"unsorted paths":  mutate(true, func(m map[string]any) { op(m, 1)["key_paths"].(map[string]any)["added"] = []string{"/c", "/b", "/a"} }),
		"bad revision":    mutate(false, func(m map[string]any) { m["git_revision"] = "HEAD" }),
		"wrong type":      mutate(false, func(m map[string]any) { m["names_shown"] = "no" }),
		"diagnostic class": mutate(false, func(m map[string]any) {
			m["diagnostics"] = []any{map[string]any{"class": "", "summary": "s", "next": "", "subject": ""}}
		}),
		"diagnostic key": mutate(false, func(m map[string]any) {
			m["diagnostics"] = []any{map[string]any{"class": "c", "summary": "s", "next": "", "subject": "", "detail": "x"}}
		}),
		"trailing data": append(fileOf(t, false), []byte("{}")...),
		"not an object": []byte(`[]`),
	}
	for name, b := range bad {
		_, err := Parse(b)
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), name)
	}
	for _, shown := range []bool{false, true} {
		_, err := Parse(fileOf(t, shown))
		require.NoError(t, err, "the unmodified file parses")
	}
}

func TestErrorTextNeverQuotesTheFile(t *testing.T) {
	_, err := Parse([]byte(`{"schema_version":"sops-aws-sync/plan/v1","git_revision":"CANARY","names_shown":false,"operations":[],"summary":{"create":0,"update":0,"restore":0,"schedule_delete":0,"unchanged":0,"conflicts":0},"diagnostics":[]}`))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "CANARY")
}

func TestWriteFileAtomic0600AndReadBack(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	v := Build(fixtures(t)["full"], model.Redaction{})
	require.NoError(t, WriteFile(p, v))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	back, err := ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, v, back)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left behind")
}

func TestWriteFileFailuresAreTyped(t *testing.T) {
	dir := t.TempDir()
	var we *wirefile.WriteError
	err := WriteFile(filepath.Join(dir, "missing-dir", "p.json"), Build(single("", vocab.StatusInvalid, nil, nil), model.Redaction{}))
	require.True(t, errors.As(err, &we))
	assert.Equal(t, "create", we.Step)
	assert.NotContains(t, err.Error(), "missing-dir")

	invalid := Build(single("", vocab.StatusDrift, []Operation{{Ordinal: 1, Action: vocab.ActionCreate}}, nil), model.Redaction{})
	err = WriteFile(filepath.Join(dir, "p.json"), invalid)
	require.True(t, errors.As(err, &we))
	assert.Equal(t, "validate", we.Step, "a create without keys is refused, not written")
	_, statErr := os.Stat(filepath.Join(dir, "p.json"))
	assert.True(t, os.IsNotExist(statErr))

	_, err = ReadFile(filepath.Join(dir, "absent.json"))
	assert.Equal(t, diag.PlanfileUnreadable, classOf(err))
}

// TestMetadataKindsOnlyOnUpdates: a plan file lists metadata kinds only on
// an update, known kinds in schema order, never an empty list.
func TestMetadataKindsOnlyOnUpdates(t *testing.T) {
	base := Build(fixtures(t)["full"], model.Redaction{})
	require.NoError(t, base.Validate())
	for name, mutate := range map[string]func(*Op){
		"on a restore":  func(o *Op) { o.Action, o.Reason, o.Keys = vocab.ActionRestore, vocab.ReasonScheduledForDeletion, nil },
		"unknown kind":  func(o *Op) { o.Metadata = []vocab.MetadataKind{"owner"} },
		"out of order":  func(o *Op) { o.Metadata = []vocab.MetadataKind{vocab.MetadataTags, vocab.MetadataKMSKey} },
		"repeated kind": func(o *Op) { o.Metadata = []vocab.MetadataKind{vocab.MetadataTags, vocab.MetadataTags} },
		"empty list":    func(o *Op) { o.Metadata = []vocab.MetadataKind{} },
	} {
		v := base
		v.Scopes = slices.Clone(base.Scopes)
		s := &v.Scopes[0]
		s.Operations = slices.Clone(s.Operations)
		i := slices.IndexFunc(s.Operations, func(o Op) bool { return len(o.Metadata) > 0 })
		require.GreaterOrEqual(t, i, 0)
		mutate(&s.Operations[i])
		s.Counts = Count(s.Operations)
		assert.Error(t, v.Validate(), name)
	}
}

// TestRegression_PlanFileReaderIsStrict: a key given twice (the last
// schema_version used to win), a key in another letter case (encoding/json
// matched it to the schema's key) and invalid UTF-8 (replaced by U+FFFD)
// are each planfile:malformed; before, the reader accepted all three.
func TestRegression_PlanFileReaderIsStrict(t *testing.T) {
	good := string(fileOf(t, false))
	require.Contains(t, good, `"names_shown": false`)
	for name, data := range map[string]string{
		"duplicate schema_version": strings.Replace(good, `"schema_version"`, `"schema_version": "sops-aws-sync/plan/v0", "schema_version"`, 1),
		"duplicate nested key":     strings.Replace(good, `"create": 1,`, `"create": 9, "create": 1,`, 1),
		"case-variant key":         strings.Replace(good, `"names_shown"`, `"Names_Shown"`, 1),
		"case-variant nested key":  strings.Replace(good, `"unchanged": 3`, `"UNCHANGED": 3`, 1),
		"invalid UTF-8":            strings.Replace(good, `"diagnostics": [`, "\"diagnostics\": [\n", 1) + "\xff",
		"invalid UTF-8 in a value": strings.Replace(good, `"resource-0001"`, "\"resource-0001\xff\"", 1),
	} {
		require.NotEqual(t, good, data, name)
		_, err := Parse([]byte(data))
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), "%s: %v", name, err)
	}
}

// TestRegression_ReadFileOfAFIFO: a FIFO is refused at once as not a
// regular file (before, ReadFile blocked in open until a writer came).
func TestRegression_ReadFileOfAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	_, err := ReadFile(p)
	assert.Equal(t, diag.PlanfileNotRegularFile, classOf(err))
	_, err = ReadFile("/dev/null")
	assert.Equal(t, diag.PlanfileNotRegularFile, classOf(err))
}

// TestWholeValuePlanFileRoundTrips: a plan with whole values parses back
// to the same view (a create may carry keys_unavailable whole-value and no
// other token), and no rendering carries a count of bytes.
func TestWholeValuePlanFileRoundTrips(t *testing.T) {
	for _, shown := range []bool{false, true} {
		v := Build(fixtures(t)["whole"], model.Redaction{ShowNames: shown})
		b, err := Marshal(v)
		require.NoError(t, err)
		got, err := Parse(b)
		require.NoError(t, err)
		assert.Equal(t, v, got)
		for _, out := range []string{Text(v), Markdown(v)} {
			assert.NotRegexp(t, `\d+ bytes|sha256|[0-9a-f]{16}`, strings.ReplaceAll(out, rev, ""))
			assert.Contains(t, out, "whole value changed")
		}
	}
}

// A plan file written without --show-resource-names never names a
// document, so a diagnostic subject that could be a document path is
// refused like a resource name would be; the subjects the CLI writes
// (none, an ordinal label, a setting) still parse.
func TestRegression_DiagnosticSubjectNamesADocumentWithNamesHidden(t *testing.T) {
	withSubject := func(shown bool, subject string) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(fileOf(t, shown), &m))
		m["diagnostics"] = []any{map[string]any{"class": "decrypt:malformed", "summary": "s", "next": "", "subject": subject}}
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	for _, s := range []string{"prod/db/password.sops.yaml", "resource-12", "flag -x", "config file key", "resource-0001 prod/db"} {
		_, err := Parse(withSubject(false, s))
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), s)
	}
	for _, s := range []string{"", "resource-0007", "resource-unknown", "flag --secret-prefix", "environment variable SOPS_AWS_SYNC_X",
		"config file", "config file key at line 3", "setting --repository-id"} {
		_, err := Parse(withSubject(false, s))
		assert.NoError(t, err, s)
	}
	_, err := Parse(withSubject(true, "prod/db/password.sops.yaml"))
	assert.NoError(t, err, "names shown: a path is the subject")
}

// TestParseReadsV1AsOneScope: a plan file written before scopes (v1) is
// read as one scope named default with no Region, status or verification,
// holding exactly its operations and diagnostics; it renders, and is never
// written back.
func TestParseReadsV1AsOneScope(t *testing.T) {
	for _, tc := range []struct {
		file  string
		shown bool
		in    string
	}{{"v1-full-names.json", true, "full"}, {"v1-full-hidden.json", false, "full"}, {"v1-invalid-hidden.json", false, "invalid"}} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.file))
		require.NoError(t, err)
		require.Contains(t, string(b), `"schema_version": "sops-aws-sync/plan/v1"`)
		v, err := Parse(b)
		require.NoError(t, err, tc.file)
		assert.Equal(t, vocab.PlanSchemaV1, v.SchemaVersion)
		require.Len(t, v.Scopes, 1)
		s := v.Scopes[0]
		assert.Equal(t, ScopeView{Name: model.DefaultScopeName, Counts: s.Counts, Operations: s.Operations, Diagnostics: s.Diagnostics}, s, "no Region, status or verification")
		in := fixtures(t)[tc.in]
		in.Salt = nil // v1 binds nothing
		want := Build(in, model.Redaction{ShowNames: tc.shown}).Scopes[0]
		assert.Equal(t, want.Operations, s.Operations, tc.file)
		assert.Equal(t, want.Counts, s.Counts, tc.file)
		assert.Equal(t, want.Diagnostics, s.Diagnostics, tc.file)
		st, ver := v.Outcome()
		assert.Equal(t, vocab.Status(""), st, "v1 records no status")
		assert.Equal(t, vocab.Verification(""), ver)
		text := Text(v)
		assert.Contains(t, text, "\nScope default\n")
		assert.Contains(t, text, "sops-aws-sync/plan/v1")
		_, err = Marshal(v)
		assert.Equal(t, diag.PlanfileUnknownSchema, classOf(err), "only v3 is written")
		err = WriteFile(filepath.Join(t.TempDir(), "p.json"), v)
		var we *wirefile.WriteError
		assert.True(t, errors.As(err, &we), "only v3 is written")
	}
}

// TestParseReadsV2WithoutBindings: a plan file written before the
// reviewed-plan binding (v2, SPEC §10) is read as it was, with none of
// v3's bindings; it renders, is never written back, and a v2 file that
// carries a v3 field is malformed.
func TestParseReadsV2WithoutBindings(t *testing.T) {
	for _, tc := range []struct {
		file  string
		shown bool
	}{{"v2-full-names.json", true}, {"v2-full-hidden.json", false}} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.file))
		require.NoError(t, err)
		v, err := Parse(b)
		require.NoError(t, err, tc.file)
		assert.Equal(t, vocab.PlanSchemaV2, v.SchemaVersion)
		in := fixtures(t)["full"]
		in.Salt, in.Command, in.Scopes[0].SourceTree = nil, "", ""
		want := Build(in, model.Redaction{ShowNames: tc.shown})
		want.SchemaVersion = vocab.PlanSchemaV2
		assert.Equal(t, want, v, tc.file)
		_, err = Marshal(v)
		assert.Equal(t, diag.PlanfileUnknownSchema, classOf(err), "only v3 is written")
		bad := strings.Replace(string(b), `"names_shown"`, `"command": "plan", "names_shown"`, 1)
		_, err = Parse([]byte(bad))
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), "a v3 field in a v2 file")
	}
	for name, data := range map[string]string{
		"v1 with scopes": `{"schema_version":"sops-aws-sync/plan/v1","git_revision":"","names_shown":false,"scopes":[],"operations":[],"summary":{"create":0,"update":0,"restore":0,"schedule_delete":0,"unchanged":0,"conflicts":0},"diagnostics":[]}`,
		"v1 summary off": `{"schema_version":"sops-aws-sync/plan/v1","git_revision":"","names_shown":false,"operations":[],"summary":{"create":1,"update":0,"restore":0,"schedule_delete":0,"unchanged":0,"conflicts":0},"diagnostics":[]}`,
		"v1 with counts": `{"schema_version":"sops-aws-sync/plan/v1","git_revision":"","names_shown":false,"operations":[],"counts":{"create":0,"update":0,"restore":0,"schedule_delete":0,"unchanged":0,"conflicts":0},"diagnostics":[]}`,
		"v1 name hidden": `{"schema_version":"sops-aws-sync/plan/v1","git_revision":"","names_shown":false,"operations":[{"resource":"prod/x","action":"unchanged","reason":"value-equal"}],"summary":{"create":0,"update":0,"restore":0,"schedule_delete":0,"unchanged":1,"conflicts":0},"diagnostics":[]}`,
	} {
		_, err := Parse([]byte(data))
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), name)
	}
}

// TestSeveralScopes: scopes keep their order and their own ordinals; the
// run's outcome is the most severe scope status (SPEC §10) with its
// verification; its counts are the scopes' summed; a run with no scope is
// invalid; every rendering heads a section per scope with its name and
// Region.
func TestSeveralScopes(t *testing.T) {
	v := Build(fixtures(t)["scopes"], model.Redaction{})
	require.NoError(t, v.Validate())
	var names []string
	for _, s := range v.Scopes {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{"prod-eu", "staging", "prod-us"}, names, "configuration order")
	assert.Equal(t, "resource-0001", v.Scopes[0].Operations[0].Resource)
	assert.Equal(t, "resource-0001", v.Scopes[2].Operations[0].Resource, "ordinals are each scope's own")
	st, ver := v.Outcome()
	assert.Equal(t, vocab.StatusConflict, st)
	assert.Equal(t, vocab.VerificationNotRun, ver)
	assert.Equal(t, vocab.Counts{Create: 1, Update: 1, ScheduleDelete: 1, Unchanged: 1, Conflicts: 1}, v.Counts())

	text, md := Text(v), Markdown(v)
	for _, h := range []string{"Scope prod-eu · eu-west-1 · drift", "Scope staging · us-east-1 · converged", "Scope prod-us · us-east-1 · conflict"} {
		assert.Equal(t, 1, strings.Count(text, "\n"+h+"\n"), h)
	}
	assert.Contains(t, text, "Run: conflict, verification not-run, 3 scopes\n")
	assert.Contains(t, text, "\nAll scopes: Plan: 1 to create, 1 to update, 0 to restore, 1 to schedule for deletion, 1 unchanged.\n")
	for _, h := range []string{"#### Scope `prod-eu` · `eu-west-1` · drift", "#### Scope `staging` · `us-east-1` · converged", "#### Scope `prod-us` · `us-east-1` · conflict"} {
		assert.Equal(t, 1, strings.Count(md, h+"\n"), h)
	}
	assert.Contains(t, md, "| `prod-us` | `us-east-1` | conflict | 0 | 1 | 0 | 0 | 0 | 1 |\n")
	assert.Contains(t, md, "| all |  |  | 1 | 1 | 0 | 1 | 1 | 1 |\n")
	assert.Less(t, strings.Index(md, "warning:orphans"), strings.Index(md, "#### Scope"), "the run's own warning comes before the scopes")

	for _, tc := range []struct {
		statuses []vocab.Status
		want     vocab.Status
	}{
		{[]vocab.Status{vocab.StatusConverged, vocab.StatusDrift}, vocab.StatusDrift},
		{[]vocab.Status{vocab.StatusInvalid, vocab.StatusConflict}, vocab.StatusConflict},
		{[]vocab.Status{vocab.StatusConflict, vocab.StatusVerificationFailed}, vocab.StatusVerificationFailed},
		{[]vocab.Status{vocab.StatusVerificationFailed, vocab.StatusApplyFailed}, vocab.StatusApplyFailed},
		{[]vocab.Status{vocab.StatusApplyFailed, vocab.StatusInterrupted, vocab.StatusDrift}, vocab.StatusInterrupted},
	} {
		var in Input
		for i, s := range tc.statuses {
			in.Scopes = append(in.Scopes, ScopeInput{Name: "s" + itoa(i), Status: s, Verification: vocab.VerificationNotRun})
		}
		got, _ := Build(in, model.Redaction{}).Outcome()
		assert.Equal(t, tc.want, got, "%v", tc.statuses)
	}
	early := Build(fixtures(t)["early"], model.Redaction{})
	require.NoError(t, early.Validate())
	st, _ = early.Outcome()
	assert.Equal(t, vocab.StatusInvalid, st, "no scope known: invalid")
}

// TestRegression_UnobservedScopeShownAsInSync: a scope that the run stopped
// before it was observed (another scope's invalid document, a refused role
// of the run, an interruption) has no operation and no diagnostic of its
// own. Its section said "No changes: AWS Secrets Manager matches the
// commit", so a pull request's comment called a scope in sync that nobody
// had read.
func TestRegression_UnobservedScopeShownAsInSync(t *testing.T) {
	const inSync = "No changes: AWS Secrets Manager matches the commit."
	in := Input{
		Diagnostics: diag.Diagnostics{{Class: "credentials:assume-role", Subject: diag.Subject{Setting: "scopes.denied.role-arn", Origin: diag.OriginFile},
			Summary: "the scope's role-arn could not be assumed", Next: "check the trust policy"}},
		Scopes: []ScopeInput{
			{Name: "prod-eu", Region: "eu-west-1", Status: vocab.StatusObservationFailed, Verification: vocab.VerificationNotRun},
			{Name: "staging", Region: "eu-central-1", Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun},
			{Name: "late", Region: "eu-central-1", Status: vocab.StatusInterrupted, Verification: vocab.VerificationNotRun},
			{Name: "fine", Region: "eu-central-1", Status: vocab.StatusConverged, Verification: vocab.VerificationNotRun},
		},
	}
	v := Build(in, model.Redaction{})
	require.NoError(t, v.Validate())
	for _, out := range []string{Text(v), Markdown(v)} {
		assert.Equal(t, 1, strings.Count(out, inSync), "only the converged scope is said to match:\n%s", out)
		for _, st := range []string{"observation-failed", "invalid", "interrupted"} {
			assert.Contains(t, out, "the scope ended "+st+": AWS Secrets Manager is not known to match the commit.")
		}
	}
	b, err := Marshal(v)
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(Text(back), inSync), "show renders the saved file the same way")
}

// TestRegression_V1SummaryTakesLaterCountKeys: a v1 plan file's summary has
// exactly v1's six count keys. Read through vocab.Counts, it took the adopt
// key that came after v1 (optional there), so a v1 file with an adopt
// count, or an adopt operation counted so, was accepted.
func TestRegression_V1SummaryTakesLaterCountKeys(t *testing.T) {
	for name, data := range map[string]string{
		"v1 adopt count":  `{"schema_version":"sops-aws-sync/plan/v1","git_revision":"","names_shown":false,"operations":[],"summary":{"create":0,"update":0,"adopt":0,"restore":0,"schedule_delete":0,"unchanged":0,"conflicts":0},"diagnostics":[]}`,
		"v1 adopt action": `{"schema_version":"sops-aws-sync/plan/v1","git_revision":"","names_shown":false,"operations":[{"resource":"resource-0001","action":"adopt","reason":"value-equal","keys":{"added":0,"removed":0,"changed":0}}],"summary":{"create":0,"update":0,"adopt":1,"restore":0,"schedule_delete":0,"unchanged":0,"conflicts":0},"diagnostics":[]}`,
	} {
		_, err := Parse([]byte(data))
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), name)
	}
}

// TestRegression_SettingSubjectHidesAName: a diagnostic subject was taken
// for a setting when it merely began like one ("config file key ", "flag
// --"), so a plan file whose names are hidden could carry a secret name or
// document path after that prefix and show rendered it. A setting subject
// is now one of the forms config writes: a setting or key of its safe key
// text, a line, or a path into scopes:.
func TestRegression_SettingSubjectHidesAName(t *testing.T) {
	withSubject := func(subject string) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(fileOf(t, false), &m))
		m["diagnostics"] = []any{map[string]any{"class": "config:invalid-value", "summary": "s", "next": "", "subject": subject}}
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	for _, s := range []string{"config file key prod/payments/db", "flag --prod/payments/db", "setting --db password",
		"config file key scopes.prod-eu.prod/payments/db", "config file key scopes.Prod.x", "config file key at line 3 prod/db",
		"flag --secret-prefix prod/payments/db"} {
		_, err := Parse(withSubject(s))
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), s)
	}
	for _, s := range []string{"config file key scopes.prod-eu.role-arn", "config file key scopes[0].name", "config file key scopes[4]",
		"config file key scopes", "config file key secret-prefx", "config file key at line 12", "flag --tag",
		"setting --secret-prefix", "environment variable SOPS_AWS_SYNC_FOO_Bar", "config file key tags"} {
		_, err := Parse(withSubject(s))
		assert.NoError(t, err, s)
	}
}

// TestRegression_PlanFileContradictsItself: the reader accepted a scope
// listing one operation twice (same action and resource; its counts
// raised to match) and a scope whose status was converged with
// verification not-run (nothing to do) while it listed operations or a
// conflict; show rendered both. Each is planfile:malformed. A restore and
// the follow-up update of one resource, and a sync's converged scope that
// applied and verified its operations, stay valid.
func TestRegression_PlanFileContradictsItself(t *testing.T) {
	mutate := func(f func(sc map[string]any)) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(fileOf(t, false), &m))
		f(m["scopes"].([]any)[0].(map[string]any))
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return b
	}
	ops := func(sc map[string]any) []any { return sc["operations"].([]any) }
	count := func(sc map[string]any, key string, by float64) {
		sc["counts"].(map[string]any)[key] = sc["counts"].(map[string]any)[key].(float64) + by
	}
	twice := func(i int, key string) func(sc map[string]any) {
		return func(sc map[string]any) {
			o := ops(sc)
			sc["operations"] = slices.Insert(o, i+1, o[i])
			count(sc, key, 1)
		}
	}
	converged := func(sc map[string]any) { sc["status"], sc["verification"] = "converged", "not-run" }
	onlyUnchanged := func(sc map[string]any) {
		sc["operations"] = slices.DeleteFunc(ops(sc), func(o any) bool { return o.(map[string]any)["action"] != "unchanged" })
		for _, k := range []string{"create", "update", "restore", "schedule_delete"} {
			sc["counts"].(map[string]any)[k] = 0.0
		}
	}
	for name, data := range map[string][]byte{
		"create twice":              mutate(twice(1, "create")),
		"restore twice":             mutate(twice(0, "restore")),
		"unchanged twice":           mutate(twice(len(ops(sc0(t)))-1, "unchanged")),
		"converged with operations": mutate(converged),
		"converged with a conflict": mutate(func(sc map[string]any) {
			onlyUnchanged(sc)
			converged(sc)
			sc["operations"] = append([]any{map[string]any{"resource": "resource-0099", "action": "conflict", "reason": "ownership"}}, ops(sc)...)
			count(sc, "conflicts", 1)
		}),
	} {
		_, err := Parse(data)
		assert.Equal(t, diag.PlanfileMalformed, classOf(err), "%s: %v", name, err)
	}
	for name, data := range map[string][]byte{
		"restore and its follow-up update": mutate(func(sc map[string]any) {
			for _, o := range ops(sc) {
				if o.(map[string]any)["reason"] == "restore-then-update" {
					o.(map[string]any)["resource"] = ops(sc)[0].(map[string]any)["resource"]
				}
			}
		}),
		"sync converged and verified": mutate(func(sc map[string]any) { sc["status"], sc["verification"] = "converged", "converged" }),
		"converged, nothing to do":    mutate(func(sc map[string]any) { onlyUnchanged(sc); converged(sc) }),
	} {
		_, err := Parse(data)
		assert.NoError(t, err, name)
	}
}

// sc0 is the first scope of the full fixture's file as JSON.
func sc0(t *testing.T) map[string]any {
	var m map[string]any
	require.NoError(t, json.Unmarshal(fileOf(t, false), &m))
	return m["scopes"].([]any)[0].(map[string]any)
}

// validate writes a plan file of its diagnostics (SPEC §15); the v3
// bindings check refused its command word, so every validate run ended
// planfile:write-failed (exit 2) once plan file v3 landed.
func TestRegression_ValidatesPlanFileIsWritableAndNeverReviewable(t *testing.T) {
	in := fixtures(t)["full"]
	in.Command = CommandValidate
	v := Build(in, model.Redaction{})
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, WriteFile(p, v))
	back, err := ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, CommandValidate, back.Command)
	assert.NotEmpty(t, Reviewable(back), "a validate file is never a reviewed plan")
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(raw), `"command": "validate"`)
	_, err = Parse(bytes.Replace(raw, []byte(`"command": "validate"`), []byte(`"command": "apply"`), 1))
	assert.Equal(t, diag.PlanfileMalformed, classOf(err), "an unknown command word stays malformed")
}

// A validate file was rendered under the heading "sops-aws-sync plan",
// so the GitHub Action's job summary of a fork's pull request, where no
// plan was computed, read as a plan. Its renderings are titled validate;
// a plan's and a sync's stay "sops-aws-sync plan".
func TestRegression_ValidateFileIsNotRenderedAsAPlan(t *testing.T) {
	in := fixtures(t)["full"]
	in.Command = CommandValidate
	v := Build(in, model.Redaction{})
	assert.True(t, strings.HasPrefix(Markdown(v), "### sops-aws-sync validate\n"), Markdown(v))
	assert.True(t, strings.HasPrefix(Text(v), "sops-aws-sync validate "), Text(v))
	for _, c := range []string{CommandPlan, ""} {
		in.Command = c
		v = Build(in, model.Redaction{})
		assert.True(t, strings.HasPrefix(Markdown(v), "### sops-aws-sync plan\n"), c)
		assert.True(t, strings.HasPrefix(Text(v), "sops-aws-sync plan "), c)
	}
}

// validate's file rendered a scope without errors as "No changes: AWS
// Secrets Manager matches the commit." and a scope another scope's invalid
// document ended invalid as "not known to match", though validate never
// reads AWS (issue 44 §4, SPEC §15). Each says AWS was not read; a scope
// with its own error says nothing more than its error.
func TestRegression_ValidateScopeIsNeverSaidToMatchAWS(t *testing.T) {
	in := Input{Command: CommandValidate, Scopes: []ScopeInput{
		{Name: "fine", Region: "eu-west-1", Status: vocab.StatusConverged, Verification: vocab.VerificationNotRun},
		{Name: "other", Region: "eu-west-1", Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun},
		{Name: "bad", Region: "eu-west-1", Status: vocab.StatusInvalid, Verification: vocab.VerificationNotRun,
			Diagnostics: diag.Diagnostics{diag.New(diag.DecryptNotEncrypted, diag.Document(3, "", false))}},
	}}
	v := Build(in, model.Redaction{})
	require.NoError(t, v.Validate())
	const notRead = "AWS was not read: validate checks the commit only, so nothing is known of what AWS holds."
	for _, out := range []string{Text(v), Markdown(v)} {
		assert.NotContains(t, out, "matches the commit", out)
		assert.NotContains(t, out, "not known to match", out)
		assert.Equal(t, 2, strings.Count(out, notRead), "the two scopes without an error of their own:\n%s", out)
	}
}

// A sync's file was rendered under the heading "sops-aws-sync plan" (issue
// 44 §4), so the job summary of the push that applied it read as a plan
// still to be applied. Its renderings are titled sync.
func TestRegression_SyncFileIsNotRenderedAsAPlan(t *testing.T) {
	in := fixtures(t)["full"]
	in.Command = CommandSync
	v := Build(in, model.Redaction{})
	assert.True(t, strings.HasPrefix(Markdown(v), "### sops-aws-sync sync\n"), Markdown(v))
	assert.True(t, strings.HasPrefix(Text(v), "sops-aws-sync sync "), Text(v))
}

// TestReviewedPlanIsSaidApplied (SPEC §14, issue 44 §4): a sync that
// applied a reviewed plan says so in its renderings, with the plan's
// operations and the commit it was reviewed at, and its file keeps the
// key reviewed; a file of any other command, or with no commit, that
// carries it is planfile:malformed, as is a negative count (0, a reviewed
// plan of converged scopes, is valid); without it nothing is said.
func TestReviewedPlanIsSaidApplied(t *testing.T) {
	const at = "fedcba9876543210fedcba9876543210fedcba98"
	in := fixtures(t)["full"]
	in.Command = CommandSync
	in.Reviewed = &Reviewed{GitRevision: at, Operations: 3}
	v := Build(in, model.Redaction{})
	line := "Applying the reviewed plan (3 operations, reviewed at commit " + at + "): this run planned exactly what was reviewed."
	assert.Contains(t, Text(v), "\n"+line+"\n")
	assert.Contains(t, Markdown(v), "\n"+line+"\n")
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, WriteFile(p, v))
	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"reviewed": {`)
	back, err := ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, &Reviewed{GitRevision: at, Operations: 3}, back.Reviewed)

	in.Reviewed = &Reviewed{GitRevision: at, Operations: 1}
	assert.Contains(t, Text(Build(in, model.Redaction{})), "(1 operation, reviewed at commit ")
	for name, bad := range map[string]View{
		"a plan's":   func() View { w := v; w.Command = CommandPlan; return w }(),
		"no commit":  func() View { w := v; w.Reviewed = &Reviewed{Operations: 3}; return w }(),
		"a negative": func() View { w := v; w.Reviewed = &Reviewed{GitRevision: at, Operations: -1}; return w }(),
	} {
		assert.Equal(t, diag.PlanfileMalformed, classOf(bad.Validate()), name)
	}
	converged := v
	converged.Reviewed = &Reviewed{GitRevision: at, Operations: 0}
	assert.NoError(t, converged.Validate(), "a reviewed plan of 0 operations (every scope converged) is valid")
	in.Reviewed = nil
	assert.NotContains(t, Text(Build(in, model.Redaction{})), "reviewed plan")
}

// TestAWSOwnedKeptIsRefusedOnAConflict: a plan file counts the keys AWS
// owns (aws_owned_kept, SPEC §13) on the operations the plan writes or
// keeps, never on a conflict, whose secret the plan does not touch
// (docs/results.md). A file whose unchanged entry carries a count reads
// back with it; one whose conflict entry carries a count is
// planfile:malformed, and so is a negative count.
func TestAWSOwnedKeptIsRefusedOnAConflict(t *testing.T) {
	base := Build(fixtures(t)["conflict"], model.Redaction{})
	require.NoError(t, base.Validate())
	withKept := func(a vocab.Action, n int) View {
		v := base
		v.Scopes = slices.Clone(base.Scopes)
		s := &v.Scopes[0]
		s.Operations = slices.Clone(s.Operations)
		i := slices.IndexFunc(s.Operations, func(o Op) bool { return o.Action == a })
		require.GreaterOrEqual(t, i, 0, "the fixture has a %s", a)
		s.Operations[i].AWSOwnedKept = n
		return v
	}

	b, err := Marshal(withKept(vocab.ActionUnchanged, 2))
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, 2, Kept(back.Scopes[0].Operations))

	for name, v := range map[string]View{
		"on a conflict": withKept(vocab.ActionConflict, 1),
		"negative":      withKept(vocab.ActionUnchanged, -1),
	} {
		assert.Error(t, v.Validate(), name)
	}
	// The same refusal from the file: the count moved to the conflict entry.
	good := string(b)
	require.Equal(t, 1, strings.Count(good, `"aws_owned_kept": 2`))
	bad := strings.Replace(good, `"aws_owned_kept": 2`, `"aws_owned_kept": 0`, 1)
	bad = strings.Replace(bad, `"action": "conflict",`, `"action": "conflict", "aws_owned_kept": 2,`, 1)
	require.Contains(t, bad, `"action": "conflict", "aws_owned_kept": 2,`)
	_, err = Parse([]byte(bad))
	assert.Equal(t, diag.PlanfileMalformed, classOf(err), "%v", err)
}

// TestConflictCaseRoundTripsAndSaysItsNextAction: a rotation conflict's
// case (vocab.ConflictClass.Cases) is written as conflict_case, read
// back, and chooses the words the renderings show: in flight → re-run
// after the rotation finishes; keys not listed → list them in aws-owned.
// A case on another class, on an action other than conflict, or unknown
// is planfile:malformed.
func TestConflictCaseRoundTripsAndSaysItsNextAction(t *testing.T) {
	in := fixtures(t)["conflict"]
	in.Scopes[0].Operations = slices.Clone(in.Scopes[0].Operations)
	i := slices.IndexFunc(in.Scopes[0].Operations, func(o Operation) bool { return o.Conflict == vocab.ConflictRotation })
	require.GreaterOrEqual(t, i, 0, "the fixture has a rotation conflict")
	for k, words := range map[vocab.ConflictCase]string{
		vocab.CaseRotationInFlight:      "next: re-run after the rotation finishes",
		vocab.CaseRotationKeysNotListed: "next: list the keys the rotation changes in aws-owned",
	} {
		in.Scopes[0].Operations[i].Case = k
		v := Build(in, model.Redaction{})
		require.NoError(t, v.Validate())
		b, err := Marshal(v)
		require.NoError(t, err)
		require.Contains(t, string(b), `"conflict_case": "`+string(k)+`"`)
		back, err := Parse(b)
		require.NoError(t, err)
		text := Text(back)
		assert.Contains(t, text, words, k)
		assert.NotContains(t, text, "cannot also be Git-managed", k)
		assert.Contains(t, Markdown(back), words, k)

		for name, bad := range map[string]string{
			"unknown case":          strings.Replace(string(b), `"conflict_case": "`+string(k)+`"`, `"conflict_case": "later"`, 1),
			"case on another class": strings.Replace(string(b), `"reason": "ownership"`, `"reason": "ownership", "conflict_case": "`+string(k)+`"`, 1),
		} {
			require.NotEqual(t, string(b), bad, name)
			_, err := Parse([]byte(bad))
			assert.Equal(t, diag.PlanfileMalformed, classOf(err), "%s: %v", name, err)
		}
	}
	v := Build(in, model.Redaction{})
	s := &v.Scopes[0]
	j := slices.IndexFunc(s.Operations, func(o Op) bool { return o.Action != vocab.ActionConflict })
	require.GreaterOrEqual(t, j, 0)
	s.Operations = slices.Clone(s.Operations)
	s.Operations[j].Case = vocab.CaseRotationInFlight
	assert.Error(t, v.Validate(), "a case on an action other than conflict")
}

// TestReviewedTallyNamesTheScopesSkippedAsUnreachable (SPEC §17): a sync
// that applied a reviewed plan while skipping scopes whose account could
// not be reached says which, after the commit, in its renderings; the
// tally alone names one scope or several.
func TestReviewedTallyNamesTheScopesSkippedAsUnreachable(t *testing.T) {
	const at = "fedcba9876543210fedcba9876543210fedcba98"
	assert.Equal(t, "the reviewed plan (2 operations, reviewed at commit "+at+")", ReviewedTally(2, at, nil))
	assert.Equal(t, "the reviewed plan (1 operation, reviewed at commit "+at+"; skipped as unreachable: scope b)", ReviewedTally(1, at, []string{"b"}))
	assert.Equal(t, "the reviewed plan (0 operations, reviewed at commit "+at+"; skipped as unreachable: scopes b, c)", ReviewedTally(0, at, []string{"b", "c"}))
	v := View{Command: CommandSync, GitRevision: at, Reviewed: &Reviewed{GitRevision: at, Operations: 2},
		Scopes: []ScopeView{{Name: "a", Status: vocab.StatusConverged}, {Name: "b", Status: vocab.StatusUnreachable}}}
	line := "Applying the reviewed plan (2 operations, reviewed at commit " + at + "; skipped as unreachable: scope b): this run planned exactly what was reviewed of the scopes it reached."
	assert.Contains(t, Text(v), "\n"+line+"\n")
	assert.Contains(t, Markdown(v), "\n"+line+"\n")
}
