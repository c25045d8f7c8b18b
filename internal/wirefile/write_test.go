package wirefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testFile = File{Temp: ".x-*.tmp", MaxBytes: 1 << 10}

func TestWriteReplaces0600AndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	require.NoError(t, testFile.Write(p, []byte("new")))
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
	err := testFile.Write(filepath.Join(dir, "missing-dir", "f"), []byte("x"))
	var e *WriteError
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "create", e.Step)
	assert.NotContains(t, err.Error(), "missing-dir")
}

// TestFailedWriteLeavesNoTemporaryFile: a step that fails after the
// temporary file exists (here the rename, to a name longer than the file
// system's 255-byte limit, which the target check lets through) removes the
// temporary file again; the directory is as it was.
func TestFailedWriteLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("n", 300))
	err := testFile.Write(long, []byte("x"))
	assert.Equal(t, "rename", StepOf(err))
	entries, rerr := os.ReadDir(dir)
	require.NoError(t, rerr)
	assert.Empty(t, entries)
}

// mkfifo makes a FIFO at p (Linux and macOS, the release platforms).
func mkfifo(t *testing.T, p string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(p, 0o600))
}

// TestRegression_NonRegularTargetNeverReplaced: an existing target that
// is not a regular file (directory, FIFO, symbolic link, device node) is
// refused by Probe and by Write, and stays what it was. Before, the rename
// replaced a device node or a FIFO named by --plan-file.
func TestRegression_NonRegularTargetNeverReplaced(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	link := filepath.Join(dir, "link")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real"), []byte("real"), 0o600))
	require.NoError(t, os.Symlink("real", link))
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o700))
	cases := map[string]struct {
		path string
		want error
	}{
		"fifo":           {fifo, ErrNotRegular},
		"symbolic link":  {link, ErrNotRegular},
		"directory":      {sub, ErrIsDirectory},
		"trailing slash": {filepath.Join(dir, "new") + "/", ErrIsDirectory},
	}
	if dev := filepath.Join(dir, "null"); syscall.Mknod(dev, syscall.S_IFCHR|0o600, 1<<8|3) == nil {
		// A character device (1,3: what /dev/null is) made here, never the
		// real /dev/null: a regression would replace it.
		cases["device node"] = struct {
			path string
			want error
		}{dev, ErrNotRegular}
	} else {
		t.Log("mknod not permitted here: the device-node case is skipped")
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			before, err := os.Lstat(c.path)
			exists := err == nil
			perr := testFile.Probe(c.path)
			assert.ErrorIs(t, perr, c.want)
			assert.Equal(t, "probe-target", StepOf(perr))
			werr := testFile.Write(c.path, []byte("x"))
			assert.ErrorIs(t, werr, c.want)
			assert.Equal(t, "target", StepOf(werr))
			if exists {
				after, err := os.Lstat(c.path)
				require.NoError(t, err)
				assert.Equal(t, before.Mode(), after.Mode(), "the target is untouched")
				assert.True(t, os.SameFile(before, after))
			}
		})
	}
	b, _ := os.ReadFile(filepath.Join(dir, "real"))
	assert.Equal(t, "real", string(b))
}

// TestRegression_ProbeResolvesLikeTheWrite: "missing/../r.json" is in the
// directory "missing/.." as the operating system resolves it, which does
// not exist: the probe fails as the write would (before, the probe looked
// at the lexically cleaned "." and passed, and only the final rename
// failed after the run).
func TestRegression_ProbeResolvesLikeTheWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "missing") + "/../r.json"
	err := testFile.Probe(p)
	assert.Equal(t, "probe-create", StepOf(err))
	err = testFile.Write(p, []byte("x"))
	assert.Equal(t, "create", StepOf(err))
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries, "nothing left behind")

	require.NoError(t, os.Mkdir(filepath.Join(dir, "present"), 0o700))
	p = filepath.Join(dir, "present") + "/../r.json"
	require.NoError(t, testFile.Probe(p))
	require.NoError(t, testFile.Write(p, []byte("x")))
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(b))
}

func TestSameTarget(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o700))
	require.NoError(t, os.Symlink("d", filepath.Join(dir, "dl")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "h1"), nil, 0o600))
	require.NoError(t, os.Link(filepath.Join(dir, "h1"), filepath.Join(dir, "h2")))
	t.Chdir(dir)
	same := [][2]string{
		{"x.json", "x.json"},
		{"x.json", "./x.json"},
		{"x.json", "d/../x.json"},
		{"x.json", filepath.Join(dir, "x.json")},
		{"d/x.json", "dl/x.json"},
		{"h1", "h2"},
		// A directory not made yet: only the absolute forms can tell.
		{"missing/x.json", filepath.Join(dir, "missing", "x.json")},
	}
	for _, p := range same {
		assert.True(t, SameTarget(p[0], p[1]), "%v", p)
		assert.True(t, SameTarget(p[1], p[0]), "%v", p)
	}
	for _, p := range [][2]string{{"x.json", "y.json"}, {"d/x.json", "x.json"}, {"h1", "x.json"}} {
		assert.False(t, SameTarget(p[0], p[1]), "%v", p)
	}
}

// failingValue fails Validate with err, or, when err is nil, encodes with
// an error (a channel is not JSON).
type failingValue struct {
	err error
	C   chan int `json:"c"`
}

func (v failingValue) Validate() error { return v.err }

// TestMarshalFailureNamesItsStep: a value that fails Validate is a
// *WriteError of step validate, one that cannot be encoded of step encode;
// WriteJSON returns the same error and writes nothing.
func TestMarshalFailureNamesItsStep(t *testing.T) {
	invalid := failingValue{err: errors.New("CANARY invalid")}
	_, err := Marshal(invalid)
	assert.Equal(t, "validate", StepOf(err))
	_, err = Marshal(failingValue{C: make(chan int)})
	assert.Equal(t, "encode", StepOf(err))

	path := filepath.Join(t.TempDir(), "out.json")
	err = testFile.WriteJSON(path, invalid)
	assert.Equal(t, "validate", StepOf(err))
	_, statErr := os.Stat(path)
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "nothing written")
}

// TestDirOf: the directory a file is synced through: "." for a bare name,
// "/" for a file directly under the root, the part before the last "/"
// otherwise (".." kept, unlike filepath.Dir).
func TestDirOf(t *testing.T) {
	for path, want := range map[string]string{"plan.json": ".", "/plan.json": "/", "a/plan.json": "a", "missing/../r": "missing/..", "/a/b": "/a"} {
		assert.Equal(t, want, dirOf(path), path)
	}
}
