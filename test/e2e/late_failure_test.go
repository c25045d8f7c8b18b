package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestExit3_LastOfManyDocumentsCorruptWritesNothing: of 2,000 documents
// the last by path is corrupt (an encrypted file cut in half). The run
// decrypts the 1,999 others, but a plan is never built from part of the
// desired state (SPEC §3.2): exit 3, report invalid with zero counts, the
// failing document named by ordinal in the log, and not one mutating call,
// even though reads may have started while decryption ran.
func TestExit3_LastOfManyDocumentsCorruptWritesNothing(t *testing.T) {
	const n = 2000
	f := newFixture(t)
	e := startEmulator(t)
	first := "secrets/m/s0000.sops.json"
	f.writeDoc(first, `{"password": "CANARY-late-`+token(6)+`"}`, "")
	enc, err := os.ReadFile(filepath.Join(f.Repo, filepath.FromSlash(first)))
	require.NoError(t, err)
	for i := 1; i < n; i++ {
		body := enc
		if i == n-1 {
			body = enc[:len(enc)/2]
		}
		rel := fmt.Sprintf("secrets/m/s%04d.sops.json", i)
		require.NoError(t, os.WriteFile(filepath.Join(f.Repo, filepath.FromSlash(rel)), body, 0o600))
	}
	f.commit(fmt.Sprintf("%d documents, the last one corrupt", n))

	for _, mode := range []string{"sync", "plan"} {
		r := f.run(e, runOpts{}, f.args(mode)...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
		rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] != nil && m["phase"] == "plan" })
		require.NotNil(t, rec, "%s: the desired-state error is a log record on stdout:\n%.2000s", mode, r.Stdout)
		assert.Equal(t, "decrypt:malformed", rec["error_class"], mode)
		assert.Equal(t, fmt.Sprintf("resource-%04d", n), rec["resource"], "%s: the last document by path", mode)
		fin := r.final(t)
		assert.Equal(t, "invalid", fin["status"], mode)
		assert.Zero(t, e.mutatingCalls(), "%s: a desired-state failure writes nothing", mode)
		assert.Empty(t, e.state().Secrets, "%s: nothing was created", mode)
	}
}
