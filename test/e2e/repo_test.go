package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"filippo.io/age"
)

// fixture is a throwaway Git repository whose documents are encrypted by the
// real sops CLI for a fresh age key, plus everything a run needs.
type fixture struct {
	t       *testing.T
	Repo    string // work tree
	Home    string // HOME for sops, git and the CLI
	KeyFile string // age identity file (SOPS_AGE_KEY_FILE)
	Prefix  string // secret prefix (random, so names are recognisable canaries)
	RepoID  string
	// Canaries are strings that must never appear in any output: plaintext
	// values, the age private key, and (unless names are shown) secret
	// names and document paths.
	Values  []string
	Names   []string
	private string
	recip   string
}

// token returns a random lower-case hex string of n bytes.
func token(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	need(t)
	dir := t.TempDir()
	f := &fixture{
		t:      t,
		Repo:   filepath.Join(dir, "repo"),
		Home:   filepath.Join(dir, "home"),
		Prefix: "cnry" + token(4) + "/app",
		RepoID: "e2e-owner/e2e-repo",
	}
	for _, d := range []string{f.Repo, f.Home} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	id, err := age.GenerateX25519Identity()
	require.NoError(t, err)
	f.private, f.recip = id.String(), id.Recipient().String()
	f.KeyFile = filepath.Join(dir, "age.key")
	require.NoError(t, os.WriteFile(f.KeyFile, []byte(f.private+"\n"), 0o600))
	f.git("init", "-q", "-b", "main")
	f.git("config", "user.email", "e2e@example.invalid")
	f.git("config", "user.name", "e2e")
	f.git("config", "commit.gpgsign", "false")
	return f
}

// env is the minimal environment for sops and git in this fixture.
func (f *fixture) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + f.Home,
		"GIT_CONFIG_NOSYSTEM=1",
		"SOPS_AGE_KEY_FILE=" + f.KeyFile,
	}
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	cmd := exec.Command(gitBin, args...)
	cmd.Dir = f.Repo
	cmd.Env = f.env()
	out, err := cmd.CombinedOutput()
	require.NoError(f.t, err, "git %s\n%s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// writeDoc writes plaintext to rel (a path like secrets/db.sops.json) and
// encrypts it in place with the real sops CLI for recipient (the fixture's
// own key when empty). Document names ending in their format's suffix
// decide the sops format.
func (f *fixture) writeDoc(rel, plaintext, recipient string) {
	f.t.Helper()
	if recipient == "" {
		recipient = f.recip
	}
	p := filepath.Join(f.Repo, filepath.FromSlash(rel))
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o700))
	require.NoError(f.t, os.WriteFile(p, []byte(plaintext), 0o600))
	cmd := exec.Command(sopsBin, "--disable-version-check", "encrypt", "--in-place", "--age", recipient, p)
	cmd.Dir = f.Repo
	cmd.Env = f.env()
	out, err := cmd.CombinedOutput()
	require.NoError(f.t, err, "sops encrypt %s\n%s", rel, out)
	enc, _ := os.ReadFile(p)
	require.NotContains(f.t, string(enc), "CANARY", "sops left plaintext in %s", rel)
}

// removeDoc deletes a committed document from the work tree.
func (f *fixture) removeDoc(rel string) {
	f.t.Helper()
	f.git("rm", "-q", rel)
}

// commit commits everything and returns the commit SHA.
func (f *fixture) commit(msg string) string {
	f.t.Helper()
	f.git("add", "-A")
	f.git("commit", "-q", "--allow-empty", "-m", msg)
	return f.git("rev-parse", "HEAD")
}

// doc is one sample document: its path, format, plaintext and the secret
// name it maps to.
type doc struct {
	Rel, Plain, Name string
}

// standardDocs writes three documents, one per format (JSON, YAML, dotenv),
// each with a unique canary value, and commits them.
func (f *fixture) standardDocs() []doc {
	f.t.Helper()
	base := "d" + token(3)
	docs := []doc{
		{Rel: "secrets/" + base + "json.sops.json", Plain: `{"password": "CANARY-json-` + token(6) + `", "port": 5432}`},
		{Rel: "secrets/" + base + "yaml.sops.yaml", Plain: "api_key: CANARY-yaml-" + token(6) + "\nnested:\n  flag: true\n"},
		{Rel: "secrets/nested/" + base + "env.sops.env", Plain: "TOKEN=CANARY-env-" + token(6) + "\nMODE=prod\n"},
	}
	for i := range docs {
		f.writeDoc(docs[i].Rel, docs[i].Plain, "")
		docs[i].Name = f.nameOf(docs[i].Rel)
		f.Names = append(f.Names, docs[i].Name, strings.TrimPrefix(docs[i].Rel, "secrets/"))
		f.Values = append(f.Values, canaryIn(docs[i].Plain))
	}
	f.commit("add documents")
	return docs
}

// nameOf maps a document path under secrets/ to its secret name (SPEC §3.4).
func (f *fixture) nameOf(rel string) string {
	n := strings.TrimPrefix(rel, "secrets/")
	for _, suf := range []string{".sops.json", ".sops.yaml", ".sops.yml", ".sops.env", ".sops.txt", ".sops.bin"} {
		n = strings.TrimSuffix(n, suf)
	}
	return f.Prefix + "/" + n
}

// canaryIn returns the CANARY-… token inside a plaintext.
func canaryIn(plain string) string {
	i := strings.Index(plain, "CANARY-")
	j := i
	for j < len(plain) && (plain[j] == '-' || plain[j] >= '0' && plain[j] <= '9' || plain[j] >= 'a' && plain[j] <= 'z' || plain[j] >= 'A' && plain[j] <= 'Z') {
		j++
	}
	return plain[i:j]
}
