package report

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

const sha = "0123456789abcdef0123456789abcdef01234567"

func sample() Report {
	return New("v1.2.3", sha, vocab.StatusConverged, vocab.VerificationConverged,
		vocab.Counts{Create: 2, Update: 1, Unchanged: 4}, 1234)
}

func TestSchemaHasExactlyTheV1Keys(t *testing.T) {
	b, err := Marshal(sample())
	require.NoError(t, err)
	want := `{
  "schema_version": "sops-aws-sync/report/v1",
  "tool_version": "v1.2.3",
  "git_revision": "0123456789abcdef0123456789abcdef01234567",
  "status": "converged",
  "counts": {
    "create": 2,
    "update": 1,
    "restore": 0,
    "schedule_delete": 0,
    "unchanged": 4,
    "conflicts": 0
  },
  "verification": "converged",
  "duration_ms": 1234
}
`
	assert.Equal(t, want, string(b))
	r, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, sample(), r)
}

func TestRevisionIs40HexOrEmpty(t *testing.T) {
	for _, rev := range []string{"HEAD", "main", "abc123", strings.ToUpper(sha), sha + "0"} {
		assert.Equal(t, "", New("v", rev, vocab.StatusInvalid, vocab.VerificationNotRun, vocab.Counts{}, 0).GitRevision, rev)
	}
	assert.Equal(t, sha, sample().GitRevision)
}

func TestParseRejectsSchemaDrift(t *testing.T) {
	good, _ := Marshal(sample())
	var m map[string]any
	require.NoError(t, json.Unmarshal(good, &m))
	mutate := func(f func(map[string]any)) []byte {
		var c map[string]any
		_ = json.Unmarshal(good, &c)
		f(c)
		b, _ := json.Marshal(c)
		return b
	}
	bad := map[string][]byte{
		"extra key":      mutate(func(c map[string]any) { c["name"] = "x" }),
		"missing key":    mutate(func(c map[string]any) { delete(c, "duration_ms") }),
		"extra count":    mutate(func(c map[string]any) { c["counts"].(map[string]any)["deleted"] = 1 }),
		"missing count":  mutate(func(c map[string]any) { delete(c["counts"].(map[string]any), "restore") }),
		"null":           mutate(func(c map[string]any) { c["status"] = nil }),
		"wrong type":     mutate(func(c map[string]any) { c["duration_ms"] = "12" }),
		"bad status":     mutate(func(c map[string]any) { c["status"] = "ok" }),
		"bad verif":      mutate(func(c map[string]any) { c["verification"] = "yes" }),
		"bad schema":     mutate(func(c map[string]any) { c["schema_version"] = "v2" }),
		"bad revision":   mutate(func(c map[string]any) { c["git_revision"] = "HEAD" }),
		"trailing data":  append(append([]byte{}, good...), []byte("{}")...),
		"not an object":  []byte("[]"),
		"negative count": mutate(func(c map[string]any) { c["counts"].(map[string]any)["create"] = -1 }),
		"duplicate key":  []byte(strings.Replace(string(good), `"status": "converged"`, `"status": "invalid", "status": "converged"`, 1)),
		"case variant":   []byte(strings.Replace(string(good), `"status"`, `"Status"`, 1)),
		"invalid UTF-8":  []byte(strings.Replace(string(good), `"v1.2.3"`, "\"v1.2.3\xff\"", 1)),
	}
	for name, b := range bad {
		_, err := Parse(b)
		assert.Error(t, err, name)
	}
}

func TestWriteFileAtomic0600(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	require.NoError(t, WriteFile(p, sample()))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	b, _ := os.ReadFile(p)
	_, err = Parse(b)
	require.NoError(t, err)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left behind")
}

func TestWriteFileFailureIsTypedAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	// Target is a directory: refused before anything is created.
	target := filepath.Join(dir, "r")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755))
	err := WriteFile(target, sample())
	var we *wirefile.WriteError
	require.True(t, errors.As(err, &we))
	assert.Equal(t, "target", we.Step)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "temporary file removed")

	err = WriteFile(filepath.Join(dir, "missing-dir", "r.json"), sample())
	require.True(t, errors.As(err, &we))
	assert.Equal(t, "create", we.Step)
	assert.NotContains(t, err.Error(), "missing-dir", "path not in message")

	if runtime.GOOS != "windows" && os.Geteuid() != 0 {
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o500))
		assert.Error(t, WriteFile(filepath.Join(ro, "r.json"), sample()))
	}
}

func TestWriteFileRejectsInvalidReport(t *testing.T) {
	r := sample()
	r.Status = "bogus"
	err := WriteFile(filepath.Join(t.TempDir(), "r.json"), r)
	var we *wirefile.WriteError
	require.True(t, errors.As(err, &we))
	assert.Equal(t, "validate", we.Step)
}

// TestScopes_AdditiveKeyOfV1: a report with scopes writes them after
// duration_ms with exactly the keys name, region, status, verification and
// counts (report counts: an adoption is update), and reads back equal; a
// report without scopes (an older version's, or a run stopped before its
// configuration was resolved) has no scopes key and still parses.
func TestScopes_AdditiveKeyOfV1(t *testing.T) {
	r := sample()
	r.Scopes = []Scope{
		NewScope("prod", "eu-west-1", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2, Adopt: 1}),
		NewScope("staging", "not a region", vocab.StatusConflict, vocab.VerificationNotRun, vocab.Counts{Conflicts: 1, Unchanged: 4}),
	}
	b, err := Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `  "duration_ms": 1234,
  "scopes": [
    {
      "name": "prod",
      "region": "eu-west-1",
      "status": "converged",
      "verification": "converged",
      "counts": {
        "create": 2,
        "update": 1,
        "restore": 0,
        "schedule_delete": 0,
        "unchanged": 0,
        "conflicts": 0
      }
    },
    {
      "name": "staging",
      "region": "",`)
	got, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, r, got)

	old, err := Marshal(sample())
	require.NoError(t, err)
	assert.NotContains(t, string(old), "scopes")
	_, err = Parse(old)
	require.NoError(t, err)
}

// TestScopes_ParseRejectsBrokenScopes: every value rule of a scope line.
func TestScopes_ParseRejectsBrokenScopes(t *testing.T) {
	r := sample()
	r.Scopes = []Scope{NewScope("prod", "eu-west-1", vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 1})}
	good, err := Marshal(r)
	require.NoError(t, err)
	_, err = Parse(good)
	require.NoError(t, err)
	mutate := func(f func(map[string]any)) []byte {
		var c map[string]any
		require.NoError(t, json.Unmarshal(good, &c))
		f(c["scopes"].([]any)[0].(map[string]any))
		b, _ := json.Marshal(c)
		return b
	}
	bad := map[string][]byte{
		"bad name":       mutate(func(s map[string]any) { s["name"] = "Prod" }),
		"empty name":     mutate(func(s map[string]any) { s["name"] = "" }),
		"bad region":     mutate(func(s map[string]any) { s["region"] = "mars-1" }),
		"bad status":     mutate(func(s map[string]any) { s["status"] = "ok" }),
		"bad verif":      mutate(func(s map[string]any) { s["verification"] = "yes" }),
		"negative count": mutate(func(s map[string]any) { s["counts"].(map[string]any)["update"] = -1 }),
		"adopt count":    mutate(func(s map[string]any) { s["counts"].(map[string]any)["adopt"] = 1 }),
		"extra key":      mutate(func(s map[string]any) { s["secret"] = "x" }),
		"missing key":    mutate(func(s map[string]any) { delete(s, "region") }),
		"missing counts": mutate(func(s map[string]any) { delete(s, "counts") }),
		"empty scopes":   emptyScopes(t, good),
		"null scope":     []byte(strings.Replace(string(good), `"scopes": [`, `"scopes": [null,`, 1)),
		"twice":          []byte(strings.Replace(string(good), `"scopes": [`, `"scopes": [{"name":"prod","region":"","status":"converged","verification":"converged","counts":{"create":0,"update":0,"restore":0,"schedule_delete":0,"unchanged":0,"conflicts":0}},`, 1)),
	}
	for name, b := range bad {
		_, err := Parse(b)
		assert.Error(t, err, name)
	}
}

func emptyScopes(t *testing.T, good []byte) []byte {
	var c map[string]any
	require.NoError(t, json.Unmarshal(good, &c))
	c["scopes"] = []any{}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	return b
}
