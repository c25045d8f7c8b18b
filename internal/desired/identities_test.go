package desired

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgeIdentitiesLoadedOncePerLoad: SOPS's local key service re-reads
// the age identities for every document (the age key command runs once per
// document); a Load reads them once per recipient and reuses them, and the
// next Load reads them again.
func TestAgeIdentitiesLoadedOncePerLoad(t *testing.T) {
	dir := benchRepo(t, 12)
	tmp := t.TempDir()
	counter := filepath.Join(tmp, "runs")
	key, err := filepath.Abs(filepath.Join("testdata", "keys", "age-test.txt"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(tmp, "age-key-cmd")
	body := "#!/bin/sh\necho run >> '" + counter + "'\ncat '" + key + "'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOPS_AGE_KEY_FILE", "")
	os.Unsetenv("SOPS_AGE_KEY_FILE")
	t.Setenv("SOPS_AGE_KEY_CMD", script)
	runs := func() int {
		b, _ := os.ReadFile(counter)
		return strings.Count(string(b), "run")
	}
	opts := baseOptions(dir)
	opts.Concurrency = 1
	st, err := Load(context.Background(), opts)
	if err != nil || len(st.Secrets) != 12 {
		t.Fatalf("%v, %d secrets", err, len(st.Secrets))
	}
	if got := runs(); got != 1 {
		t.Fatalf("the age key command ran %d times for 12 documents, want 1", got)
	}
	opts.Concurrency = 4
	if _, err := Load(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	// Up to 4 decryptions may start before the first one has loaded the
	// identities; a fresh Load never reuses the previous Load's identities.
	if got := runs() - 1; got < 1 || got > 4 {
		t.Fatalf("second Load ran the age key command %d times, want 1..4", got)
	}
}
