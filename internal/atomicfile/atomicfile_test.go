package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplaces0600AndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	require.NoError(t, Write(p, []byte("new"), ".x-*.tmp"))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	b, _ := os.ReadFile(p)
	assert.Equal(t, "new", string(b))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1)
}

func TestWriteFailureNamesTheStepNotThePath(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "d")
	require.NoError(t, os.MkdirAll(filepath.Join(target, "x"), 0o755))
	var e *Error
	require.True(t, errors.As(Write(target, []byte("x"), ".x-*.tmp"), &e))
	assert.Equal(t, "rename", e.Step)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "temporary file removed")

	err := Write(filepath.Join(dir, "missing-dir", "f"), []byte("x"), ".x-*.tmp")
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "create", e.Step)
	assert.NotContains(t, err.Error(), "missing-dir")
}
