package e2e

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/cli/command"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// Issue 34 (SPEC §15) with the real binary, real SOPS documents and real
// Git: validate checks every document without AWS.

// awsStandIn is a TCP listener standing in for every AWS endpoint
// (Secrets Manager, STS, KMS, the instance metadata service): it counts
// the connections made to it and closes each at once.
type awsStandIn struct {
	URL   string
	conns atomic.Int64
}

func newAWSStandIn(t *testing.T) *awsStandIn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	a := &awsStandIn{URL: "http://" + ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.conns.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return a
}

// env points every AWS endpoint of the SDK at the stand-in.
func (a *awsStandIn) env() []string {
	return []string{
		"AWS_ENDPOINT_URL=" + a.URL, "AWS_ENDPOINT_URL_STS=" + a.URL,
		"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + a.URL, "AWS_ENDPOINT_URL_KMS=" + a.URL,
		"AWS_EC2_METADATA_SERVICE_ENDPOINT=" + a.URL,
	}
}

// validateRun runs validate with the fixture's prefix and repository id,
// --plan-file and --report-file, every AWS endpoint at a; noKey removes
// the age key from the environment (a contributor without keys). It
// returns the run and the plan file, read strictly.
func (f *fixture) validateRun(a *awsStandIn, o runOpts, noKey bool, extra ...string) (result, planview.View) {
	f.t.Helper()
	dir := f.t.TempDir()
	planPath, reportPath := filepath.Join(dir, "plan.json"), filepath.Join(dir, "report.json")
	args := f.args("validate", append([]string{"--plan-file", planPath, "--report-file", reportPath}, extra...)...)
	o.Env = append(append([]string{}, o.Env...), a.env()...)
	cmd, _ := f.cmd(nil, o, args...)
	if noKey {
		var env []string
		for _, kv := range cmd.Env {
			if !strings.HasPrefix(kv, "SOPS_AGE_KEY_FILE=") {
				env = append(env, kv)
			}
		}
		cmd.Env = env
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := f.finish(nil, o, cmd, err, stdout.String(), stderr.String(), reportPath)
	v, perr := planview.ReadFile(planPath)
	require.NoError(f.t, perr, "plan file\nstdout:\n%s\nstderr:\n%s", r.Stdout, r.Stderr)
	raw, _ := os.ReadFile(planPath)
	f.scan(nil, o, result{Stdout: string(raw)})
	return r, v
}

// classesOf lists the classes of a view's scope diagnostics (errors and
// warnings) and of the run's, in order.
func classesOf(v planview.View) (scope, run []string) {
	for _, s := range v.Scopes {
		for _, d := range s.Diagnostics {
			scope = append(scope, d.Class+" "+d.Subject)
		}
	}
	for _, d := range v.Diagnostics {
		run = append(run, d.Class)
	}
	return scope, run
}

// writePlain commits text at rel unencrypted (a CANARY in it).
func (f *fixture) writePlain(rel, text string) {
	f.t.Helper()
	p := filepath.Join(f.Repo, filepath.FromSlash(rel))
	require.NoError(f.t, os.MkdirAll(filepath.Dir(p), 0o700))
	require.NoError(f.t, os.WriteFile(p, []byte(text), 0o600))
	f.Values = append(f.Values, canaryIn(text))
}

// clearOneValue replaces the first encrypted value of the YAML document at
// rel by clear text: a partially encrypted file.
func (f *fixture) clearOneValue(rel, text string) {
	f.t.Helper()
	p := filepath.Join(f.Repo, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	require.NoError(f.t, err)
	re := regexp.MustCompile(`(?m)^(\w+): ENC\[[^\]]*\]`)
	require.True(f.t, re.Match(b), "premise: an encrypted top-level value in %s", rel)
	done := false
	b = re.ReplaceAllFunc(b, func(m []byte) []byte {
		if done {
			return m
		}
		done = true
		return append(re.FindSubmatch(m)[1], []byte(": "+text)...)
	})
	require.NoError(f.t, os.WriteFile(p, b, 0o600))
	f.Values = append(f.Values, canaryIn(text))
}

// tamper changes one character of the first ciphertext of the JSON
// document at rel (the data key and MAC untouched).
func (f *fixture) tamper(rel string) {
	f.t.Helper()
	p := filepath.Join(f.Repo, filepath.FromSlash(rel))
	b, err := os.ReadFile(p)
	require.NoError(f.t, err)
	i := strings.Index(string(b), "ENC[AES256_GCM,data:") + len("ENC[AES256_GCM,data:")
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	require.NoError(f.t, os.WriteFile(p, b, 0o600))
}

// TestValidate_ReproducesEveryBadInputClassOfPlan: at a commit with
// structurally invalid documents (invalid name, collision, symlink, too
// large) and at one with documents that fail decryption or the plaintext
// rules (no key, not encrypted, partially encrypted, tampered, duplicate
// key, unsafe integer, a key service the allow-list forbids), validate
// with the key reports exactly the classes, documents and order plan
// reports, exits 3 as plan does, and makes zero connections to a listener
// standing in for Secrets Manager, STS and KMS; with names shown too.
func TestValidate_ReproducesEveryBadInputClassOfPlan(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	a := newAWSStandIn(t)
	f.standardDocs()

	// The commit whose documents are structurally invalid.
	f.addDoc("x-twice", ".sops.json", `{"v":"CANARY-twice-`+token(4)+`"}`)
	f.addDoc("x-twice", ".sops.yaml", "v: CANARY-twice2-"+token(4)+"\n")
	f.addDoc("bad name!", ".sops.json", `{"v":"CANARY-badname-`+token(4)+`"}`)
	require.NoError(t, os.Symlink("x-twice.sops.json", filepath.Join(f.Repo, "secrets", "y-link.sops.json")))
	f.addDoc("z-large", ".sops.json", `{"v":"CANARY-large-`+token(4)+`","pad":"`+strings.Repeat("p", 6000)+`"}`)
	f.Names = append(f.Names, "y-link")
	structural := f.commit("structurally invalid documents")

	for _, rel := range []string{"secrets/x-twice.sops.yaml", "secrets/bad name!.sops.json", "secrets/y-link.sops.json", "secrets/z-large.sops.json"} {
		f.git("rm", "-q", rel)
	}
	other, err := newRecipient()
	require.NoError(t, err)
	f.writeDoc("secrets/a-other-key.sops.json", `{"v":"CANARY-other-`+token(4)+`"}`, other)
	f.Values = append(f.Values, "CANARY-other-")
	f.writePlain("secrets/b-plain.sops.json", `{"v":"CANARY-plain-`+token(4)+`"}`)
	f.addDoc("c-dup", ".sops.json", `{"v": "CANARY-dup-`+token(4)+`", "v": "x"}`)
	f.addDoc("d-tampered", ".sops.json", `{"v":"CANARY-tamper-`+token(4)+`"}`)
	f.tamper("secrets/d-tampered.sops.json")
	f.addDoc("e-partial", ".sops.yaml", "user: CANARY-partial-"+token(4)+"\npassword: x\n")
	f.clearOneValue("secrets/e-partial.sops.yaml", "CANARY-clear-"+token(4))
	f.addDoc("f-big", ".sops.json", `{"v":"CANARY-big-`+token(4)+`","n":9007199254740993}`)
	f.addDoc("g-vault", ".sops.yaml", "v: CANARY-vault-"+token(4)+"\n")
	f.plantKey("secrets/g-vault.sops.yaml", "hc_vault", vaultEntry(a.URL), true)
	f.Names = append(f.Names, "a-other-key", "b-plain", "c-dup", "d-tampered", "e-partial", "f-big", "g-vault")
	decrypting := f.commit("documents that fail decryption or the plaintext rules")

	for _, c := range []struct {
		rev   string
		extra []string
		n     int
	}{
		{structural, []string{"--max-encrypted-bytes", "4KiB"}, 4},
		{decrypting, nil, 7},
	} {
		for _, show := range []bool{false, true} {
			extra := append([]string{"--revision", c.rev}, c.extra...)
			if show {
				extra = append(extra, "--show-resource-names")
			}
			o := runOpts{ShowNames: show}
			pr, pv, _ := f.runPlan(e, o, f.args("plan", extra...)...)
			require.Equal(t, 3, pr.Code, "plan\n%s", pr.Stdout)
			vr, vv := f.validateRun(a, o, false, extra...)
			expect(t, vr, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
			planClasses, _ := classesOf(pv)
			validClasses, runClasses := classesOf(vv)
			require.Len(t, planClasses, c.n, "plan's findings: %v", planClasses)
			assert.Equal(t, planClasses, validClasses, "validate finds what plan finds, in order")
			assert.Contains(t, runClasses, "warning:not-planned")
			assert.NotContains(t, runClasses, "warning:checks-skipped", "the key was there: nothing skipped")
			// The same log records per document as plan's.
			var logged []string
			for _, rec := range vr.records(t) {
				if cl, ok := rec["error_class"].(string); ok && rec["status"] == "invalid" {
					logged = append(logged, cl+" "+rec["resource"].(string))
				}
			}
			assert.Equal(t, planClasses, logged)
			assert.Contains(t, planview.Markdown(vv), "not-planned")
		}
	}
	assert.Zero(t, a.conns.Load(), "validate connected to the AWS stand-in")
}

// TestValidateNoDecrypt_FindsPlaintextAndPassesWithoutAKey: with no key in
// the environment, validate --no-decrypt finds a committed plaintext
// .sops.json, .sops.yaml, .sops.env, .sops.txt and .sops.bin, a partially
// encrypted file and a disallowed key service (decrypt:not-encrypted with
// the rotate advice, decrypt:key-not-allowed), a name collision at its
// own commit, passes a valid repository (exit 0, the skipped checks
// listed), and so does validate without the flag when no key opens any
// document; zero connections to the AWS stand-in throughout.
func TestValidateNoDecrypt_FindsPlaintextAndPassesWithoutAKey(t *testing.T) {
	f := newFixture(t)
	a := newAWSStandIn(t)
	f.standardDocs()
	f.addDoc("tls/cert", ".sops.txt", "-----BEGIN CERTIFICATE-----\nCANARY-cert-"+token(4)+"\n-----END CERTIFICATE-----\n")
	f.addDoc("keystore", ".sops.bin", "\x00\x01CANARY-ks-"+token(4)+"\xff")
	valid := f.commit("valid documents")

	for _, noDecrypt := range []bool{true, false} {
		var extra []string
		if noDecrypt {
			extra = []string{"--no-decrypt"}
		}
		r, v := f.validateRun(a, runOpts{}, true, append(extra, "--revision", valid)...)
		expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{})
		scope, run := classesOf(v)
		assert.Empty(t, scope)
		assert.Equal(t, []string{"warning:not-planned", "warning:checks-skipped"}, run)
		why := "--no-decrypt was given"
		if !noDecrypt {
			why = "no key could decrypt any document"
		}
		assert.Contains(t, v.Diagnostics[1].Summary, why)
		assert.Contains(t, v.Diagnostics[1].Summary, "plaintext rule")
		assert.Contains(t, planview.Markdown(v), "checks-skipped")
	}

	f.writePlain("secrets/p-json.sops.json", `{"v":"CANARY-pj-`+token(4)+`"}`)
	f.writePlain("secrets/p-yaml.sops.yaml", "v: CANARY-py-"+token(4)+"\n")
	f.writePlain("secrets/p-env.sops.env", "V=CANARY-pe-"+token(4)+"\n")
	f.writePlain("secrets/p-txt.sops.txt", "-----BEGIN PRIVATE KEY-----\nCANARY-pt-"+token(4)+"\n-----END PRIVATE KEY-----\n")
	f.writePlain("secrets/p-bin.sops.bin", "\x00\x01CANARY-pb-"+token(4)+"\xfe")
	f.addDoc("q-partial", ".sops.yaml", "user: CANARY-qp-"+token(4)+"\npassword: x\n")
	f.clearOneValue("secrets/q-partial.sops.yaml", "CANARY-qclear-"+token(4))
	f.addDoc("r-vault", ".sops.yaml", "v: CANARY-rv-"+token(4)+"\n")
	f.plantKey("secrets/r-vault.sops.yaml", "hc_vault", vaultEntry(a.URL), true)
	f.Names = append(f.Names, "p-json", "p-yaml", "p-env", "p-txt", "p-bin", "q-partial", "r-vault")
	bad := f.commit("plaintext, partial and disallowed documents")

	r, v := f.validateRun(a, runOpts{ShowNames: true}, true, "--no-decrypt", "--revision", bad, "--show-resource-names")
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	scope, run := classesOf(v)
	assert.Equal(t, []string{
		"decrypt:not-encrypted secrets/p-bin.sops.bin",
		"decrypt:not-encrypted secrets/p-env.sops.env",
		"decrypt:not-encrypted secrets/p-json.sops.json",
		"decrypt:not-encrypted secrets/p-txt.sops.txt",
		"decrypt:not-encrypted secrets/p-yaml.sops.yaml",
		"decrypt:not-encrypted secrets/q-partial.sops.yaml",
		"decrypt:key-not-allowed secrets/r-vault.sops.yaml",
	}, scope)
	assert.Equal(t, []string{"warning:not-planned", "warning:checks-skipped"}, run)
	for _, d := range v.Scopes[0].Diagnostics {
		if d.Class == "decrypt:not-encrypted" {
			assert.Contains(t, d.Next, "rotate every value", "the rotate advice")
		}
	}
	assert.Contains(t, planview.Markdown(v), "secrets/q-partial.sops.yaml")

	f.addDoc("p-json", ".sops.yaml", "v: CANARY-coll-"+token(4)+"\n")
	f.git("rm", "-q", "secrets/p-json.sops.json")
	f.addDoc("p-json", ".sops.json", `{"v":"CANARY-coll2-`+token(4)+`"}`)
	collision := f.commit("a collision")
	r, v = f.validateRun(a, runOpts{}, true, "--no-decrypt", "--revision", collision)
	expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &vocab.Counts{})
	scope, _ = classesOf(v)
	assert.Len(t, scope, 1)
	assert.True(t, strings.HasPrefix(scope[0], "name:collision "), "%v", scope)
	assert.Zero(t, a.conns.Load(), "validate connected to the AWS stand-in")
}

// TestValidate_OverlapJudgedWithoutAWS: two scopes without role-arn over
// one prefix in one Region overlap (config:scope-overlap, exit 3, nothing
// read); two with roles in different accounts do not; a role beside the
// base identity cannot be judged without STS: warning:overlap-not-judged,
// exit 0. Zero connections to the AWS stand-in (no STS).
func TestValidate_OverlapJudgedWithoutAWS(t *testing.T) {
	f := newFixture(t)
	a := newAWSStandIn(t)
	f.standardDocs()
	scopes := func(roleA, roleB string) string {
		line := func(name, role string) string {
			s := "  - name: " + name + "\n    secret-prefix: " + f.Prefix + "\n"
			if role != "" {
				s += "    role-arn: " + role + "\n"
			}
			return s
		}
		return "repository-id: " + f.RepoID + "\nscopes:\n" + line("one", roleA) + line("two", roleB)
	}
	run := func(cfg string) (result, planview.View) {
		dir := t.TempDir()
		planPath := filepath.Join(dir, "plan.json")
		cmd, _ := f.cmd(nil, runOpts{Config: cfg, Env: a.env()}, "validate", "--plan-file", planPath)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		r := f.finish(nil, runOpts{}, cmd, err, stdout.String(), stderr.String(), filepath.Join(dir, "none"))
		v, perr := planview.ReadFile(planPath)
		require.NoError(t, perr, "%s\n%s", r.Stdout, r.Stderr)
		return r, v
	}
	roleIn := func(acct string) string { return "arn:aws:iam::" + acct + ":role/deploy" }

	r, v := run(scopes("", ""))
	assert.Equal(t, 3, r.Code, r.Stdout)
	perScope, _ := classesOf(v)
	assert.Equal(t, []string{"config:scope-overlap config file key scopes.one.secret-prefix",
		"config:scope-overlap config file key scopes.two.secret-prefix"}, perScope)

	r, v = run(scopes(roleIn("111111111111"), roleIn("222222222222")))
	assert.Equal(t, 0, r.Code, r.Stdout)
	_, classes := classesOf(v)
	assert.Equal(t, []string{"warning:not-planned"}, classes)

	r, v = run(scopes(roleIn("111111111111"), ""))
	assert.Equal(t, 0, r.Code, r.Stdout)
	_, classes = classesOf(v)
	assert.Equal(t, []string{"warning:overlap-not-judged", "warning:overlap-not-judged", "warning:not-planned"}, classes)
	assert.Contains(t, planview.Markdown(v), "could not be judged")
	assert.Zero(t, a.conns.Load(), "validate connected to the AWS stand-in")
}

// TestValidate_SourceRootsFileListsEachScopesRoot: validate
// --source-roots-file writes each run scope's name and resolved source
// root (the default secrets, a scope's own, after --scope), which the
// GitHub Action compares with a fork pull request's files; a file that
// cannot be written is report:source-roots-write-failed, exit 3, in the
// plan file; no AWS connection either way.
func TestValidate_SourceRootsFileListsEachScopesRoot(t *testing.T) {
	f := newFixture(t)
	a := newAWSStandIn(t)
	f.standardDocs()
	read := func(path string) command.SourceRoots {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		var got command.SourceRoots
		require.NoError(t, wirefile.Decode(raw, &got))
		require.NoError(t, got.Validate())
		return got
	}

	path := filepath.Join(t.TempDir(), "roots.json")
	r, _ := f.validateRun(a, runOpts{}, true, "--no-decrypt", "--source-roots-file", path)
	require.Equal(t, 0, r.Code, r.Stdout)
	assert.Equal(t, command.SourceRoots{SchemaVersion: "sops-aws-sync/source-roots/v1",
		Scopes: []command.SourceRootScope{{Name: "default", SourceRoot: "secrets"}}}, read(path))

	cfg := "repository-id: " + f.RepoID + "\nscopes:\n" +
		"  - name: one\n    secret-prefix: " + f.Prefix + "/one\n" +
		"  - name: two\n    secret-prefix: " + f.Prefix + "/two\n    source-root: secrets/nested\n" +
		"  - name: three\n    secret-prefix: " + f.Prefix + "/three\n    source-root: .\n"
	run := func(path string, extra ...string) result {
		cmd, _ := f.cmd(nil, runOpts{Config: cfg, Env: a.env()}, append([]string{"validate", "--no-decrypt", "--source-roots-file", path}, extra...)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return f.finish(nil, runOpts{}, cmd, err, stdout.String(), stderr.String(), filepath.Join(t.TempDir(), "none"))
	}
	path = filepath.Join(t.TempDir(), "roots.json")
	r = run(path)
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	assert.Equal(t, []command.SourceRootScope{{Name: "one", SourceRoot: "secrets"}, {Name: "two", SourceRoot: "secrets/nested"},
		{Name: "three", SourceRoot: "."}}, read(path).Scopes)

	path = filepath.Join(t.TempDir(), "roots.json")
	r = run(path, "--scope", "two")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)
	assert.Equal(t, []command.SourceRootScope{{Name: "two", SourceRoot: "secrets/nested"}}, read(path).Scopes)

	missing := filepath.Join(t.TempDir(), "no-such-dir", "roots.json")
	r, v := f.validateRun(a, runOpts{}, true, "--no-decrypt", "--source-roots-file", missing)
	assert.Equal(t, 3, r.Code, r.Stdout)
	_, runClasses := classesOf(v)
	assert.Contains(t, runClasses, "report:source-roots-write-failed")
	assert.NoFileExists(t, missing)
	assert.Zero(t, a.conns.Load(), "validate connected to the AWS stand-in")
}
