package command

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
)

// TestSourceRoots_Validate: the source-roots file's value rules, each
// broken once.
func TestSourceRoots_Validate(t *testing.T) {
	good := func() SourceRoots {
		return NewSourceRoots([]config.Scope{
			{Name: "one", Desired: config.Desired{SourceRoot: "secrets"}},
			{Name: "two", Desired: config.Desired{SourceRoot: "."}},
		})
	}
	assert.NoError(t, good().Validate())
	assert.Equal(t, []SourceRootScope{{"one", "secrets"}, {"two", "."}}, good().Scopes)
	for name, breakIt := range map[string]func(*SourceRoots){
		"another schema":   func(s *SourceRoots) { s.SchemaVersion = "sops-aws-sync/source-roots/v2" },
		"no scope":         func(s *SourceRoots) { s.Scopes = nil },
		"a name twice":     func(s *SourceRoots) { s.Scopes[1].Name = "one" },
		"a bad name":       func(s *SourceRoots) { s.Scopes[0].Name = "One" },
		"an unclean root":  func(s *SourceRoots) { s.Scopes[0].SourceRoot = "./secrets" },
		"an escaping root": func(s *SourceRoots) { s.Scopes[0].SourceRoot = "../secrets" },
		"an absolute root": func(s *SourceRoots) { s.Scopes[0].SourceRoot = "/secrets" },
		"an empty root":    func(s *SourceRoots) { s.Scopes[0].SourceRoot = "" },
	} {
		s := good()
		breakIt(&s)
		assert.Error(t, s.Validate(), name)
	}
}
