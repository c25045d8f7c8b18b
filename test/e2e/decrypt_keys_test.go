package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// TestDecrypt_NoKeyNamesEachKeyAndWhyItFailed (SPEC §3.2): a document the
// real sops CLI encrypted to an age recipient this run holds no identity
// for, with an AWS KMS key beside it whose endpoint (a loopback stand-in)
// denies the call. plan fails (exit 3, decrypt:key-service, nothing
// written), and the log record, the plan file, show (text and Markdown)
// and validate each name the group threshold, each key with its public
// identifier (the KMS key's account masked) and why it failed; never the
// endpoint's text, the account, the encrypted data key or a value.
func TestDecrypt_NoKeyNamesEachKeyAndWhyItFailed(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	other, err := newRecipient()
	require.NoError(t, err)
	f.writeDoc("secrets/zz-other.sops.yaml", "password: CANARY-other-"+token(6)+"\n", other)
	const arn = "arn:aws:kms:us-east-1:999999999999:key/0b5c7c1e-2f4a-4c1e-9a51-4f2b8e1c5a90"
	entry := kmsRoleEntry()
	delete(entry, "role")
	f.plantKey("secrets/zz-other.sops.yaml", "kms", entry, false)
	f.Names = append(f.Names, "zz-other", f.Prefix+"/zz-other")
	f.commit("a document for a key the runner lacks, and a KMS key it may not use")

	const canary = "CANARY-kms-text-5521"
	kms := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"__type":"AccessDeniedException","message":"` + canary + ` User: arn:aws:iam::999999999999:user/ci"}`))
	}))
	t.Cleanup(kms.Close)
	o := runOpts{Env: []string{"AWS_ENDPOINT_URL_KMS=" + kms.URL}}

	want := []string{
		"1 of 1 key group needed, 0 opened; group 1: ",
		"AWS KMS arn:aws:kms:us-east-1:************:key/0b5c7c1e-2f4a-4c1e-9a51-4f2b8e1c5a90 (access denied)",
		"age " + other + " (no identity held)",
	}
	never := []string{canary, "999999999999", entry["enc"], "user/ci", "-----BEGIN"}
	check := func(where, out string) {
		t.Helper()
		for _, w := range want {
			assert.Contains(t, out, w, where)
		}
		for _, n := range never {
			assert.NotContains(t, out, n, where)
		}
	}

	r, v, raw := f.runPlan(e, o, f.args("plan")...)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	rec := desiredRejection(t, r)
	assert.Equal(t, "decrypt:key-service", rec["error_class"])
	check("log", r.Stdout+r.Stderr)
	require.NotEmpty(t, v.Scopes)
	var summaries []string
	for _, d := range append(v.Diagnostics, v.Scopes[0].Diagnostics...) {
		summaries = append(summaries, d.Summary)
	}
	check("plan file", strings.Join(summaries, "\n"))
	check("plan file (raw)", string(raw))
	text, md := f.showBoth(e, raw)
	check("show", text)
	check("show --format markdown", md)
	e.onlyReads("a document no key opened writes nothing")

	cmd, _ := f.cmd(nil, o, f.args("validate")...)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "validate fails on the document\n%s", out)
	check("validate", string(out))
}
