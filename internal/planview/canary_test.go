package planview

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// outputs returns every rendering of v: the plan file, the text, the
// Markdown and the capped Markdown.
func outputs(t *testing.T, v View) map[string]string {
	t.Helper()
	file, err := Marshal(v)
	require.NoError(t, err)
	return map[string]string{
		"plan file": string(file), "text": Text(v), "markdown": Markdown(v),
		"capped markdown": MarkdownCapped(v, 2048),
	}
}

// TestCanaryNothingSecretReachesAnyOutput: plaintext values, ciphertext
// fragments and out-of-band key names placed in the inputs never appear in
// the plan file, the text or the Markdown, names shown or hidden; with
// names hidden, neither do secret names nor desired key names (issue 13).
func TestCanaryNothingSecretReachesAnyOutput(t *testing.T) {
	for name, in := range fixtures(t) {
		for _, shown := range []bool{false, true} {
			v := Build(in, model.Redaction{ShowNames: shown})
			forbidden := append([]string{}, canaries...)
			if !shown {
				forbidden = append(forbidden, "prod/app/", "dk_")
			}
			for what, out := range outputs(t, v) {
				for _, c := range forbidden {
					require.NotContains(t, out, c, "%s (%s, names shown %v) leaks %q", what, name, shown, c)
				}
			}
		}
	}
	// The fixtures do carry what the canary looks for: the test would
	// fail if the redaction broke.
	full := fixtures(t)["full"]
	var all strings.Builder
	for _, o := range ops(full) {
		if o.Keys != nil {
			for _, l := range [][]string{ptrsOf(o.Keys.Added), ptrsOf(o.Keys.Removed), ptrsOf(o.Keys.Changed)} {
				all.WriteString(strings.Join(l, " "))
			}
		}
	}
	require.Contains(t, all.String(), "OOB_", "the input has out-of-band keys")
	require.Contains(t, Text(Build(full, model.Redaction{ShowNames: true})), "dk_", "names shown do show desired key paths")
}
