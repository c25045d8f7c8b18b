package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// TestAdoptForms: adopt is the same list from a repeated flag (joined by
// newlines, as the command line reader records it), an environment
// variable (commas or newlines) and a YAML sequence; adopt-require-match
// is a bool.
func TestAdoptForms(t *testing.T) {
	base := map[string]string{RepositoryID: "o/r", SecretPrefix: "p"}
	want := []string{"p/a", "p/b"}
	flags := map[string]string{Adopt: "p/a\np/b", AdoptRequireMatch: "true"}
	for k, v := range base {
		flags[k] = v
	}
	o, err := Resolve(Input{Command: "plan", Flags: flags})
	require.NoError(t, err)
	assert.Equal(t, want, o.Engine.Adopt)
	assert.True(t, o.Engine.AdoptRequireMatch)

	o, err = Resolve(Input{Command: "plan", Flags: base, Environ: []string{EnvName(Adopt) + "=p/a, p/b\n"}})
	require.NoError(t, err)
	assert.Equal(t, want, o.Engine.Adopt)
	assert.False(t, o.Engine.AdoptRequireMatch)

	o, err = Resolve(withFile("sync", "repository-id: o/r\nsecret-prefix: p\nadopt: [p/a, p/b]\nadopt-require-match: true\n", nil))
	require.NoError(t, err)
	assert.Equal(t, want, o.Engine.Adopt)
	assert.Equal(t, want, o.Scopes[0].Engine.Adopt, "the one scope default carries it")
}

// TestAdoptRules: an entry that is no valid secret name, a name listed
// twice, an empty list and a YAML mapping are refused before anything is
// read; the value is never echoed.
func TestAdoptRules(t *testing.T) {
	for name, body := range map[string]string{
		"invalid name":     "adopt: [\"p/has space\"]\n",
		"twice":            "adopt: [p/a, p/a]\n",
		"empty":            "adopt: []\n",
		"mapping":          "adopt: {p/a: x}\n",
		"number":           "adopt: [42]\n",
		"comma in a name":  "adopt: [\"p/a,p/b\"]\n",
		"bool for require": "adopt-require-match: yes-please\n",
	} {
		_, err := Resolve(withFile("sync", "repository-id: o/r\nsecret-prefix: p\n"+body, nil))
		var ds diag.Diagnostics
		require.ErrorAs(t, err, &ds, name)
		for _, d := range ds {
			assert.NotContains(t, d.Error(), "has space", name)
		}
	}
}

// TestAdoptIsPerScope: each scope entry has its own adopt list and
// adopt-require-match; a scope without them takes the top-level values.
func TestAdoptIsPerScope(t *testing.T) {
	body := `repository-id: acme/payments
adopt-require-match: true
scopes:
  - name: prod
    secret-prefix: prod/payments
    adopt: [prod/payments/db]
  - name: staging
    secret-prefix: staging/payments
    adopt: [staging/payments/db, staging/payments/api]
    adopt-require-match: false
  - name: dev
    secret-prefix: dev/payments
`
	o, err := Resolve(withFile("sync", body, nil))
	require.NoError(t, err)
	require.Len(t, o.Scopes, 3)
	assert.Equal(t, []string{"prod/payments/db"}, o.Scopes[0].Engine.Adopt)
	assert.True(t, o.Scopes[0].Engine.AdoptRequireMatch)
	assert.Equal(t, []string{"staging/payments/db", "staging/payments/api"}, o.Scopes[1].Engine.Adopt)
	assert.False(t, o.Scopes[1].Engine.AdoptRequireMatch)
	assert.Empty(t, o.Scopes[2].Engine.Adopt)
	assert.True(t, o.Scopes[2].Engine.AdoptRequireMatch)
}

// FuzzParseList: the parser of a KindList raw value (the adopt names from
// a repeated flag, a variable or a YAML sequence) never panics and yields
// only non-empty names without a separator (newline, carriage return,
// comma) or surrounding space; and every yielded name is in the input.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"", "p/a", "p/a\np/b", "p/a, p/b,\n\r\n", ",,,", " \n ", "a\r\nb", "p/a,p/a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, n := range ParseList(raw) {
			if n == "" || strings.ContainsAny(n, "\n\r,") || strings.TrimSpace(n) != n || !strings.Contains(raw, n) {
				require.Failf(t, "ParseList yielded a name it must not", "ParseList(%q) yielded %q", raw, n)
			}
		}
	})
}
