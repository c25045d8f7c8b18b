package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestEveryKindHasARow: each Kind has its row in the table kinds — a type
// name, a YAML type sentence and a config-file reader — so a kind added
// without one fails here, not at a user's first config file; and each
// row's reader refuses a node of the wrong shape (a mapping for a scalar
// kind, a scalar for a collection kind).
func TestEveryKindHasARow(t *testing.T) {
	names := map[string]Kind{}
	for k := KindString; k < kindEnd; k++ {
		row := kinds[k]
		require.True(t, row.typeName != "" && row.yamlType != "" && row.fromYAML != nil, "kind %d has no complete row in kinds", k)
		other, dup := names[row.typeName]
		assert.False(t, dup, "kinds %d and %d share the type name %q", other, k, row.typeName)
		names[row.typeName] = k
		assert.Equal(t, k == KindString || k == KindCommaList, row.parse == nil, "kind %s: only a string (or a comma list, parsed by its setting) is handed to bind as its raw text", row.typeName)
		wrong := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		if row.typeName == "tags" {
			wrong = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "team=payments"}
		}
		_, ok := row.fromYAML(wrong)
		assert.False(t, ok, "kind %s accepts a config-file node of the wrong shape", row.typeName)
	}
	for k := KindString; k < kindEnd; k++ {
		assert.Equal(t, k == KindTags || k == KindList, k.Repeatable(), "only the tags and names kinds are given once per item")
	}
}
