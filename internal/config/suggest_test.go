package config

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// TestUnknownKeySuggestsNearestSetting: an unknown config key (top level or
// in a scope entry) or SOPS_AWS_SYNC_* variable near a setting's name says
// which one was meant; one far from every name gets no guess. Before, the
// reason was only "is not a sops-aws-sync setting".
func TestUnknownKeySuggestsNearestSetting(t *testing.T) {
	summaries := func(t *testing.T, in Input) []string {
		t.Helper()
		_, err := Resolve(in)
		var ds diag.Diagnostics
		require.True(t, errors.As(err, &ds), "%v", err)
		var out []string
		for _, d := range ds {
			out = append(out, d.Line())
		}
		return out
	}
	file := func(body string) Input {
		return Input{Command: "plan", Flags: map[string]string{ConfigFile: "c.yaml"},
			ReadFile: func(string) ([]byte, error) { return []byte(body), nil }}
	}
	lines := summaries(t, file("repository-id: o/r\nsecret-prefix: p\nreplica-region: eu-west-1\nzzzzzz: 1\n"))
	assert.Contains(t, lines, "sops-aws-sync: config file key replica-region: is not a sops-aws-sync setting; did you mean replica-regions? (config:unknown-key)")
	assert.Contains(t, lines, "sops-aws-sync: config file key zzzzzz: is not a sops-aws-sync setting (config:unknown-key)")

	lines = summaries(t, file("repository-id: o/r\nscopes:\n  - name: prod\n    secret-prefx: p\n"))
	assert.Contains(t, lines, "sops-aws-sync: config file key scopes.prod.secret-prefx: is not a sops-aws-sync setting; did you mean secret-prefix? (config:unknown-key)")

	in := Input{Command: "plan", Flags: map[string]string{RepositoryID: "o/r", SecretPrefix: "p"}, Environ: []string{"SOPS_AWS_SYNC_ALLOW_EMPTI=true"}}
	assert.Contains(t, summaries(t, in), "sops-aws-sync: environment variable SOPS_AWS_SYNC_ALLOW_EMPTI: is not a sops-aws-sync setting; did you mean SOPS_AWS_SYNC_ALLOW_EMPTY? (config:unknown-env)")
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"replica-region", "replica-regions", 1}, {"tag", "tags", 1}} {
		assert.Equal(t, c.d, editDistance(c.a, c.b), "%q %q", c.a, c.b)
		assert.Equal(t, c.d, editDistance(c.b, c.a), "%q %q", c.b, c.a)
	}
}
