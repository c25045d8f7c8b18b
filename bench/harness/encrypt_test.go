package harness

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The in-process encryption must produce documents the real sops CLI
// decrypts to the expected canonical value (issue 7: verify a sample).
func TestEncryptJSON_RealSOPSDecryptsToTheCanonicalValue(t *testing.T) {
	_, err := SOPSBinary()
	require.NoError(t, err, "the test needs the pinned sops CLI: make tools")
	key, err := NewAgeKey()
	require.NoError(t, err)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "keys.txt")
	require.NoError(t, os.WriteFile(keyFile, []byte(key.Identity+"\n"), 0o600))
	home := filepath.Join(dir, "home")
	require.NoError(t, os.Mkdir(home, 0o700))

	c, err := NewCorpus(CorpusSpec{RepositoryID: "o/r", SourceRoot: "s", Prefix: "p", N: 3, ValueBytes: 256, Seed: 1})
	require.NoError(t, err)
	ct, err := EncryptAll(c.Docs, key.Recipient)
	require.NoError(t, err)
	require.Len(t, ct, 3)
	for i, d := range c.Docs {
		assert.NotContains(t, string(ct[i]), string(d.Value[20:60]), "payload must not appear in clear")
		assert.Contains(t, string(ct[i]), `"sops"`)
		require.NoError(t, VerifyWithSOPS(ct[i], d.Value, keyFile, home), "doc %d", i)
	}
	// A wrong expectation is detected.
	assert.Error(t, VerifyWithSOPS(ct[0], c.Docs[1].Value, keyFile, home))

	// Equal plaintexts encrypt differently (fresh data key and IVs).
	again, err := EncryptJSON(c.Docs[0].Plain, key.Recipient)
	require.NoError(t, err)
	assert.False(t, bytes.Equal(again, ct[0]))
}

func TestWriteRepo_OneCommitWithEveryDocument(t *testing.T) {
	c, err := NewCorpus(CorpusSpec{RepositoryID: "o/r", SourceRoot: "n3", Prefix: "p", N: 3, ValueBytes: 128, Seed: 1})
	require.NoError(t, err)
	cipher := [][][]byte{{[]byte("{\"a\":1}\n"), []byte("{\"a\":2}\n"), []byte("{\"a\":3}\n")}}
	r, err := WriteRepo(t.TempDir(), []Corpus{c}, cipher)
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{40}$`, r.Commit)
	for i, d := range c.Docs {
		b, err := os.ReadFile(filepath.Join(r.Dir, filepath.FromSlash(d.Path)))
		require.NoError(t, err)
		assert.Equal(t, cipher[0][i], b)
	}
}
