package main

import (
	"bytes"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gowebpki/jcs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/bench/harness"
)

// TestImportBound: B = max(obs, enc) + obs, with obs the model's
// observation of N names and enc = N · c / P; at 1,000 secrets, 20 ms per
// call and the default concurrency of 28, obs = ⌈(1,000 + 50 + 10)/28⌉ ·
// 20 ms = 0.76 s, and with 0.1 s per encryption on 2 CPUs enc = 50 s.
func TestImportBound(t *testing.T) {
	m := harness.Model{Latency: 20 * time.Millisecond}
	b := importBound(m, 1000, 28, 100*time.Millisecond, 2)
	assert.Equal(t, 760*time.Millisecond, b.Obs)
	assert.Equal(t, 50*time.Second, b.Enc)
	assert.Equal(t, 50*time.Second+760*time.Millisecond, b.B)

	// Reads dominate when encryption is free; no CPU count is one.
	b = importBound(m, 1000, 28, 0, 0)
	assert.Equal(t, 2*760*time.Millisecond, b.B)
	assert.Equal(t, 1, b.Cores)
}

// TestImportEstate: the kinds in turn; the JSON values are canonical (a
// .sops.json), the texts clean UTF-8 (a .sops.txt), the binary values
// not UTF-8 (a .sops.bin); names distinct; the same estate every time.
func TestImportEstate(t *testing.T) {
	es, err := importEstate(9, 512)
	require.NoError(t, err)
	again, err := importEstate(9, 512)
	require.NoError(t, err)
	assert.Equal(t, es, again)
	names := map[string]bool{}
	for i, s := range es {
		assert.Equal(t, i%3, s.kind)
		names[s.rel] = true
		switch s.kind {
		case 0:
			c, err := jcs.Transform(s.value)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(c, s.value), "canonical JSON")
		case 1:
			assert.True(t, utf8.Valid(s.value))
		case 2:
			assert.False(t, utf8.Valid(s.value))
		}
		assert.InDelta(t, 512, len(s.value), 100)
	}
	assert.Len(t, names, 9)
}

// TestParseFlags_ImportRunsAlone: -only import runs nothing else and
// writes its own block; with another group it is refused.
func TestParseFlags_ImportRunsAlone(t *testing.T) {
	o, err := parseFlags([]string{"-root", "../../..", "-only", "import", "-out", "docs/benchmarks.md"})
	require.NoError(t, err)
	assert.Equal(t, "bench-import", o.section)
	for _, g := range rowGroups {
		assert.Equal(t, g == "import", o.runs(g), g)
	}
	_, err = parseFlags([]string{"-root", "../../..", "-only", "import,ps"})
	assert.ErrorContains(t, err, "runs alone")
	o, err = parseFlags([]string{"-root", "../../.."})
	require.NoError(t, err)
	assert.False(t, o.runs("import"), "not run by default")
}
