package desired

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// sharedRootRepo is a repository of four documents under secrets/, three
// distinct blobs (b.sops.json has a.sops.json's bytes).
func sharedRootRepo(t *testing.T) string {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json": fixture(t, cur+"/good.sops.json"),
		"secrets/b.sops.json": fixture(t, cur+"/good.sops.json"),
		"secrets/c.sops.yaml": fixture(t, cur+"/good.sops.yaml"),
		"secrets/d.sops.env":  fixture(t, cur+"/good.sops.env"),
	})
	return dir
}

// threeScopes are the desired options of three scopes over one source
// root, one prefix each (three Regions of one estate).
func threeScopes(dir string) []config.Desired {
	var out []config.Desired
	for _, prefix := range []string{"prod/app", "staging/app", "dev/app"} {
		o := baseOptions(dir)
		o.SecretPrefix = prefix
		out = append(out, o)
	}
	return out
}

func TestCache_ThreeScopesOverOneRootDecryptEachBlobOnce(t *testing.T) {
	dir := sharedRootRepo(t)
	c := NewCache()
	for _, o := range threeScopes(dir) {
		got, err := LoadShared(context.Background(), o, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Load(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scope %s: the shared load differs from its own load:\n%+v\n%+v", o.SecretPrefix, got, want)
		}
		if len(got.Secrets) != 4 {
			t.Fatalf("scope %s: %d secrets, want 4", o.SecretPrefix, len(got.Secrets))
		}
	}
	// 3 distinct blobs, 4 documents, 3 scopes: 3 decryptions, not 12.
	if n := c.Decrypted(); n != 3 {
		t.Fatalf("decrypted %d documents for three scopes of 3 distinct blobs, want 3", n)
	}

	// Other decryption settings are another computation: not shared.
	o := baseOptions(dir)
	o.MaxEncryptedBytes--
	if _, err := LoadShared(context.Background(), o, nil, c); err != nil {
		t.Fatal(err)
	}
	if n := c.Decrypted(); n != 6 {
		t.Fatalf("decrypted %d after a load with another --max-encrypted-bytes, want 6", n)
	}

	// Dropped: the next load decrypts again.
	c.Drop()
	if _, err := LoadShared(context.Background(), baseOptions(dir), nil, c); err != nil {
		t.Fatal(err)
	}
	if n := c.Decrypted(); n != 9 {
		t.Fatalf("decrypted %d after Drop and one more load, want 9", n)
	}
}

func TestCache_ConcurrentLoadsShareInFlightDecryptions(t *testing.T) {
	dir := sharedRootRepo(t)
	c := NewCache()
	scopes := threeScopes(dir)
	states := make([]model.State, len(scopes))
	errs := make([]error, len(scopes))
	var wg sync.WaitGroup
	for i, o := range scopes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			states[i], errs[i] = LoadShared(context.Background(), o, nil, c)
		}()
	}
	wg.Wait()
	for i, o := range scopes {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		want, err := Load(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(states[i], want) {
			t.Fatalf("scope %s: the concurrent shared load differs from its own load", o.SecretPrefix)
		}
	}
	if n := c.Decrypted(); n != 3 {
		t.Fatalf("decrypted %d documents in three concurrent loads of 3 distinct blobs, want 3", n)
	}
}

// An invalid document shared by several scopes is reported in each, under
// the ordinal and path it has in that scope.
func TestCache_InvalidDocumentReportedInEveryScope(t *testing.T) {
	dir, _ := newRepo(t, map[string][]byte{
		"secrets/a.sops.json":       fixture(t, cur+"/good.sops.json"),
		"secrets/sub/bad.sops.json": fixture(t, cur+"/mac-mismatch.sops.json"),
	})
	whole := baseOptions(dir)
	whole.ShowResourceNames = true
	sub := whole
	sub.SourceRoot = "secrets/sub"
	other := whole
	other.SecretPrefix = "staging/app"
	hidden := whole
	hidden.ShowResourceNames = false

	c := NewCache()
	for _, tc := range []struct {
		o       config.Desired
		ordinal int
		path    string
	}{
		{whole, 2, "secrets/sub/bad.sops.json"},
		{sub, 1, "secrets/sub/bad.sops.json"},
		{other, 2, "secrets/sub/bad.sops.json"},
		{hidden, 2, ""},
	} {
		_, err := LoadShared(context.Background(), tc.o, nil, c)
		var ds diag.Diagnostics
		if !errors.As(err, &ds) || len(ds) != 1 {
			t.Fatalf("root %s prefix %s: error %v, want one diagnostic", tc.o.SourceRoot, tc.o.SecretPrefix, err)
		}
		if ds[0].Class != diag.DecryptMACMismatch || ds[0].Subject.Ordinal != tc.ordinal || ds[0].Subject.Path != tc.path {
			t.Fatalf("root %s prefix %s: %s ordinal %d path %q, want %s ordinal %d path %q", tc.o.SourceRoot, tc.o.SecretPrefix,
				ds[0].Class, ds[0].Subject.Ordinal, ds[0].Subject.Path, diag.DecryptMACMismatch, tc.ordinal, tc.path)
		}
	}
	// Two blobs; ShowResourceNames changes the report, not the decryption.
	if n := c.Decrypted(); n != 2 {
		t.Fatalf("decrypted %d documents, want 2 (each blob once)", n)
	}
}
