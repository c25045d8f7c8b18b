package schemas_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/changes"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/schemas"
)

// Enums are the Go string types whose values are a closed list: a schema
// enum of one of them holds only values of its list.
func Enums() map[reflect.Type][]string {
	strs := func(vs any) []string {
		var out []string
		v := reflect.ValueOf(vs)
		for i := range v.Len() {
			out = append(out, v.Index(i).String())
		}
		return out
	}
	return map[reflect.Type][]string{
		reflect.TypeFor[vocab.Status]():          strs(vocab.Statuses),
		reflect.TypeFor[vocab.Verification]():    strs(vocab.Verifications),
		reflect.TypeFor[vocab.Action]():          strs(vocab.Actions),
		reflect.TypeFor[vocab.MetadataKind]():    strs(vocab.MetadataKinds),
		reflect.TypeFor[vocab.KeysUnavailable](): strs(vocab.KeysUnavailableReasons),
		reflect.TypeFor[model.Target]():          strs(model.Targets),
	}
}

// TestSchemasMatchTheGoTypes: each schema the tool writes a file by has
// exactly the keys of the Go type it writes from, closed objects, the
// keys always written required, enumerations of vocab's values; so a
// field added to planview.View, report.Report or changes.Changes fails
// here until its schema says it (plan v2 and v1, read from planview's
// own types, are held by planview's TestOldSchemasMatchTheirTypes).
func TestSchemasMatchTheGoTypes(t *testing.T) {
	for _, c := range []struct {
		file string
		typ  reflect.Type
		omit map[string]bool
	}{
		{"plan-v3.schema.json", reflect.TypeFor[planview.View](), nil},
		// Report v1's counts are six keys (SPEC §7.2): an adoption is counted as update.
		{"report-v1.schema.json", reflect.TypeFor[report.Report](), map[string]bool{"Counts.adopt": true}},
		{"changes-v1.schema.json", reflect.TypeFor[changes.Changes](), nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			assert.Empty(t, schemas.Drift(c.file, c.typ, c.omit, Enums()))
		})
	}
}

// TestDriftFindsAFieldTheSchemaLacks: the drift check is not vacuous: a
// struct with one more key, one key fewer, an optional key made
// required, or an open object is each found.
func TestDriftFindsAFieldTheSchemaLacks(t *testing.T) {
	type more struct {
		changes.Scope
		Extra string `json:"extra"`
	}
	type scopeLike struct {
		Name        string       `json:"name"`
		Region      string       `json:"region"`
		Status      vocab.Status `json:"status"`
		StateDigest string       `json:"state_digest,omitempty"`
	}
	type fewer struct {
		SchemaVersion string           `json:"schema_version"`
		ToolVersion   string           `json:"tool_version"`
		GitRevision   string           `json:"git_revision"`
		Status        vocab.Status     `json:"status"`
		Changes       []changes.Change `json:"changes"`
		Scopes        []more           `json:"scopes"`
	}
	got := schemas.Drift("changes-v1.schema.json", reflect.TypeFor[fewer](), nil, Enums())
	assert.NotEmpty(t, got, "an extra key in a scope")
	type optional struct {
		SchemaVersion string           `json:"schema_version"`
		ToolVersion   string           `json:"tool_version"`
		GitRevision   string           `json:"git_revision"`
		Status        vocab.Status     `json:"status"`
		Changes       []changes.Change `json:"changes"`
		Scopes        []scopeLike      `json:"scopes"`
	}
	assert.NotEmpty(t, schemas.Drift("changes-v1.schema.json", reflect.TypeFor[optional](), nil, Enums()), "a required key made optional")
	type missing struct {
		SchemaVersion string `json:"schema_version"`
	}
	assert.NotEmpty(t, schemas.Drift("changes-v1.schema.json", reflect.TypeFor[missing](), nil, Enums()), "keys the type lacks")
	assert.NotEmpty(t, schemas.Drift("report-v1.schema.json", reflect.TypeFor[report.Report](), nil, Enums()),
		"report v1's counts have no adopt, which vocab.Counts has")
}

// TestEnumerationsAreVocabs: the status, verification and action enums
// are vocab's whole lists (Drift checks only that they hold nothing else).
func TestEnumerationsAreVocabs(t *testing.T) {
	raw, err := schemas.Raw("plan-v3.schema.json")
	require.NoError(t, err)
	defs := raw.(map[string]any)["$defs"].(map[string]any)
	scope := defs["scope"].(map[string]any)["properties"].(map[string]any)
	op := defs["operation"].(map[string]any)["properties"].(map[string]any)
	enum := func(node any) []string {
		var out []string
		for _, v := range node.(map[string]any)["enum"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	assert.ElementsMatch(t, Enums()[reflect.TypeFor[vocab.Status]()], enum(scope["status"]))
	assert.ElementsMatch(t, Enums()[reflect.TypeFor[vocab.Verification]()], enum(scope["verification"]))
	assert.ElementsMatch(t, Enums()[reflect.TypeFor[vocab.Action]()], enum(op["action"]))
	var others []string
	for _, tg := range model.Targets {
		if !tg.IsDefault() {
			others = append(others, string(tg))
		}
	}
	assert.ElementsMatch(t, others, enum(scope["target"]), "target: every target but the default")
}

// fixtures are files the tool's own tests hold as written by the tool:
// planview's goldens (v3) and its v2 and v1 files, the changes golden.
func fixtures(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, g := range []string{"../internal/planview/testdata/*.json.golden", "../internal/planview/testdata/v[12]-*.json", "../internal/changes/testdata/*.json"} {
		m, err := filepath.Glob(g)
		require.NoError(t, err)
		out = append(out, m...)
	}
	require.GreaterOrEqual(t, len(out), 20)
	return out
}

// TestFixturesValidate: every plan file of planview's goldens (every
// ending, names shown and hidden), its v2 and v1 files and the changes
// golden validate against the schema their schema_version names, and
// the tool's own reader accepts each (so the schema is not stricter
// than the tool).
func TestFixturesValidate(t *testing.T) {
	for _, f := range fixtures(t) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.NoError(t, schemas.Validate(data), f)
	}
	r := report.New("v1.2.3", "0123456789abcdef0123456789abcdef01234567", vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Create: 1, Adopt: 2}, 12)
	r.Scopes = []report.Scope{report.NewScope("default", "eu-west-1", vocab.StatusDrift, vocab.VerificationNotRun, vocab.Counts{Create: 1, Adopt: 2})}
	b, err := report.Marshal(r)
	require.NoError(t, err)
	assert.NoError(t, schemas.Validate(b))
}

// TestSchemasAreStrict: a valid file changed in one place the schema
// closes — a key added at the top, in a scope, in an operation; a key
// removed; an unknown status, action or schema_version; a null — fails
// its schema, as the tool's reader refuses it.
func TestSchemasAreStrict(t *testing.T) {
	plan, err := os.ReadFile("../internal/planview/testdata/full-names.json.golden")
	require.NoError(t, err)
	chg, err := os.ReadFile("../internal/changes/testdata/changes.golden.json")
	require.NoError(t, err)
	rep, err := report.Marshal(report.New("v1", "", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{}, 1))
	require.NoError(t, err)
	edit := func(data []byte, f func(m map[string]any)) []byte {
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m))
		f(m)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		return out
	}
	scope0 := func(m map[string]any) map[string]any { return m["scopes"].([]any)[0].(map[string]any) }
	op0 := func(m map[string]any) map[string]any { return scope0(m)["operations"].([]any)[0].(map[string]any) }
	for name, bad := range map[string][]byte{
		"plan: a top-level key":        edit(plan, func(m map[string]any) { m["value"] = "x" }),
		"plan: a scope key":            edit(plan, func(m map[string]any) { scope0(m)["kms_key_id"] = "x" }),
		"plan: an operation key":       edit(plan, func(m map[string]any) { op0(m)["value"] = "x" }),
		"plan: a key removed":          edit(plan, func(m map[string]any) { delete(m, "names_shown") }),
		"plan: an unknown status":      edit(plan, func(m map[string]any) { scope0(m)["status"] = "fine" }),
		"plan: an unknown action":      edit(plan, func(m map[string]any) { op0(m)["action"] = "replace" }),
		"plan: a null":                 edit(plan, func(m map[string]any) { m["diagnostics"] = nil }),
		"plan: a salt of another form": edit(plan, func(m map[string]any) { m["digest_salt"] = "XYZ" }),
		"report: a key added":          edit(rep, func(m map[string]any) { m["secret"] = "x" }),
		"report: adopt in counts":      edit(rep, func(m map[string]any) { m["counts"].(map[string]any)["adopt"] = 0 }),
		"report: a negative count":     edit(rep, func(m map[string]any) { m["counts"].(map[string]any)["create"] = -1 }),
		"changes: a key added":         edit(chg, func(m map[string]any) { m["changes"].([]any)[0].(map[string]any)["value"] = "x" }),
		"changes: another schema":      edit(chg, func(m map[string]any) { m["schema_version"] = "sops-aws-sync/changes/v9" }),
	} {
		t.Run(name, func(t *testing.T) {
			assert.Error(t, schemas.Validate(bad))
		})
	}
}

// TestEverySchemaNameHasAFile: the schema names are vocab's and changes'
// constants, and each file's $id and schema_version const agree with
// its name.
func TestEverySchemaNameHasAFile(t *testing.T) {
	names := []string{vocab.PlanSchema, vocab.PlanSchemaV2, vocab.PlanSchemaV1, vocab.ReportSchema, changes.Schema}
	var keys []string
	for k := range schemas.Files {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, names, keys)
	for name, file := range schemas.Files {
		raw, err := schemas.Raw(file)
		require.NoError(t, err)
		m := raw.(map[string]any)
		assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", m["$schema"], file)
		assert.True(t, slices.Contains([]string{file}, filepath.Base(m["$id"].(string))), file)
		sv := m["properties"].(map[string]any)["schema_version"].(map[string]any)
		assert.Equal(t, name, sv["const"], file)
	}
}
