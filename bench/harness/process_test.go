package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun_ExitCodeOutputAndPeakRSS(t *testing.T) {
	m, err := Run(context.Background(), Invocation{Bin: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}, Env: []string{"PATH=/usr/bin:/bin"}})
	require.NoError(t, err)
	assert.Equal(t, 3, m.ExitCode)
	assert.Equal(t, "out\n", string(m.Stdout))
	assert.Equal(t, "err\n", string(m.Stderr))
	assert.Positive(t, m.Wall)
	assert.Positive(t, m.MaxRSSKiB, "ru_maxrss of the child")

	_, err = Run(context.Background(), Invocation{Bin: "/nonexistent/binary"})
	assert.Error(t, err, "a binary that cannot start is an error, not an exit code")
}

func TestLogDurations_SumsPerPhaseAndMessage(t *testing.T) {
	logs := []byte(`{"level":"INFO","msg":"plan built","phase":"plan","duration_ms":12}
not json
{"msg":"phase applied","phase":"apply","operation":"create","duration_ms":5}
{"msg":"phase applied","phase":"apply","operation":"update","duration_ms":7}
{"msg":"operation applied","phase":"apply"}
`)
	assert.Equal(t, map[string]int64{"plan/plan built": 12, "apply/phase applied": 12}, LogDurations(logs))
}
