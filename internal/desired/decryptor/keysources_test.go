package decryptor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getsops/sops/v3"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/pgp"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestEnoughGroupsIsSOPSsRule: a document of one key group needs a key in
// that group whatever its threshold says; several groups need at least the
// Shamir threshold (at least one) of groups that still hold a key, and an
// emptied group does not count.
func TestEnoughGroupsIsSOPSsRule(t *testing.T) {
	k := func() sops.KeyGroup { return sops.KeyGroup{&sopsage.MasterKey{Recipient: "age1x"}} }
	empty := sops.KeyGroup{}
	for _, c := range []struct {
		name      string
		groups    []sops.KeyGroup
		threshold int
		want      bool
	}{
		{"no group", nil, 0, false},
		{"one emptied group", []sops.KeyGroup{empty}, 0, false},
		{"one group with a key", []sops.KeyGroup{k()}, 0, true},
		{"one group, a threshold above one is ignored", []sops.KeyGroup{k()}, 2, true},
		{"two groups, no threshold: one is enough", []sops.KeyGroup{k(), empty}, 0, true},
		{"two emptied groups, no threshold", []sops.KeyGroup{empty, empty}, 0, false},
		{"threshold met exactly", []sops.KeyGroup{k(), k(), empty}, 2, true},
		{"threshold missed by one", []sops.KeyGroup{k(), empty, empty}, 2, false},
		{"emptied groups never count towards the threshold", []sops.KeyGroup{k(), empty}, 2, false},
	} {
		if got := enoughGroups(c.groups, c.threshold); got != c.want {
			t.Errorf("%s: enoughGroups = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAllowedKeysCountsEveryDroppedKey: the count of dropped keys is the
// number of keys the list removed, across groups.
func TestAllowedKeysCountsEveryDroppedKey(t *testing.T) {
	groups := []sops.KeyGroup{
		{&pgp.MasterKey{Fingerprint: "A"}, &pgp.MasterKey{Fingerprint: "B"}},
		{&sopsage.MasterKey{Recipient: "age1x"}, &pgp.MasterKey{Fingerprint: "C"}},
	}
	kept, dropped := allowedKeys(groups, model.KeyServices{Age: true})
	if dropped != 3 || len(kept) != 2 || len(kept[0]) != 0 || len(kept[1]) != 1 {
		t.Fatalf("dropped %d, kept %v; want 3 dropped, groups [] and [age]", dropped, kept)
	}
}

// TestKeyFileDiagnosis: SOPS_AGE_KEY_FILE naming nothing, or a directory,
// is decrypt:key-file with the reason (never the path); unset, or naming a
// readable file (even an empty one), is no diagnosis; a path that cannot be
// examined (a file used as a directory) or a file that opens but cannot be
// read is diagnosed too.
func TestKeyFileDiagnosis(t *testing.T) {
	dir := t.TempDir()
	emptyFile := filepath.Join(dir, "empty.txt")
	keyFile := filepath.Join(dir, "keys.txt")
	for _, f := range []struct {
		p string
		b []byte
	}{{emptyFile, nil}, {keyFile, fixture(t, "keys/age-other.txt")}} {
		if err := os.WriteFile(f.p, f.b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, path, want string // want: "" for no diagnosis, else a word of the reason
		unset            bool
	}{
		{name: "unset", unset: true},
		{name: "missing", path: filepath.Join(dir, "nope.txt"), want: "no existing file"},
		{name: "directory", path: dir, want: "directory"},
		{name: "empty file", path: emptyFile},
		{name: "key file", path: keyFile},
		{name: "a file as a directory", path: filepath.Join(emptyFile, "keys.txt"), want: "cannot be examined"},
		// Linux: /proc/self/mem opens and stats as a regular file, and
		// reading its offset 0 fails (EIO): opened but unreadable.
		{name: "opens but cannot be read", path: "/proc/self/mem", want: "cannot be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(sopsage.SopsAgeKeyFileEnv, c.path)
			if c.unset {
				os.Unsetenv(sopsage.SopsAgeKeyFileEnv)
			}
			f := (&keySources{}).keyFileFailure()
			if c.want == "" {
				if f != nil {
					t.Fatalf("diagnosis %+v, want none", f)
				}
				return
			}
			if f == nil || f.class != diag.DecryptKeyFile || !strings.Contains(f.what, c.want) || strings.Contains(f.what, dir) {
				t.Fatalf("diagnosis %+v, want %s mentioning %q and not the path", f, diag.DecryptKeyFile, c.want)
			}
		})
	}
}

// TestKeyFileIsDiagnosedOncePerDecryptor: a document whose age key is not
// available, with SOPS_AGE_KEY_FILE naming a directory, is decrypt:key-file;
// the variable is examined once per Decryptor, so fixing it mid-load
// changes nothing for that Decryptor, and a new one sees the fix.
func TestKeyFileIsDiagnosedOncePerDecryptor(t *testing.T) {
	t.Setenv(sopsage.SopsAgeKeyFileEnv, t.TempDir())
	d := New(t.Context(), Options{KeyServices: defaultAllow})
	doc := fixture(t, cur+"/good.sops.json")
	if _, e := d.Decrypt(doc, model.JSON); e == nil || e.Class != diag.DecryptKeyFile {
		t.Fatalf("got %v, want %s", e, diag.DecryptKeyFile)
	}
	missing := filepath.Join(t.TempDir(), "nope")
	t.Setenv(sopsage.SopsAgeKeyFileEnv, missing)
	if _, e := d.Decrypt(doc, model.JSON); e == nil || e.Class != diag.DecryptKeyFile || !strings.Contains(e.Summary, "directory") {
		t.Fatalf("same Decryptor: got %v, want the first diagnosis (a directory)", e)
	}
	if _, e := New(t.Context(), Options{KeyServices: defaultAllow}).Decrypt(doc, model.JSON); e == nil || !strings.Contains(e.Summary, "no existing file") {
		t.Fatalf("new Decryptor: got %v, want the new diagnosis (no existing file)", e)
	}
}

// TestHasAgeKeyLooksInEveryGroup: SOPS_AGE_KEY_FILE is blamed only for a
// document with an age recipient, in any of its key groups.
func TestHasAgeKeyLooksInEveryGroup(t *testing.T) {
	if hasAgeKey(sops.Metadata{KeyGroups: []sops.KeyGroup{{&pgp.MasterKey{Fingerprint: "A"}}}}) {
		t.Fatal("a PGP-only document has no age key")
	}
	if !hasAgeKey(sops.Metadata{KeyGroups: []sops.KeyGroup{{&pgp.MasterKey{Fingerprint: "A"}}, {&sopsage.MasterKey{Recipient: "age1x"}}}}) {
		t.Fatal("an age recipient in the second group is an age key")
	}
}

// TestNoTimeoutSetsNoBound: with no key-service timeout a call's context
// has no bound of its own (the clock is never asked); with one, the bound
// is the timeout and it ends the call with its own cause.
func TestNoTimeoutSetsNoBound(t *testing.T) {
	var asked []time.Duration
	var fire func()
	after := func(d time.Duration, f func()) func() bool {
		asked, fire = append(asked, d), f
		return func() bool { return true }
	}
	ctx, cancel := (&keySources{ctx: t.Context(), afterFunc: after}).callContext()
	defer cancel()
	if len(asked) != 0 || ctx.Err() != nil {
		t.Fatalf("no timeout: clock asked for %v, ctx err %v", asked, ctx.Err())
	}
	ctx, cancel = (&keySources{ctx: t.Context(), timeout: 3 * time.Second, afterFunc: after}).callContext()
	defer cancel()
	if len(asked) != 1 || asked[0] != 3*time.Second {
		t.Fatalf("clock asked for %v, want [3s]", asked)
	}
	fire()
	if ctx.Err() == nil || context.Cause(ctx) != errKeyServiceBound {
		t.Fatalf("after the bound: err %v", ctx.Err())
	}
}

// TestAgeIdentitiesOutliveTheKeyFileOnceTheyDecrypted: a Decryptor loads an
// age recipient's identities once and keeps them after their first
// successful decryption, so a later document of the same recipient still
// decrypts when SOPS_AGE_KEY_FILE no longer names the key (the file is read
// once per load, not once per document); a new Decryptor reads the variable
// again and fails.
func TestAgeIdentitiesOutliveTheKeyFileOnceTheyDecrypted(t *testing.T) {
	d := New(t.Context(), Options{KeyServices: defaultAllow})
	if _, e := d.Decrypt(fixture(t, cur+"/good.sops.json"), model.JSON); e != nil {
		t.Fatalf("first document: %v", e)
	}
	t.Setenv(sopsage.SopsAgeKeyFileEnv, filepath.Join(t.TempDir(), "absent"))
	if _, e := d.Decrypt(fixture(t, cur+"/good.sops.yaml"), model.YAML); e != nil {
		t.Fatalf("same Decryptor, key file gone: %v, want the remembered identities to decrypt", e)
	}
	if _, e := New(t.Context(), Options{KeyServices: defaultAllow}).Decrypt(fixture(t, cur+"/good.sops.yaml"), model.YAML); e == nil {
		t.Fatal("a new Decryptor decrypted without a key file")
	}
}

// TestAgeFailureIsNotRemembered: a document that no identity opened (the
// key file missing) does not stop the same Decryptor from decrypting the
// next one once the key is there: only a success is remembered.
func TestAgeFailureIsNotRemembered(t *testing.T) {
	key := os.Getenv(sopsage.SopsAgeKeyFileEnv)
	t.Setenv(sopsage.SopsAgeKeyFileEnv, filepath.Join(t.TempDir(), "absent"))
	d := New(t.Context(), Options{KeyServices: defaultAllow})
	if _, e := d.Decrypt(fixture(t, cur+"/good.sops.json"), model.JSON); e == nil {
		t.Fatal("decrypted without a key")
	}
	t.Setenv(sopsage.SopsAgeKeyFileEnv, key)
	if _, e := d.Decrypt(fixture(t, cur+"/good.sops.yaml"), model.YAML); e != nil {
		t.Fatalf("key back: %v", e)
	}
}

// TestKeyServiceCallsEndWithTheDecryptorsContext: a key-service call's
// context is the Decryptor's: once that ends, every call ends, with or
// without a bound of its own.
func TestKeyServiceCallsEndWithTheDecryptorsContext(t *testing.T) {
	for _, bound := range []time.Duration{0, time.Hour} {
		ctx, cancel := context.WithCancel(t.Context())
		d := New(ctx, Options{KeyServiceTimeout: bound, KeyServices: defaultAllow})
		call, end := d.src.callContext()
		if call.Err() != nil {
			t.Fatalf("bound %v: the call ended before the Decryptor's context", bound)
		}
		cancel()
		if call.Err() == nil {
			t.Errorf("bound %v: the Decryptor's context ended, the call did not", bound)
		}
		end()
	}
}
