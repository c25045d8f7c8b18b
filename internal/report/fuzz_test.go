package report

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// FuzzParse: the strict report parser never panics, and whatever it accepts
// re-encodes to a report it accepts again with the same content.
func FuzzParse(f *testing.F) {
	good, _ := Marshal(sample())
	f.Add(good)
	withScopes := sample()
	withScopes.Scopes = []Scope{NewScope("prod", "eu-west-1", "converged", "converged", vocab.Counts{Update: 1})}
	scoped, _ := Marshal(withScopes)
	f.Add(scoped)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema_version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		b, err := Marshal(r)
		require.NoError(t, err)
		r2, err := Parse(b)
		require.NoError(t, err, "round trip")
		require.Equal(t, r, r2, "round trip changed the report")
	})
}
