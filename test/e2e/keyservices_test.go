package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// recorder is a loopback HTTP server that records every request it gets and
// refuses it (403, which neither the Vault client nor the AWS SDK retries
// as a transient failure). It stands in for a key service a pull request
// author controls.
type recorder struct {
	*httptest.Server
	mu     sync.Mutex
	tokens []string // the X-Vault-Token header of each request ("" if none)
	auths  []string // the Authorization header of each request
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.tokens = append(r.tokens, req.Header.Get("X-Vault-Token"))
		r.auths = append(r.auths, req.Header.Get("Authorization"))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"errors":["permission denied"]}`))
	}))
	t.Cleanup(r.Close)
	return r
}

// requests is how many requests reached the recorder so far.
func (r *recorder) requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.tokens)
}

func (r *recorder) sawToken(token string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range r.tokens {
		if v == token {
			return true
		}
	}
	return false
}

// plantKey edits the sops metadata of the YAML document at rel (written by
// the real sops CLI): it appends entry to the list named kind ("hc_vault",
// "kms", …) and, with onlyThat, removes the age entries, so that the
// planted key is the document's only one. SOPS's MAC covers the values,
// not the key groups, so the document still verifies: exactly what a pull
// request author can do to a document encrypted to the repository's key.
func (f *fixture) plantKey(rel, kind string, entry map[string]string, onlyThat bool) {
	f.t.Helper()
	p := filepath.Join(f.Repo, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	require.NoError(f.t, err)
	var root yaml.Node
	require.NoError(f.t, yaml.Unmarshal(b, &root))
	top := root.Content[0]
	var meta *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "sops" {
			meta = top.Content[i+1]
		}
	}
	require.NotNil(f.t, meta, "no sops metadata in %s", rel)
	item := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range []string{"vault_address", "engine_path", "key_name", "arn", "role", "aws_profile", "created_at", "enc"} {
		if v, ok := entry[k]; ok {
			item.Content = append(item.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
		}
	}
	var kept []*yaml.Node
	placed := false
	for i := 0; i+1 < len(meta.Content); i += 2 {
		key, val := meta.Content[i], meta.Content[i+1]
		if onlyThat && key.Value == "age" {
			continue
		}
		if key.Value == kind {
			val.Content = append(val.Content, item)
			placed = true
		}
		kept = append(kept, key, val)
	}
	if !placed {
		kept = append(kept, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: kind},
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{item}})
	}
	meta.Content = kept
	out, err := yaml.Marshal(&root)
	require.NoError(f.t, err)
	require.NoError(f.t, os.WriteFile(p, out, 0o600))
}

const vaultTokenCanary = "hvs.CANARY-vault-token-e2e"

func vaultEntry(addr string) map[string]string {
	return map[string]string{"vault_address": addr, "engine_path": "transit", "key_name": "sops",
		"created_at": "2026-01-01T00:00:00Z", "enc": "vault:v1:bm90IGEgcmVhbCBkYXRhIGtleQ=="}
}

func kmsRoleEntry() map[string]string {
	return map[string]string{"arn": "arn:aws:kms:us-east-1:999999999999:key/0b5c7c1e-2f4a-4c1e-9a51-4f2b8e1c5a90",
		"role": "arn:aws:iam::999999999999:role/planted", "created_at": "2026-01-01T00:00:00Z",
		"enc": "bm90IGEgcmVhbCBkYXRhIGtleQ=="}
}

// TestKeyServices_PlantedVaultStanzaIsNeverContacted: a pull request adds
// an hc_vault entry naming its own address beside the repository's age
// key. By default the address gets no request (so the runner's
// VAULT_TOKEN goes nowhere) and age decrypts; with the address allowed
// by --key-services it is contacted, with the token; a document whose only
// key is not allowed is decrypt:key-not-allowed (exit 3) with zero AWS
// calls and no request.
func TestKeyServices_PlantedVaultStanzaIsNeverContacted(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	vault := newRecorder(t)
	env := runOpts{Env: []string{"VAULT_TOKEN=" + vaultTokenCanary}}
	f.addDoc("planted", ".sops.yaml", "password: CANARY-ks-"+token(6)+"\n")
	f.plantKey("secrets/planted.sops.yaml", "hc_vault", vaultEntry(vault.URL), false)
	f.commit("a document with a planted Vault key")

	r := f.run(e, env, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	assert.Zero(t, vault.requests(), "the planted Vault address must never be contacted by default")
	assert.NotContains(t, r.Stdout+r.Stderr+string(r.RawReport), vaultTokenCanary)

	r = f.run(e, env, f.args("plan", "--key-services", "age,vault="+vault.URL)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	assert.Positive(t, vault.requests(), "an allowed Vault address is contacted")
	assert.True(t, vault.sawToken(vaultTokenCanary), "premise: what the allow-list prevents is the runner's token reaching the address")

	before := vault.requests()
	f.addDoc("vault-only", ".sops.yaml", "password: CANARY-ks-"+token(6)+"\n")
	f.plantKey("secrets/vault-only.sops.yaml", "hc_vault", vaultEntry(vault.URL), true)
	f.commit("a document whose only key is a planted Vault key")
	fresh := startEmulator(t)
	r = f.run(fresh, env, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := desiredRejection(t, r)
	assert.Equal(t, "decrypt:key-not-allowed", rec["error_class"])
	assert.Contains(t, rec["msg"], "--key-services", "the next action names the setting")
	fresh.onlyReads("no write, no STS: only the observation's reads")
	assert.Equal(t, before, vault.requests(), "a disallowed key is not contacted even when it is the only one")
}

// TestRegression_VaultKeyPathLeavesTransit: with the Vault server
// allowed, a planted hc_vault entry whose key_name climbs out of the
// transit engine ("../../secret/data/app": SOPS writes the data key to
// path.Join(engine_path, "decrypt", key_name) with the runner's
// VAULT_TOKEN) is dropped: the server gets no request and age decrypts.
func TestRegression_VaultKeyPathLeavesTransit(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	vault := newRecorder(t)
	env := runOpts{Env: []string{"VAULT_TOKEN=" + vaultTokenCanary}}
	entry := vaultEntry(vault.URL)
	entry["key_name"] = "../../secret/data/app"
	f.addDoc("planted", ".sops.yaml", "password: CANARY-ks-"+token(6)+"\n")
	f.plantKey("secrets/planted.sops.yaml", "hc_vault", entry, true)
	f.commit("a document whose only key writes outside the transit engine")

	r := f.run(e, env, f.args("plan", "--key-services", "age,vault="+vault.URL)...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Equal(t, "decrypt:key-not-allowed", desiredRejection(t, r)["error_class"])
	assert.Zero(t, vault.requests(), "no write reaches the allowed server outside its transit decrypt path")
}

// TestKeyServices_PlantedKMSRoleIsNeverAssumed: the same for an AWS KMS
// entry carrying a role chosen by the document: by default neither STS
// (AssumeRole) nor KMS is contacted and age decrypts; allowed with
// aws-kms-role, STS is contacted; as the only key, decrypt:key-not-allowed
// with zero AWS calls.
func TestKeyServices_PlantedKMSRoleIsNeverAssumed(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	aws := newRecorder(t)
	env := runOpts{Env: []string{"AWS_ENDPOINT_URL_KMS=" + aws.URL, "AWS_ENDPOINT_URL_STS=" + aws.URL}}
	f.addDoc("planted", ".sops.yaml", "password: CANARY-ks-"+token(6)+"\n")
	f.plantKey("secrets/planted.sops.yaml", "kms", kmsRoleEntry(), false)
	f.commit("a document with a planted KMS key and role")

	r := f.run(e, env, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 1})
	assert.Zero(t, aws.requests(), "the planted role must never be assumed, the planted key never called")

	r = f.run(e, env, f.args("plan", "--key-services", "age,aws-kms,aws-kms-role=arn:aws:iam::999999999999:role/*")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 1})
	assert.Positive(t, aws.requests(), "an allowed role is assumed (STS contacted)")

	before := aws.requests()
	f.addDoc("kms-only", ".sops.yaml", "password: CANARY-ks-"+token(6)+"\n")
	f.plantKey("secrets/kms-only.sops.yaml", "kms", kmsRoleEntry(), true)
	f.commit("a document whose only key is a KMS key with a planted role")
	fresh := startEmulator(t)
	r = f.run(fresh, env, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	assert.Equal(t, "decrypt:key-not-allowed", desiredRejection(t, r)["error_class"])
	fresh.onlyReads("no write, no STS: only the observation's reads")
	assert.Equal(t, before, aws.requests())
}
