package planview

import (
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
		`{"schema_version":"sops-aws-sync/plan/v2","anything":"new"}`,
		`{"schema_version":"sops-aws-sync/report/v1"}`,
		`{"schema_version":1}`,
		`{"git_revision":""}`,
	} {
		_, err := Parse([]byte(s))
		assert.Equal(t, ClassUnknownSchema, classOf(err), s)
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
	op := func(m map[string]any, i int) map[string]any { return m["operations"].([]any)[i].(map[string]any) }
	// operation 1 is the create, 2 the first update, 0 the restore.
	bad := map[string][]byte{
		"extra top key":          mutate(false, func(m map[string]any) { m["status"] = "drift" }),
		"missing top key":        mutate(false, func(m map[string]any) { delete(m, "diagnostics") }),
		"null operations":        mutate(false, func(m map[string]any) { m["operations"] = nil }),
		"extra summary key":      mutate(false, func(m map[string]any) { m["summary"].(map[string]any)["deleted"] = 0 }),
		"summary mismatch":       mutate(false, func(m map[string]any) { m["summary"].(map[string]any)["create"] = 7.0 }),
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
		assert.Equal(t, ClassMalformed, classOf(err), name)
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
	err := WriteFile(filepath.Join(dir, "missing-dir", "p.json"), Build(Input{}, model.Redaction{}))
	require.True(t, errors.As(err, &we))
	assert.Equal(t, "create", we.Step)
	assert.NotContains(t, err.Error(), "missing-dir")

	invalid := Build(Input{Operations: []Operation{{Ordinal: 1, Action: vocab.ActionCreate}}}, model.Redaction{})
	err = WriteFile(filepath.Join(dir, "p.json"), invalid)
	require.True(t, errors.As(err, &we))
	assert.Equal(t, "validate", we.Step, "a create without keys is refused, not written")
	_, statErr := os.Stat(filepath.Join(dir, "p.json"))
	assert.True(t, os.IsNotExist(statErr))

	_, err = ReadFile(filepath.Join(dir, "absent.json"))
	assert.Equal(t, ClassUnreadable, classOf(err))
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
		v.Operations = slices.Clone(base.Operations)
		i := slices.IndexFunc(v.Operations, func(o Op) bool { return len(o.Metadata) > 0 })
		require.GreaterOrEqual(t, i, 0)
		mutate(&v.Operations[i])
		v.Summary = Count(v.Operations)
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
		assert.Equal(t, ClassMalformed, classOf(err), "%s: %v", name, err)
	}
}

// TestRegression_ReadFileOfAFIFO: a FIFO is refused at once as not a
// regular file (before, ReadFile blocked in open until a writer came).
func TestRegression_ReadFileOfAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "plan.json")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	_, err := ReadFile(p)
	assert.Equal(t, ClassNotRegularFile, classOf(err))
	_, err = ReadFile("/dev/null")
	assert.Equal(t, ClassNotRegularFile, classOf(err))
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
		assert.Equal(t, ClassMalformed, classOf(err), s)
	}
	for _, s := range []string{"", "resource-0007", "resource-unknown", "flag --secret-prefix", "environment variable SOPS_AWS_SYNC_X",
		"config file", "config file key at line 3", "setting --repository-id"} {
		_, err := Parse(withSubject(false, s))
		assert.NoError(t, err, s)
	}
	_, err := Parse(withSubject(true, "prod/db/password.sops.yaml"))
	assert.NoError(t, err, "names shown: a path is the subject")
}
