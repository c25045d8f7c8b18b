package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestAWSOwnedForms: aws-owned from a YAML sequence of mappings (top level
// and per scope) and from one JSON array in a flag or variable.
func TestAWSOwnedForms(t *testing.T) {
	want := []model.AWSOwned{{Secret: "db/*", Keys: []string{"/password"}, Generate: 32}, {Secret: "seed", Keys: []string{""}}}
	o, err := Resolve(withFile("sync", "repository-id: o/r\nsecret-prefix: p\naws-owned:\n  - secret: db/*\n    keys: [/password]\n    generate: 32\n  - {secret: seed, keys: [\"\"]}\n", nil))
	require.NoError(t, err)
	assert.Equal(t, want, o.Scopes[0].Engine.AWSOwned)

	js := `[{"secret":"db/*","keys":["/password"],"generate":32},{"secret":"seed","keys":[""]}]`
	o, err = Resolve(Input{Command: "plan", Flags: map[string]string{RepositoryID: "o/r", SecretPrefix: "p", AWSOwned: js}})
	require.NoError(t, err)
	assert.Equal(t, want, o.Engine.AWSOwned)
	o, err = Resolve(Input{Command: "plan", Flags: map[string]string{RepositoryID: "o/r", SecretPrefix: "p"}, Environ: []string{EnvName(AWSOwned) + "=" + js}})
	require.NoError(t, err)
	assert.Equal(t, want, o.Engine.AWSOwned)

	o, err = Resolve(withFile("sync", "repository-id: o/r\naws-owned: [{secret: a, keys: [/k]}]\nscopes:\n  - name: one\n    secret-prefix: p\n  - name: two\n    secret-prefix: q\n    aws-owned: [{secret: b, keys: [/x, /y]}]\n", nil))
	require.NoError(t, err)
	assert.Equal(t, []model.AWSOwned{{Secret: "a", Keys: []string{"/k"}}}, o.Scopes[0].Engine.AWSOwned, "the top level is every scope's default")
	assert.Equal(t, []model.AWSOwned{{Secret: "b", Keys: []string{"/x", "/y"}}}, o.Scopes[1].Engine.AWSOwned)
}

// TestAWSOwnedRules: every entry that breaks a rule needing no document is
// refused by Resolve (exit 3, before anything is read); values are never
// echoed.
func TestAWSOwnedRules(t *testing.T) {
	for name, body := range map[string]string{
		"bad pointer":           "aws-owned: [{secret: db, keys: [password]}]\n",
		"bad escape":            "aws-owned: [{secret: db, keys: [\"/a~2\"]}]\n",
		"whole beside others":   "aws-owned: [{secret: db, keys: [\"\", /p]}]\n",
		"key twice":             "aws-owned: [{secret: db, keys: [/p, /p]}]\n",
		"no keys":               "aws-owned: [{secret: db}]\n",
		"empty keys":            "aws-owned: [{secret: db, keys: []}]\n",
		"generate whole":        "aws-owned: [{secret: db, keys: [\"\"], generate: 32}]\n",
		"generate short":        "aws-owned: [{secret: db, keys: [/p], generate: 8}]\n",
		"generate zero":         "aws-owned: [{secret: db, keys: [/p], generate: 0}]\n",
		"generate string":       "aws-owned: [{secret: db, keys: [/p], generate: \"32\"}]\n",
		"leading slash":         "aws-owned: [{secret: /db, keys: [/p]}]\n",
		"dot-dot":               "aws-owned: [{secret: a/../db, keys: [/p]}]\n",
		"bad character":         "aws-owned: [{secret: \"db has space\", keys: [/p]}]\n",
		"unknown member":        "aws-owned: [{secret: db, keys: [/p], rotate: true}]\n",
		"pattern twice":         "aws-owned: [{secret: db, keys: [/p]}, {secret: db, keys: [/q]}]\n",
		"not a list":            "aws-owned: {secret: db, keys: [/p]}\n",
		"empty list":            "aws-owned: []\n",
		"number as key pointer": "aws-owned: [{secret: db, keys: [42]}]\n",
	} {
		_, err := Resolve(withFile("sync", "repository-id: o/r\nsecret-prefix: p\n"+body, nil))
		var ds diag.Diagnostics
		require.ErrorAs(t, err, &ds, name)
		for _, d := range ds {
			assert.NotContains(t, d.Error(), "has space", name)
		}
	}
	_, err := Resolve(Input{Command: "plan", Flags: map[string]string{RepositoryID: "o/r", SecretPrefix: "p", AWSOwned: `{"secret":"db"}`}})
	require.Error(t, err, "a JSON object instead of an array")
}

func FuzzParseAWSOwned(f *testing.F) {
	for _, s := range []string{`[{"secret":"db/*","keys":["/password"],"generate":32}]`, `[]`, `[{"secret":"a","keys":[""]}]`, `{}`, `[{"keys":null}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		l, reason := ParseAWSOwned(v)
		if reason != "" {
			require.Nil(t, l)
			return
		}
		require.NotEmpty(t, l)
		for _, e := range l {
			require.NotNil(t, e.Keys)
		}
	})
}
