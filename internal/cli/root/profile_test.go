package root

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The profiling hook writes a CPU and a heap profile in pprof format when
// the environment names the files, and nothing otherwise.
func TestStartProfiles_WritesBothProfilesWhenAsked(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{cpuProfileEnv: filepath.Join(dir, "cpu.prof"), memProfileEnv: filepath.Join(dir, "mem.prof")}
	stop := startProfiles(func(k string) string { return env[k] })
	work := make([][]byte, 0, 64)
	for range 64 {
		work = append(work, make([]byte, 4096))
	}
	_ = work
	stop()
	for _, name := range []string{"cpu.prof", "mem.prof"} {
		f, err := os.Open(filepath.Join(dir, name))
		require.NoError(t, err, name)
		// pprof's format: a gzip-compressed protocol buffer.
		z, err := gzip.NewReader(f)
		require.NoError(t, err, "%s is gzip-compressed", name)
		body, err := io.ReadAll(z)
		require.NoError(t, err, name)
		require.NoError(t, f.Close())
		assert.NotEmpty(t, body, name)
	}
}

func TestStartProfiles_OffByDefault(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	stop := startProfiles(func(string) string { return "" })
	stop()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file is written without the variables")
}

// A file that cannot be created leaves the run as it is.
func TestStartProfiles_UncreatableFileIsIgnored(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "x.prof")
	stop := startProfiles(func(string) string { return missing })
	assert.NotPanics(t, stop)
	_, err := os.Stat(missing)
	assert.True(t, os.IsNotExist(err))
}

// A collection that finds more live heap than any before writes the peak
// heap profile; one that finds less leaves it.
func TestPeakWatch_WritesAtANewMaximumOnly(t *testing.T) {
	peakMu.Lock()
	peakLive = 0
	peakMu.Unlock()
	path := filepath.Join(t.TempDir(), "mem.prof.peak")
	onPeakCollection(&peakWatch{path: path})
	st, err := os.Stat(path)
	require.NoError(t, err, "the first collection is the largest so far")
	assert.Positive(t, st.Size())

	require.NoError(t, os.Remove(path))
	peakMu.Lock()
	peakLive = 1 << 62 // more than any heap here
	peakMu.Unlock()
	onPeakCollection(&peakWatch{path: path})
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "a smaller live heap writes nothing")
}
