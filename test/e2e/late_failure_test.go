package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
		// A distinct blob per document (trailing spaces, which JSON and
		// SOPS ignore): each is decrypted on its own, so the corrupt last
		// one fails only after the others, long after observation began.
		// (Identical blobs, decrypted once through the run's cache, let
		// the load fail before the first DescribeSecret: a flaky test.)
		body := append(slices.Clip(enc), strings.Repeat(" ", i)...)
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
		assert.Positive(t, e.stats().Calls["DescribeSecret"], "%s: observation began while the documents were decrypted", mode)
		assert.Zero(t, e.mutatingCalls(), "%s: a desired-state failure writes nothing", mode)
		assert.Empty(t, e.state().Secrets, "%s: nothing was created", mode)
	}
}

// TestExit130_InterruptedWhileDecryptingWritesNothing: a run interrupted
// while a document is still being decrypted (its KMS never answers) and
// after the first observation has read every desired name ends 130,
// interrupted, with not one mutating call, though the plan it would have
// built creates every secret; a re-run without that document converges.
func TestExit130_InterruptedWhileDecryptingWritesNothing(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	kmsPath, silent := f.addSilentKMSDoc(t) // its KMS call waits

	p := f.start(e, silent, f.args("sync", "--operation-timeout", "5m", "--run-timeout", "10m")...)
	require.True(t, p.waitFor(func(m map[string]any) bool {
		return m["msg"] == "scope observed; waiting for the desired state to finish decrypting"
	}), "the scope was observed while its documents were decrypted")
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	r := p.wait()
	expect(t, r, 130, vocab.StatusInterrupted, vocab.VerificationNotRun, nil)
	assert.Equal(t, int64(4), e.stats().Calls["DescribeSecret"], "the outline's four names were described")
	assert.Zero(t, e.mutatingCalls(), "an interruption during decryption writes nothing")
	assert.Empty(t, e.state().Secrets)

	require.NoError(t, os.Remove(kmsPath))
	f.commit("drop the KMS document")
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
}
