package decryptor

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getsops/sops/v3"
	sopsage "github.com/getsops/sops/v3/age"
	"github.com/getsops/sops/v3/azkv"
	"github.com/getsops/sops/v3/gcpkms"
	"github.com/getsops/sops/v3/hcvault"
	"github.com/getsops/sops/v3/kms"
	"github.com/getsops/sops/v3/pgp"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// TestAllowedKeysDropsWhatTheListDoesNotCover: under the default list only
// age, PGP and a KMS key without role or profile stay; groups keep their
// places; a document whose groups no longer reach the threshold has no
// usable key.
func TestAllowedKeysDropsWhatTheListDoesNotCover(t *testing.T) {
	arn := "arn:aws:kms:eu-west-1:111122223333:key/k"
	age := &sopsage.MasterKey{Recipient: "age1x"}
	groups := []sops.KeyGroup{
		{
			&hcvault.MasterKey{VaultAddress: "https://attacker.example:8200", EnginePath: "transit", KeyName: "k"},
			&kms.MasterKey{Arn: arn, Role: "arn:aws:iam::999999999999:role/x"},
			&kms.MasterKey{Arn: arn, AwsProfile: "admin"},
			&azkv.MasterKey{VaultURL: "https://attacker.vault.azure.net", Name: "k", Version: "1"},
			&gcpkms.MasterKey{ResourceID: "projects/p/locations/l/keyRings/r/cryptoKeys/k"},
			age,
		},
		{&pgp.MasterKey{Fingerprint: "ABCD"}, &kms.MasterKey{Arn: arn}},
	}
	kept, dropped := allowedKeys(groups, defaultAllow)
	if dropped != 5 || len(kept) != 2 || len(kept[0]) != 1 || kept[0][0] != age || len(kept[1]) != 2 {
		t.Fatalf("dropped %d, kept %v", dropped, kept)
	}
	if !enoughGroups(kept, 2) {
		t.Fatal("both groups still have a key")
	}

	vaultOnly := []sops.KeyGroup{{&hcvault.MasterKey{VaultAddress: "https://attacker.example:8200", EnginePath: "transit", KeyName: "k"}}}
	kept, _ = allowedKeys(vaultOnly, defaultAllow)
	if enoughGroups(kept, 0) {
		t.Fatal("a single group left empty has no usable key")
	}
	allowVault, err := model.ParseKeyServices("age,vault=https://attacker.example:8200")
	if err != nil {
		t.Fatal(err)
	}
	if kept, _ = allowedKeys(vaultOnly, allowVault); !enoughGroups(kept, 0) {
		t.Fatal("an allowed Vault address is kept")
	}

	// Shamir: three groups, threshold 2; the list empties two of them.
	shamir := []sops.KeyGroup{{age}, {&hcvault.MasterKey{VaultAddress: "https://a:1", EnginePath: "transit", KeyName: "k"}}, {&gcpkms.MasterKey{ResourceID: "x"}}}
	kept, _ = allowedKeys(shamir, defaultAllow)
	if len(kept) != 3 || enoughGroups(kept, 2) || !enoughGroups(kept, 1) {
		t.Fatalf("threshold counting: %v", kept)
	}
}

// TestKeyNotAllowedContactsNothing: a real fixture whose only key is
// dropped fails with decrypt:key-not-allowed before any key is tried.
func TestKeyNotAllowedContactsNothing(t *testing.T) {
	noAge, err := model.ParseKeyServices("pgp")
	if err != nil {
		t.Fatal(err)
	}
	d := New(t.Context(), Options{KeyServices: noAge})
	_, e := d.Decrypt(fixture(t, cur+"/good.sops.json"), model.JSON)
	if e == nil || e.Class != diag.DecryptKeyNotAllowed {
		t.Fatalf("got %v, want decrypt:key-not-allowed", e)
	}
	if _, e := New(t.Context(), Options{KeyServices: defaultAllow}).Decrypt(fixture(t, cur+"/good.sops.json"), model.JSON); e != nil {
		t.Fatalf("default list: %v", e)
	}
}

// TestRegression_VaultKeyPathLeavesTransit: the Vault server is allowed,
// but engine_path and key_name, which the document chooses, decide the
// path SOPS writes the data key to with the runner's VAULT_TOKEN
// (path.Join(engine_path, "decrypt", key_name)). An entry whose path is
// not a transit decrypt endpoint is dropped like a key of a service the
// list does not allow, so nothing is written elsewhere on the server.
func TestRegression_VaultKeyPathLeavesTransit(t *testing.T) {
	allowVault, err := model.ParseKeyServices("age,vault=https://vault.internal:8200")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ engine, key string }{
		{"transit", "../../secret/data/app"},
		{"transit", ".."},
		{"transit", "a/b"},
		{"transit/../sys", "k"},
		{"../secret", "k"},
		{"/transit", "k"},
		{"transit/", "k"},
		{"", "k"},
		{"transit", ""},
		{"transit", "k?x=1"},
	} {
		g := []sops.KeyGroup{{&hcvault.MasterKey{VaultAddress: "https://vault.internal:8200", EnginePath: c.engine, KeyName: c.key}}}
		if kept, dropped := allowedKeys(g, allowVault); dropped != 1 || enoughGroups(kept, 0) {
			t.Errorf("engine_path %q key_name %q: kept", c.engine, c.key)
		}
	}
	for _, c := range []struct{ engine, key string }{{"transit", "k"}, {"sops/transit", "app-key.v2"}, {"transit", "a"}} {
		g := []sops.KeyGroup{{&hcvault.MasterKey{VaultAddress: "https://vault.internal:8200", EnginePath: c.engine, KeyName: c.key}}}
		if _, dropped := allowedKeys(g, allowVault); dropped != 0 {
			t.Errorf("engine_path %q key_name %q: dropped", c.engine, c.key)
		}
	}
}

// TestRegression_AzureKeyNameLeavesItsKey: the vault is allowed, but the
// key's name and version, which the document chooses, are parts of the
// request path that the Azure SDK escapes without touching "." and "..",
// so "/keys/../x/decrypt" would carry the runner's Azure token to another
// path of the vault. Names and versions that are not Key Vault object
// names are dropped like a key of a service the list does not allow.
func TestRegression_AzureKeyNameLeavesItsKey(t *testing.T) {
	allow, err := model.ParseKeyServices("age,azure-kv=https://mine.vault.azure.net")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, version string }{
		{"..", "x"}, {".", "x"}, {"k", ".."}, {"k", "."}, {"", "x"}, {"a/b", ""}, {"k", "a/b"}, {"k_1", ""},
	} {
		g := []sops.KeyGroup{{&azkv.MasterKey{VaultURL: "https://mine.vault.azure.net", Name: c.name, Version: c.version}}}
		if kept, dropped := allowedKeys(g, allow); dropped != 1 || enoughGroups(kept, 0) {
			t.Errorf("name %q version %q: kept", c.name, c.version)
		}
	}
	for _, c := range []struct{ name, version string }{
		{"sops-key", "0123456789abcdef0123456789abcdef"}, {"k", ""},
	} {
		g := []sops.KeyGroup{{&azkv.MasterKey{VaultURL: "https://mine.vault.azure.net", Name: c.name, Version: c.version}}}
		if _, dropped := allowedKeys(g, allow); dropped != 0 {
			t.Errorf("name %q version %q: dropped", c.name, c.version)
		}
	}
}

// TestNoKeySaysWhenTheListDroppedKeys: a document the run's age key cannot
// open is decrypt:no-key; when --key-services also dropped a key of the
// document (here its AWS KMS key), the summary says so, since allowing
// that service is then a possible fix, and without a dropped key it does
// not.
func TestNoKeySaysWhenTheListDroppedKeys(t *testing.T) {
	t.Setenv(sopsage.SopsAgeKeyFileEnv, mustAbs(t, filepath.Join(testdata, "keys", "age-other.txt")))
	onlyAge, err := model.ParseKeyServices("age")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(fixture(t, cur+"/good.sops.json"), &doc); err != nil {
		t.Fatal(err)
	}
	plain, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	doc["sops"].(map[string]any)["kms"] = []any{map[string]any{"arn": "arn:aws:kms:eu-west-2:111122223333:key/6a3c1d52-4c8e-4a51-9d0e-2f7b8e1c5a90",
		"enc": "AQID", "created_at": "2026-11-30T13:39:02Z", "aws_profile": ""}}
	withKMS, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	const dropped = "not contacted"
	d := New(t.Context(), Options{KeyServices: onlyAge})
	if _, e := d.Decrypt(withKMS, model.JSON); e == nil || e.Class != diag.DecryptNoKey || !strings.Contains(e.Summary, dropped) {
		t.Fatalf("KMS key dropped: got %v, want %s saying a key was %s", e, diag.DecryptNoKey, dropped)
	}
	if _, e := d.Decrypt(plain, model.JSON); e == nil || e.Class != diag.DecryptNoKey || strings.Contains(e.Summary, dropped) {
		t.Fatalf("nothing dropped: got %v, want %s without %q", e, diag.DecryptNoKey, dropped)
	}
}
