package e2e

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// gitIn runs the git CLI in dir with the fixture's environment.
func (f *fixture) gitIn(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command(gitBin, args...)
	cmd.Dir = dir
	cmd.Env = f.env()
	out, err := cmd.CombinedOutput()
	require.NoError(f.t, err, "git %s\n%s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// serve returns a bare copy of the fixture's repository that allows
// partial-clone filters, for file:// clones.
func (f *fixture) serve() string {
	f.t.Helper()
	bare := filepath.Join(f.t.TempDir(), "origin.git")
	f.gitIn(f.Repo, "clone", "-q", "--bare", f.Repo, bare)
	f.gitIn(bare, "config", "uploadpack.allowFilter", "true")
	return bare
}

// shapeFixture is a fixture whose commit holds the three standard
// documents under secrets/ and a file under other/, an emulator, the
// commit SHA and a bare copy to clone from.
func shapeFixture(t *testing.T) (f *fixture, e *emu, head, bare string) {
	t.Helper()
	f = newFixture(t)
	e = startEmulator(t)
	f.standardDocs()
	require.NoError(t, writeFile(filepath.Join(f.Repo, "other", "readme.txt"), "outside the source root\n"))
	head = f.commit("a file outside the source root")
	return f, e, head, f.serve()
}

// desiredRejection returns the "desired state rejected" record.
func desiredRejection(t *testing.T, r result) map[string]any {
	t.Helper()
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] != nil && m["phase"] == "plan" })
	require.NotNil(t, rec, "no desired-state error record:\n%s", r.Stdout)
	return rec
}

// TestRepositoryShapes_SparseShallowWorktreeReadTheCommit: the clones CI
// produces — sparse in cone and non-cone mode (both set
// extensions.worktreeConfig), shallow, a linked worktree at a detached HEAD
// — all read the commit. The first sync creates the three secrets; each
// further shape is a no-op at the same commit.
func TestRepositoryShapes_SparseShallowWorktreeReadTheCommit(t *testing.T) {
	f, e, head, bare := shapeFixture(t)
	tmp := t.TempDir()

	shallow := filepath.Join(tmp, "shallow")
	f.gitIn(tmp, "clone", "-q", "--depth", "1", "file://"+bare, shallow)
	cone := filepath.Join(tmp, "cone")
	f.gitIn(tmp, "clone", "-q", "file://"+bare, cone)
	f.gitIn(cone, "sparse-checkout", "set", "other")
	noCone := filepath.Join(tmp, "no-cone")
	f.gitIn(tmp, "clone", "-q", "--depth", "1", "file://"+bare, noCone)
	f.gitIn(noCone, "sparse-checkout", "set", "--no-cone", "/other/")
	worktree := filepath.Join(tmp, "worktree")
	f.gitIn(noCone, "worktree", "add", "-q", "--detach", worktree, head)
	for _, dir := range []string{cone, noCone} {
		require.Equal(t, "true", f.gitIn(dir, "config", "--get", "extensions.worktreeConfig"), "premise: sparse-checkout sets worktreeConfig")
	}

	r := f.run(e, runOpts{}, f.args("sync", "--repository", shallow)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	assert.Equal(t, head, r.Report.GitRevision)
	for name, dir := range map[string]string{"cone": cone, "no-cone": noCone, "worktree": worktree} {
		r := f.run(e, runOpts{}, f.args("sync", "--repository", dir)...)
		expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
		assert.Equal(t, head, r.Report.GitRevision, name)
	}
}

// TestRepositoryShapes_BloblessPartialCloneIsObjectMissing: a blob-less
// partial clone whose sparse set leaves out the source root lacks the
// documents' blobs: exit 3 with git:object-missing and its next action,
// and not one AWS call.
func TestRepositoryShapes_BloblessPartialCloneIsObjectMissing(t *testing.T) {
	f, e, _, bare := shapeFixture(t)
	partial := filepath.Join(t.TempDir(), "partial")
	f.gitIn(filepath.Dir(partial), "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+bare, partial)
	f.gitIn(partial, "sparse-checkout", "set", "--no-cone", "/other/")
	f.gitIn(partial, "checkout", "-q", "main")

	r := f.run(e, runOpts{}, f.args("sync", "--repository", partial)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := desiredRejection(t, r)
	assert.Equal(t, "git:object-missing", rec["error_class"])
	assert.Equal(t, "resource-0001", rec["resource"])
	assert.Contains(t, rec["msg"], "include the source root in the sparse-checkout set")
	assert.Empty(t, e.stats().Calls, "a missing object is found before the first AWS call")
}

// TestRepositoryShapes_LFSPointerIsLFSPointer: a document committed
// through Git LFS is a pointer file: exit 3 with source:lfs-pointer, and not
// one AWS call.
func TestRepositoryShapes_LFSPointerIsLFSPointer(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	pointer := "version https://git-lfs.github.com/spec/v1\n" +
		"oid sha256:" + strings.Repeat("ab", 32) + "\nsize 1234\n"
	require.NoError(t, writeFile(filepath.Join(f.Repo, "secrets", "zz-lfs.sops.json"), pointer))
	f.Names = append(f.Names, "zz-lfs", f.Prefix+"/zz-lfs")
	f.commit("a document through LFS")

	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := desiredRejection(t, r)
	assert.Equal(t, "source:lfs-pointer", rec["error_class"])
	assert.Equal(t, "resource-0004", rec["resource"], "documents are ordered by path: the fourth")
	assert.Contains(t, rec["msg"], "commit the SOPS file itself, not through LFS")
	assert.Empty(t, e.stats().Calls, "an LFS pointer is found before the first AWS call")
}

// writeFile writes content to p, creating its directory.
func writeFile(p, content string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o600)
}

// TestRepositoryShapes_SOPSConfigAtRootIsNotADocument: with --source-root .
// in a standard SOPS repository, SOPS's own .sops.yaml is not selected as a
// document (it would fail name:invalid).
func TestRepositoryShapes_SOPSConfigAtRootIsNotADocument(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	rules := "creation_rules:\n  - path_regex: \\.sops\\.(json|yaml|env)$\n    age: " + f.recip + "\n"
	require.NoError(t, writeFile(filepath.Join(f.Repo, ".sops.yaml"), rules))
	f.commit("SOPS creation rules")
	r := f.run(e, runOpts{}, f.args("sync", "--source-root", ".")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
}

// TestDecrypt_KMSThatNeverAnswersIsKeyService: a KMS
// endpoint that accepts connections and never answers ends the run with
// decrypt:key-service (exit 3) after --operation-timeout, not 130 after
// --run-timeout, and not one mutating Secrets Manager call is made (the
// first observation reads meanwhile). The document is
// the loader's AWS KMS fixture (encrypted by the sops CLI to a local-kms
// key); no KMS runs here.
func TestDecrypt_KMSThatNeverAnswersIsKeyService(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	_, silent := f.addSilentKMSDoc(t)
	f.Names = append(f.Names, "zz-kms", f.Prefix+"/zz-kms")

	r := f.run(e, silent, f.args("sync", "--operation-timeout", "2s", "--run-timeout", "2m")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := desiredRejection(t, r)
	assert.Equal(t, "decrypt:key-service", rec["error_class"])
	assert.Equal(t, "resource-0004", rec["resource"])
	assert.Contains(t, rec["msg"], "did not answer within --operation-timeout")
	// Reads overlap decryption (SPEC §3.2): the outline's names were
	// described while the KMS document waited, and nothing was written.
	assert.Positive(t, e.stats().Calls["DescribeSecret"], "the first observation ran beside decryption")
	assert.Zero(t, e.mutatingCalls(), "a rejected desired state writes nothing")
	assert.Empty(t, e.state().Secrets)
}

// TestDecrypt_MissingAgeKeyFileIsKeyFile: a
// SOPS_AGE_KEY_FILE that names no file (or a directory) is decrypt:key-file
// naming the variable, not decrypt:no-key.
func TestDecrypt_MissingAgeKeyFileIsKeyFile(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	for name, path := range map[string]string{"missing": filepath.Join(t.TempDir(), "nokey.txt"), "directory": t.TempDir()} {
		r := f.run(e, runOpts{Env: []string{"SOPS_AGE_KEY_FILE=" + path}}, f.args("sync")...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
		rec := desiredRejection(t, r)
		assert.Equal(t, "decrypt:key-file", rec["error_class"], name)
		assert.Contains(t, rec["msg"], "SOPS_AGE_KEY_FILE", name)
		assert.NotContains(t, r.Stdout+r.Stderr+string(r.RawReport), path, "the variable's value is never printed")
	}
	e.onlyReads("a key file found missing while decrypting writes nothing")
}

// addSilentKMSDoc commits secrets/zz-kms.sops.json, the loader's AWS KMS
// fixture (encrypted by the sops CLI to a local-kms key), and returns its
// path and run options whose KMS endpoint never answers: a listener that
// never calls Accept, so the kernel completes the TCP handshake (the
// connection is accepted from the client's side) and queues the request,
// which nobody ever reads or answers. No KMS runs here.
func (f *fixture) addSilentKMSDoc(t *testing.T) (string, runOpts) {
	t.Helper()
	kmsDoc, err := os.ReadFile(filepath.Join("..", "..", "internal", "desired", "testdata", "kms", "kms.sops.json"))
	require.NoError(t, err)
	path := filepath.Join(f.Repo, "secrets", "zz-kms.sops.json")
	require.NoError(t, writeFile(path, string(kmsDoc)))
	f.commit("a KMS document")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	return path, runOpts{Env: []string{"AWS_ENDPOINT_URL_KMS=http://" + ln.Addr().String()}}
}
