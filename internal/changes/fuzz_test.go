package changes

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// FuzzParse: the strict changes-file parser never panics, and whatever it
// accepts re-encodes to a file it accepts again with the same content.
func FuzzParse(f *testing.F) {
	good, _ := wirefile.Marshal(sample())
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"schema_version":"sops-aws-sync/changes/v1","tool_version":"","git_revision":"","status":"converged","changes":[],"scopes":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			return
		}
		b, err := wirefile.Marshal(c)
		require.NoError(t, err)
		c2, err := Parse(b)
		require.NoError(t, err, "round trip")
		require.Equal(t, c, c2, "round trip changed the file")
	})
}
