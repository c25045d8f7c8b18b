package harness

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun_ExitCodeAndOutput(t *testing.T) {
	m, err := Run(context.Background(), Invocation{Bin: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}, Env: []string{"PATH=/usr/bin:/bin"}})
	require.NoError(t, err)
	assert.Equal(t, 3, m.ExitCode)
	assert.Equal(t, "out\n", string(m.Stdout))
	assert.Equal(t, "err\n", string(m.Stderr))
	assert.Positive(t, m.Wall)

	_, err = Run(context.Background(), Invocation{Bin: "/nonexistent/binary"})
	assert.Error(t, err, "a binary that cannot start is an error, not an exit code")
}

// Regression (measurement contamination): ru_maxrss of a child started by
// Go reports the parent's peak RSS; the harness must report the child's.
func TestRun_PeakRSSIsTheChildsNotTheParents(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is measured on Linux only")
	}
	ballast := make([]byte, 256<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	// The child lives long enough (a workload, not a synchronisation) to be
	// sampled a few times.
	m, err := Run(context.Background(), Invocation{Bin: "/bin/sleep", Args: []string{"0.2"}})
	require.NoError(t, err)
	runtime.KeepAlive(ballast)
	assert.Equal(t, 0, m.ExitCode)
	assert.Positive(t, m.MaxRSSKiB)
	assert.Less(t, m.MaxRSSKiB, int64(64<<10), "a sleeping child is far below the parent's 256 MiB")
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
