package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Whole-value documents (SPEC §3.1) with the real binary, documents
// encrypted by the real sops CLI (which writes .sops.txt and .sops.bin in
// its binary store), real Git and the emulator: the value AWS holds is the
// decrypted file, byte for byte.

// readBack reads name's AWSCURRENT value with the SDK.
func (e *emu) readBack(name string) *secretsmanager.GetSecretValueOutput {
	e.t.Helper()
	out, err := e.sdk().GetSecretValue(context.Background(), &secretsmanager.GetSecretValueInput{SecretId: aws.String(name)})
	require.NoError(e.t, err)
	return out
}

// requireText asserts that name's current version holds exactly text as
// SecretString and no SecretBinary, through the SDK and in the emulator's
// state.
func (e *emu) requireText(name, text string) {
	e.t.Helper()
	out := e.readBack(name)
	require.NotNil(e.t, out.SecretString, "%s holds no SecretString", name)
	require.Equal(e.t, []byte(text), []byte(*out.SecretString), "%s: SecretString is not the file byte for byte", name)
	require.Nil(e.t, out.SecretBinary)
	require.Equal(e.t, text, e.currentValue(name))
}

// requireBinary asserts that name's current version holds exactly b as
// SecretBinary and no SecretString.
func (e *emu) requireBinary(name string, b []byte) {
	e.t.Helper()
	out := e.readBack(name)
	require.Nil(e.t, out.SecretString, "%s holds a SecretString", name)
	require.Equal(e.t, b, out.SecretBinary, "%s: SecretBinary is not the file byte for byte", name)
	s := e.secret(name)
	require.NotNil(e.t, s)
	for _, v := range s.Versions {
		for _, st := range v.Stages {
			if st == "AWSCURRENT" {
				require.Equal(e.t, b, v.SecretBinary)
			}
		}
	}
}

// moveDoc renames a committed document (git mv): the same encrypted file
// under another suffix.
func (f *fixture) moveDoc(from, to string) {
	f.t.Helper()
	f.git("mv", from, to)
	f.Names = append(f.Names, strings.TrimPrefix(to, "secrets/"))
}

// opsOf returns v's operations whose resource is name.
func opsOf(v planview.View, name string) []planview.Op {
	return byResource(v)[name]
}

func TestWholeValues_CreateNoOpEditSwitchKindDelete(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	// A PEM certificate with CRLF line ends and a trailing CRLF, a PEM key
	// with LF and a trailing newline, a keystore of bytes that are not
	// UTF-8 (NUL, 0xff, a lone byte-order mark inside).
	cert := "-----BEGIN CERTIFICATE-----\r\nMIIBkTCB+wIJAKHBfpegPjMCMA0GCSqGSIb3DQEBCwUAMBExDzANBgNVBAMMBkNB\r\nCANARY-cert-" + tok + "\r\n-----END CERTIFICATE-----\r\n"
	key := "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+CANARY-key-" + tok + "\n-----END PRIVATE KEY-----\n"
	keystore := make([]byte, 3000)
	_, err := rand.Read(keystore)
	require.NoError(t, err)
	copy(keystore, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0xff, 0xef, 0xbb, 0xbf, '\r', '\n'})
	keystore = append(keystore, []byte("CANARY-ks-"+tok+"\x00")...)

	certName := f.addDoc("tls/cert", ".sops.txt", cert)
	keyName := f.addDoc("tls/key", ".sops.txt", key)
	ksName := f.addDoc("keystore", ".sops.bin", string(keystore))
	jsonName := f.addDoc("app", ".sops.json", `{"password": "CANARY-app-`+tok+`"}`)
	f.commit("whole values")

	// Plan: each whole value is a create of a "whole value", no keys.
	r, v, _ := f.runPlan(e, runOpts{ShowNames: true}, f.args("plan", "--show-resource-names", "--log-format", "text")...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 4})
	for _, n := range []string{certName, keyName, ksName} {
		require.Len(t, opsOf(v, n), 1)
		o := opsOf(v, n)[0]
		assert.Equal(t, vocab.ActionCreate, o.Action, n)
		assert.Equal(t, vocab.KeysWholeValue, o.KeysUnavailable, n)
		assert.Nil(t, o.Keys, n)
		assert.Contains(t, r.Stdout, "  + "+n+" create: whole value (not in AWS)\n")
	}
	assert.Zero(t, e.mutatingCalls(), "plan is read-only")

	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 4})
	e.requireText(certName, cert)
	e.requireText(keyName, key)
	e.requireBinary(ksName, keystore)
	assert.Equal(t, `{"password":"CANARY-app-`+tok+`"}`, e.currentValue(jsonName))

	// No-op: nothing written, nothing planned.
	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 4})
	assert.Equal(t, before, e.mutatingCalls(), "a no-op sync writes nothing")

	// Edit: the key gains one trailing newline (a change no parser would
	// see), the certificate's CRLF become LF. The plan says "whole value
	// changed" and nothing about lengths.
	key2, cert2 := key+"\n", strings.ReplaceAll(cert, "\r\n", "\n")
	f.addDoc("tls/key", ".sops.txt", key2)
	f.addDoc("tls/cert", ".sops.txt", cert2)
	f.commit("edit")
	r, v, _ = f.runPlan(e, runOpts{}, f.args("plan", "--log-format", "text")...)
	assert.Equal(t, vocab.Counts{Update: 2, Unchanged: 2}, v.Scopes[0].Counts)
	assert.Equal(t, 2, strings.Count(r.Stdout, "update: whole value changed (value differs)\n"), r.Stdout)
	assert.NotContains(t, r.Stdout, "bytes")
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 2, Unchanged: 2})
	e.requireText(keyName, key2)
	e.requireText(certName, cert2)

	// Switch kind: the certificate becomes a .sops.bin (same bytes, now
	// SecretBinary), then a .sops.txt again; each switch is one update.
	f.moveDoc("secrets/tls/cert.sops.txt", "secrets/tls/cert.sops.bin")
	f.commit("certificate as binary")
	r, v, _ = f.runPlan(e, runOpts{ShowNames: true}, f.args("plan", "--show-resource-names", "--log-format", "text")...)
	require.Len(t, opsOf(v, certName), 1)
	assert.Equal(t, vocab.ReasonStoredValueString, opsOf(v, certName)[0].Reason)
	assert.Contains(t, r.Stdout, "  ~ "+certName+" update: whole value changed (stored value is a string)\n")
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 3})
	e.requireBinary(certName, []byte(cert2))

	f.moveDoc("secrets/tls/cert.sops.bin", "secrets/tls/cert.sops.txt")
	f.commit("certificate as text again")
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 1, Unchanged: 3})
	e.requireText(certName, cert2)
	assert.Len(t, e.secret(certName).Versions, 4, "create, edit, two switches: one version each")

	// Delete: the key and the keystore are scheduled for deletion.
	f.removeDoc("secrets/tls/key.sops.txt")
	f.removeDoc("secrets/keystore.sops.bin")
	f.commit("remove two")
	r = f.run(e, runOpts{}, f.args("sync", "--recovery-window-days", "7")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 2, Unchanged: 2})
	for _, n := range []string{keyName, ksName} {
		require.NotNil(t, e.secret(n).DeletedDate, n)
	}
}

// sopsJSON encrypts the JSON plaintext with the real sops CLI in its JSON
// store with extra arguments and writes the result to rel: how a test
// makes the binary-store envelope an older sops wrote when an
// encrypted_suffix or unencrypted_regex setting applied to a binary file
// (getsops/sops#986): {"data": "<clear text>", "sops": {…}}, MAC valid.
func (f *fixture) sopsJSON(rel, plainJSON string, args ...string) {
	f.t.Helper()
	in := filepath.Join(f.t.TempDir(), "plain.json")
	require.NoError(f.t, os.WriteFile(in, []byte(plainJSON), 0o600))
	cmd := exec.Command(sopsBin, append(append([]string{"--disable-version-check", "encrypt", "--input-type", "json", "--output-type", "json", "--age", f.recip}, args...), in)...)
	cmd.Dir = f.Repo
	cmd.Env = f.env()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	require.NoError(f.t, cmd.Run(), stderr.String())
	require.NoError(f.t, os.WriteFile(filepath.Join(f.Repo, filepath.FromSlash(rel)), out.Bytes(), 0o600))
}

// TestExit3_WholeValuesRefusedAtPlanning: a 65,537-byte file, a data field
// SOPS left in clear text (with a valid MAC: the sops CLI itself decrypts
// it), an empty file, text that is not UTF-8 and text with a byte-order
// mark are each exit 3 with their class, every one reported in one run,
// with zero AWS calls and the clear text never printed; a whole-value
// document and a JSON document of the same stem are a name collision.
func TestExit3_WholeValuesRefusedAtPlanning(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	tok := token(4)
	big := strings.Repeat("CANARY-big-"+tok+"\n", 65537/17+1)[:65537]
	f.addDoc("a-big", ".sops.txt", big)
	clear := "CANARY-clear-" + tok + "\n"
	f.sopsJSON("secrets/b-clear.sops.bin", `{"data":"`+strings.TrimSuffix(clear, "\n")+`\n"}`, "--unencrypted-regex", "^data$")
	f.Values = append(f.Values, canaryIn(clear))
	f.Names = append(f.Names, "b-clear.sops.bin", f.nameOf("secrets/b-clear.sops.bin"))
	raw, err := os.ReadFile(filepath.Join(f.Repo, "secrets", "b-clear.sops.bin"))
	require.NoError(t, err)
	require.Contains(t, string(raw), clear[:len(clear)-1], "the fixture holds its value in clear text")
	f.writeDoc("secrets/c-empty.sops.bin", "", "") // sops writes "data": "" (it never encrypts an empty string)
	f.Names = append(f.Names, "c-empty.sops.bin", f.nameOf("secrets/c-empty.sops.bin"))
	f.addDoc("d-latin1", ".sops.txt", "caf\xe9 CANARY-l1-"+tok)
	f.addDoc("e-bom", ".sops.txt", "\xef\xbb\xbf-----BEGIN CANARY-bom-"+tok)
	f.addDoc("f-good", ".sops.txt", "CANARY-good-"+tok)
	f.commit("five invalid whole values")
	want := []string{"plaintext:too-large", "decrypt:cleartext-value", "plaintext:empty", "plaintext:not-utf8", "plaintext:bom"}

	for _, cmd := range []string{"plan", "sync"} {
		r, v, _ := f.runPlan(e, runOpts{}, f.args(cmd)...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
		e.onlyReads(cmd, ": no write")
		var logged, subjects []string
		for _, rec := range r.records(t) {
			if c, ok := rec["error_class"].(string); ok && rec["phase"] == "plan" {
				logged = append(logged, c)
				subjects = append(subjects, rec["resource"].(string))
			}
		}
		assert.Equal(t, want, logged, cmd)
		assert.Equal(t, []string{"resource-0001", "resource-0002", "resource-0003", "resource-0004", "resource-0005"}, subjects)
		var filed []string
		for _, d := range v.Scopes[0].Diagnostics {
			filed = append(filed, d.Class)
			assert.NotEmpty(t, d.Next, d.Class)
		}
		assert.Equal(t, want, filed)
	}

	// A name collision across kinds, found before anything is decrypted.
	f.removeDoc("secrets/a-big.sops.txt")
	f.removeDoc("secrets/b-clear.sops.bin")
	f.removeDoc("secrets/c-empty.sops.bin")
	f.removeDoc("secrets/d-latin1.sops.txt")
	f.removeDoc("secrets/e-bom.sops.txt")
	f.addDoc("f-good", ".sops.json", `{"v": "CANARY-json-`+tok+`"}`)
	f.commit("f-good twice")
	before := e.stats().Calls
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] != nil && m["phase"] == "plan" })
	require.NotNil(t, rec, r.Stdout)
	assert.Equal(t, "name:collision", rec["error_class"])
	assert.Equal(t, before, e.stats().Calls, "a structural failure is found before any AWS call")
}
