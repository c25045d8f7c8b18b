package wirefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegression_ReadOfAFIFOReturnsAtOnce: a FIFO with no writer is
// refused as not a regular file instead of blocking in open (before, show
// of a FIFO hung, and its signal handling swallowed the first SIGINT).
func TestRegression_ReadOfAFIFOReturnsAtOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	mkfifo(t, p)
	_, err := testFile.Read(p)
	assert.ErrorIs(t, err, ErrNotRegular)
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, []byte("abc"), 0o600))
	b, err := testFile.Read(p)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(b))

	require.NoError(t, os.Symlink("f", filepath.Join(dir, "l")))
	b, err = testFile.Read(filepath.Join(dir, "l"))
	require.NoError(t, err, "a link to a regular file is read")
	assert.Equal(t, "abc", string(b))

	_, err = testFile.Read(dir)
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = testFile.Read("/dev/null")
	assert.ErrorIs(t, err, ErrNotRegular)
	_, err = testFile.Read(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, ErrOpen)
	assert.NotContains(t, err.Error(), dir)

	exact := filepath.Join(dir, "exact")
	require.NoError(t, os.WriteFile(exact, []byte(strings.Repeat("x", 1024)), 0o600))
	b, err = testFile.Read(exact)
	require.NoError(t, err, "a file of exactly MaxBytes is read")
	assert.Len(t, b, 1024)

	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat("x", 1025)), 0o600))
	_, err = testFile.Read(big)
	assert.ErrorIs(t, err, ErrTooLarge)
}
