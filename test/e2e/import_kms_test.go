package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// The KMS key of the loader's local-kms seed (internal/desired/testdata/kms).
const localKMSKey = "arn:aws:kms:eu-west-2:111122223333:key/6a3c1d52-4c8e-4a51-9d0e-2f7b8e1c5a90"

// localKMS starts local-kms (github.com/nsmithuk/local-kms, installed by
// make tools) seeded with the loader's key and returns its loopback
// endpoint; the test skips without it outside CI. Readiness is its
// "started" line, printed once the socket is bound.
func localKMS(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("local-kms")
	if err != nil {
		if p := filepath.Join(filepath.Dir(sopsBin), "local-kms"); fileExists(p) {
			bin = p
		} else if os.Getenv("CI") != "" {
			require.FailNow(t, "local-kms not found; CI must install it (make tools)")
		} else {
			t.Skip("local-kms not found (make tools installs it)")
		}
	}
	seed, err := filepath.Abs(filepath.Join("..", "..", "internal", "desired", "testdata", "kms", "seed.yaml"))
	require.NoError(t, err)
	cmd := exec.Command(bin)
	cmd.Env = []string{"PORT=0", "KMS_REGION=eu-west-2", "KMS_ACCOUNT_ID=111122223333", "KMS_SEED_PATH=" + seed, "KMS_DATA_PATH=" + t.TempDir()}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); pw.Close() })
	started := regexp.MustCompile(`Local KMS started on [0-9.]+:([0-9]+)`)
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if m := started.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, pr) }()
			return "http://127.0.0.1:" + m[1]
		}
	}
	require.FailNow(t, "local-kms exited before it reported its port")
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// TestImport_KMSDocumentsDecryptWithTheSopsCLI: with a creation rule of
// an AWS KMS key (served by local-kms), import writes every kind of
// document encrypted to that key, the plan of the staged tree decrypts
// them through KMS and adopts each with value equal, and the sops CLI
// decrypts each, through the same KMS, to the live bytes.
func TestImport_KMSDocumentsDecryptWithTheSopsCLI(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	kms := localKMS(t)
	rule := "creation_rules:\n  - path_regex: ^secrets/\n    kms: " + localKMSKey + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(f.Repo, ".sops.yaml"), []byte(rule), 0o600))
	f.commit("sops rule")
	es := mixedEstate()[:4] // canonical JSON, hand-spelled JSON, PEM, binary
	f.estate(e, es)
	kmsEnv := []string{"AWS_ENDPOINT_URL_KMS=" + kms}
	r := f.run(e, runOpts{Env: append(f.importEnv(t.TempDir()), kmsEnv...)}, f.args("import")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 4})
	for _, s := range es {
		b, err := os.ReadFile(filepath.Join(f.Repo, s.doc))
		require.NoError(t, err)
		assert.Contains(t, string(b), localKMSKey, "%s is encrypted to the KMS key", s.doc)
		assert.NotContains(t, string(b), "age1", "%s has no age recipient", s.doc)
		cmd := exec.Command(sopsBin, "--disable-version-check", "decrypt", s.doc)
		cmd.Dir = f.Repo
		cmd.Env = append(f.env(), "AWS_ACCESS_KEY_ID=AKIDE2E", "AWS_SECRET_ACCESS_KEY="+awsSecretKey,
			"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", kmsEnv[0])
		got, err := cmd.Output()
		require.NoError(t, err, "sops decrypt %s", s.doc)
		if strings.HasSuffix(s.doc, ".sops.json") {
			got, err = canonical.FromJSON(got)
			require.NoError(t, err)
		}
		assert.Equal(t, s.plain, got, "%s decrypts to the live bytes", s.doc)
	}
}
