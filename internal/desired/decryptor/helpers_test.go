package decryptor

import (
	"os"
	"path/filepath"
	"testing"
)

// The fixtures are internal/desired's (written by the real sops CLI; see
// its gen_test.go).
const (
	testdata = "../testdata"
	cur      = "sops-3.13.3"
	oldSOPS  = "3.9.4"
)

// Test environment: SOPS quietly reads ~/.ssh and ~/.config/sops, so HOME is
// a temporary directory, and the only age key is the committed test key.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "decryptor-home-")
	if err != nil {
		panic(err)
	}
	key, err := filepath.Abs(filepath.Join(testdata, "keys", "age-test.txt"))
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.Setenv("SOPS_AGE_KEY_FILE", key)
	for _, v := range []string{"SOPS_AGE_KEY", "SOPS_AGE_KEY_CMD", "SOPS_AGE_SSH_PRIVATE_KEY_FILE", "SOPS_PGP_FP",
		"AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_KMS",
		"VAULT_ADDR", "VAULT_TOKEN"} {
		os.Unsetenv(v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// fixture returns the bytes of a committed fixture file under testdata.
func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, rel))
	if err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	return b
}
