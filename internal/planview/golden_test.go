package planview

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run go test ./internal/planview -update to create %s", p)
	require.Equal(t, string(want), got, "%s changed; review the diff, then run with -update", p)
}

// TestGoldenRenderings pins the plan file, the text and the Markdown of
// every fixture, names shown and hidden (issue 13: golden files for both
// formats).
func TestGoldenRenderings(t *testing.T) {
	for name, in := range fixtures(t) {
		for _, shown := range []bool{false, true} {
			suffix := map[bool]string{false: "hidden", true: "names"}[shown]
			v := Build(in, model.Redaction{ShowNames: shown})
			file, err := Marshal(v)
			require.NoError(t, err)
			golden(t, name+"-"+suffix+".json", string(file))
			golden(t, name+"-"+suffix+".txt", Text(v))
			golden(t, name+"-"+suffix+".md", Markdown(v))

			back, err := Parse(file)
			require.NoError(t, err)
			require.Equal(t, v, back, "the plan file reads back as the view it was written from")
			require.Equal(t, Text(v), Text(back), "show renders a saved plan file exactly as the run did")
		}
	}
}
