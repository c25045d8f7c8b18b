package desired

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
)

// Fixture generator. The committed fixtures under testdata/sops-*/ and
// testdata/kms/ were written by the real sops CLI; regenerate them with
//
//	make tools   # sops v3.13.3 on PATH
//	GOBIN=/tmp/oldsops go install github.com/getsops/sops/v3/cmd/sops@v3.9.4
//	GOBIN=/tmp/lkms go install github.com/nsmithuk/local-kms@v0.0.0-20260228092603-2a5e92d09ab6
//	go test ./internal/desired -run TestGenerateFixtures -regen-fixtures \
//	    -old-sops=/tmp/oldsops/sops -local-kms=/tmp/lkms/local-kms
//
// Encryption is randomized, so regenerating changes every fixture byte; the
// tests only depend on what the fixtures decrypt to.
var (
	regen       = flag.Bool("regen-fixtures", false, "regenerate the sops-encrypted fixtures with the sops CLI")
	oldSOPSFlag = flag.String("old-sops", "", "path of an older sops CLI (v3.9.4) for testdata/sops-3.9.4")
	localKMS    = flag.String("local-kms", "", "path of the local-kms binary for testdata/kms")
)

const (
	currentSOPS    = "3.13.3"
	oldSOPS        = "3.9.4"
	testRecipient  = "age1eepekhjxqh9v4g5c8uzah2q5qhqrdredw7jw395e0s73rc88r92qy36peg"
	otherRecipient = "age1e2v9v6f77u7hny2qdwlmmvyzfr9c4sn7cw6xjt4nh4x8mp6kcdcqtxpajx"
)

// sopsType maps a plaintext file extension to the sops type name and the
// fixture suffix.
func sopsType(name string) (typ, suffix string) {
	switch filepath.Ext(name) {
	case ".json":
		return "json", ".sops.json"
	case ".yaml":
		return "yaml", ".sops.yaml"
	case ".yml":
		return "yaml", ".sops.yml"
	case ".env":
		return "dotenv", ".sops.env"
	}
	return "", ""
}

// runSOPS runs a sops CLI with an isolated HOME and the test key.
func runSOPS(t *testing.T, bin string, extraEnv []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--disable-version-check"}, args...)...)
	cmd.Dir = t.TempDir() // no .sops.yaml creation rules can apply
	key, _ := filepath.Abs("testdata/keys/age-test.txt")
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "SOPS_AGE_KEY_FILE=" + key}, extraEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func writeFixture(t *testing.T, rel string, b []byte) {
	t.Helper()
	p := filepath.Join("testdata", rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func requireVersion(t *testing.T, bin, want string) {
	t.Helper()
	out := runSOPS(t, bin, nil, "--version")
	if !strings.Contains(string(out), want) {
		t.Fatalf("%s is not sops %s: %s", bin, want, out)
	}
}

// encryptAll encrypts every plaintext in names with bin into dir.
func encryptAll(t *testing.T, bin, dir string, names []string) {
	for _, name := range names {
		typ, suffix := sopsType(name)
		abs, _ := filepath.Abs(filepath.Join("testdata", "plain", name))
		recipient := testRecipient
		if strings.HasPrefix(name, "wrong-key") {
			recipient = otherRecipient
		}
		out := runSOPS(t, bin, nil, "--encrypt", "--age", recipient, "--input-type", typ, "--output-type", typ, abs)
		writeFixture(t, filepath.Join(dir, strings.TrimSuffix(name, filepath.Ext(name))+suffix), out)
	}
}

// currentSOPSBin is the sops CLI on PATH, which must be currentSOPS.
func currentSOPSBin(t *testing.T) string {
	sopsBin, err := exec.LookPath("sops")
	if err != nil {
		t.Fatal("sops is not on PATH; run make tools")
	}
	requireVersion(t, sopsBin, currentSOPS)
	return sopsBin
}

func TestGenerateFixtures(t *testing.T) {
	if !*regen {
		t.Skip("fixture generation runs only with -regen-fixtures")
	}
	sopsBin := currentSOPSBin(t)
	entries, err := os.ReadDir(filepath.Join("testdata", "plain"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, e := range entries {
		if typ, _ := sopsType(e.Name()); typ != "" && !strings.HasPrefix(e.Name(), "kms") {
			all = append(all, e.Name())
		}
	}
	cur := "sops-" + currentSOPS
	encryptAll(t, sopsBin, cur, all)
	deriveBroken(t, cur)

	if *oldSOPSFlag != "" {
		requireVersion(t, *oldSOPSFlag, oldSOPS)
		// sops 3.9.4 refuses to encrypt a YAML date (unknown type
		// time.Time); 3.13.3 rewrites it to a timestamp.
		encryptAll(t, *oldSOPSFlag, "sops-"+oldSOPS, []string{"good.json", "good.yaml", "good.env", "crlf.env", "merge.yaml", "aliases.yaml"})
	} else {
		t.Log("no -old-sops: testdata/sops-" + oldSOPS + " left as is")
	}
	generateDeepFixtures(t, sopsBin)
	if *localKMS != "" {
		generateKMSFixture(t, sopsBin, *localKMS)
	} else {
		t.Log("no -local-kms: testdata/kms left as is")
	}
}

// deriveBroken writes the fixtures that only a hand edit (or a bad merge)
// produces: they start from real sops output.
func deriveBroken(t *testing.T, dir string) {
	good := string(fixture(t, filepath.Join(dir, "good.sops.json")))
	plainJSON := fixture(t, "plain/good.json")

	// Removing one member keeps every other value decryptable but changes
	// the MAC over all values.
	lines := strings.Split(good, "\n")
	var kept []string
	for _, l := range lines {
		if !strings.Contains(l, `"ratio":`) {
			kept = append(kept, l)
		}
	}
	if len(kept) != len(lines)-1 {
		t.Fatal("good.sops.json has no single ratio line")
	}
	writeFixture(t, filepath.Join(dir, "mac-mismatch.sops.json"), []byte(strings.Join(kept, "\n")))

	// Flipping one character of a value's ciphertext fails AES-GCM.
	re := regexp.MustCompile(`("token": "ENC\[AES256_GCM,data:)(.)`)
	tampered := re.ReplaceAllStringFunc(good, func(m string) string {
		last := m[len(m)-1]
		repl := byte('A')
		if last == 'A' {
			repl = 'B'
		}
		return m[:len(m)-1] + string(repl)
	})
	if tampered == good {
		t.Fatal("could not tamper with the token ciphertext")
	}
	writeFixture(t, filepath.Join(dir, "tampered.sops.json"), []byte(tampered))

	// A plaintext value added to an encrypted file by hand: SOPS's own error
	// text for this echoes the value.
	injected := strings.Replace(good, "{\n", "{\n\t\"extra\": \"injected-FIXTURE\",\n", 1)
	writeFixture(t, filepath.Join(dir, "injected.sops.json"), []byte(injected))

	writeFixture(t, filepath.Join(dir, "truncated.sops.json"), []byte(good[:len(good)/2]))
	writeFixture(t, filepath.Join(dir, "wrong-format.sops.json"), fixture(t, filepath.Join(dir, "good.sops.yaml")))
	writeFixture(t, filepath.Join(dir, "not-encrypted.sops.json"), plainJSON)
	writeFixture(t, filepath.Join(dir, "not-encrypted.sops.yaml"), fixture(t, "plain/good.yaml"))
	writeFixture(t, filepath.Join(dir, "not-encrypted.sops.env"), fixture(t, "plain/good.env"))
}

// nested returns a JSON object nested depth levels deep ({"a":{"a":"x"}}
// has depth 2).
func nested(depth int) string {
	return strings.Repeat(`{"a":`, depth-1) + `{"a":"deep-FIXTURE"}` + strings.Repeat("}", depth-1)
}

// generateDeepFixtures writes testdata/deep: documents nested exactly
// canonical.MaxDepth levels (accepted) and one more (plaintext:too-deep),
// as JSON and YAML, encrypted by the sops CLI. They live outside
// testdata/sops-* because SOPS itself accepts them: the parity test
// against DataWithFormat does not apply.
func generateDeepFixtures(t *testing.T, sopsBin string) {
	for _, depth := range []int{canonical.MaxDepth, canonical.MaxDepth + 1} {
		plain := filepath.Join(t.TempDir(), "deep.json")
		if err := os.WriteFile(plain, []byte(nested(depth)), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, typ := range []string{"json", "yaml"} {
			out := runSOPS(t, sopsBin, nil, "--encrypt", "--age", testRecipient, "--input-type", "json", "--output-type", typ, plain)
			writeFixture(t, filepath.Join("deep", fmt.Sprintf("depth%d.sops.%s", depth, typ)), out)
		}
	}
}

// TestGenerateDeepFixtures regenerates only testdata/deep.
func TestGenerateDeepFixtures(t *testing.T) {
	if !*regen {
		t.Skip("fixture generation runs only with -regen-fixtures")
	}
	sopsBin := currentSOPSBin(t)
	generateDeepFixtures(t, sopsBin)
}
