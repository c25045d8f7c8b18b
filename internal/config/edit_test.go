package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

func TestAddEntries_ListedScopeKeepsCommentsAndOrder(t *testing.T) {
	raw := `# the estate
repository-id: acme/infra # who
scopes:
  - name: prod
    secret-prefix: prod/app
    # hand-made secrets
    adopt:
      - prod/app/old # kept
  - name: dev
    secret-prefix: dev/app
`
	out, err := AddEntries([]byte(raw), "prod", true, []string{"prod/app/old"}, []string{"prod/app/old", "prod/app/db", "prod/app/api"},
		nil, []model.AWSOwned{{Secret: "db", Keys: []string{"/password"}}}, true)
	require.NoError(t, err)
	assert.Equal(t, `# the estate
repository-id: acme/infra # who
scopes:
  - name: prod
    secret-prefix: prod/app
    # hand-made secrets
    adopt:
      - prod/app/old # kept
      - prod/app/db
      - prod/app/api
    aws-owned:
      - secret: db
        keys: [/password]
    adopt-require-match: true
  - name: dev
    secret-prefix: dev/app
`, string(out))
}

func TestAddEntries_TopLevelInheritsTheResolvedList(t *testing.T) {
	out, err := AddEntries([]byte("secret-prefix: p\n"), "default", false, []string{"p/flag"}, []string{"p/a"},
		[]model.AWSOwned{{Secret: "x", Keys: []string{""}}}, []model.AWSOwned{{Secret: "y", Keys: []string{"/k"}, Generate: 32}}, false)
	require.NoError(t, err)
	assert.Equal(t, "secret-prefix: p\nadopt:\n  - p/flag\n  - p/a\naws-owned:\n  - secret: x\n    keys: [\"\"]\n  - secret: y\n    keys: [/k]\n    generate: 32\n", string(out))
}

// TestAddEntries_RequireMatchOverridesAFalseAndKeepsItsComment: an
// adopt-require-match the scope sets to false becomes true, its comment
// kept; one already true stays as it is.
func TestAddEntries_RequireMatchOverridesAFalseAndKeepsItsComment(t *testing.T) {
	out, err := AddEntries([]byte("adopt-require-match: false # for now\nsecret-prefix: p\n"), "default", false, nil, []string{"p/a"}, nil, nil, true)
	require.NoError(t, err)
	assert.Equal(t, "adopt-require-match: true # for now\nsecret-prefix: p\nadopt:\n  - p/a\n", string(out))
	out, err = AddEntries([]byte("adopt-require-match: true\n"), "default", false, nil, []string{"p/a"}, nil, nil, true)
	require.NoError(t, err)
	assert.Equal(t, "adopt-require-match: true\nadopt:\n  - p/a\n", string(out))
}

func TestAddEntries_Refused(t *testing.T) {
	for name, raw := range map[string]string{
		"not a mapping":    "- a\n",
		"no such scope":    "scopes:\n  - name: other\n",
		"adopt not a seq":  "adopt: x\n",
		"not yaml":         ":\n  - [",
		"match not a bool": "adopt-require-match: [x]\n",
	} {
		_, err := AddEntries([]byte(raw), "prod", name == "no such scope", nil, []string{"n"}, nil, nil, true)
		assert.ErrorIs(t, err, ErrEdit, name)
	}
}

// FuzzAddEntries: whatever the file, an edit either fails with ErrEdit
// or gives YAML that parses and holds the added name.
func FuzzAddEntries(f *testing.F) {
	f.Add([]byte("adopt:\n  - a # c\n"), false)
	f.Add([]byte("scopes:\n  - name: s\n"), true)
	f.Fuzz(func(t *testing.T, raw []byte, listed bool) {
		out, err := AddEntries(raw, "s", listed, nil, []string{"added/name"}, nil, nil, true)
		if err != nil {
			return
		}
		var v any
		require.NoError(t, yaml.Unmarshal(out, &v))
		assert.Contains(t, string(out), "added/name")
		assert.Contains(t, string(out), "adopt-require-match: true")
	})
}
