package root

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pacer keeps Go's default until the live heap passes half of
// pacedHeap, then aims the next collection at pacedHeap, never below
// minGCPercent.
func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{40 << 20, 100},           // a no-op of 10,000 secrets
		{pacedHeap / 2, 100},      // the boundary
		{pacedHeap/2 + 1<<20, 98}, // just past it
		{160 << 20, 60},           // (256 − 160) / 160
		{200 << 20, 50},           // would be 28: the floor
		{pacedHeap, minGCPercent}, // at the aim
		{1 << 40, minGCPercent},   // far past it: never below the floor
	} {
		assert.Equal(t, tc.want, gcPercentFor(tc.live), "live %d MiB", tc.live>>20)
	}
}

// A user's GOGC or GOMEMLIMIT wins: the pacer is not started.
func TestUserPacesGC(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	assert.False(t, userPacesGC(env(nil)), "no GOGC or GOMEMLIMIT, yet the user paces")
	for _, kv := range []map[string]string{{"GOGC": "off"}, {"GOGC": "200"}, {"GOMEMLIMIT": "1GiB"}} {
		assert.True(t, userPacesGC(env(kv)), "%v: the pacer would override the user's setting", kv)
	}
}

// The pacer runs after every collection, not only the first.
func TestPacerRunsAfterEveryCollection(t *testing.T) {
	startPacer()
	before := paced.Load()
	for i := 0; i < 1000 && paced.Load() < before+3; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	require.GreaterOrEqual(t, paced.Load()-before, int64(3), "the pacer ran too few times in up to 1,000 collections")
}
