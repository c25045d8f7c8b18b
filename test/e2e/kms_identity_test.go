package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// scopeOf returns the Region and account of an ARN
// (arn:aws:<service>:<region>:<account>:<resource>).
func scopeOf(t *testing.T, arn string) (region, account string) {
	t.Helper()
	f := strings.Split(arn, ":")
	require.GreaterOrEqual(t, len(f), 6, "ARN %q", arn)
	return f[3], f[4]
}

// TestKMSKeyIdentity_CrossAccountAliasPlansAnUpdate: with secrets under
// alias/app, an alias ARN of the same alias name in another account and
// Region is another key: plan shows an update (exit 2 with
// --detailed-exit-code), and sync sends it, which AWS refuses for a key it
// cannot use here (apply-failed, exit 5; nothing changed). The alias ARN
// of the scope's own account and Region is the same key: nothing planned.
func TestKMSKeyIdentity_CrossAccountAliasPlansAnUpdate(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t, "--kms-key", e2eKeyID+"=alias/app")
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync", "--kms-key-id", "alias/app")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	region, account := scopeOf(t, e.secret(docs[0].Name).ARN)

	own := "arn:aws:kms:" + region + ":" + account + ":alias/app"
	r = f.run(e, runOpts{}, f.args("plan", "--detailed-exit-code", "--kms-key-id", own)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 3})

	otherAccount := "999999999999"
	if account == otherAccount {
		otherAccount = "888888888888"
	}
	otherRegion := "eu-west-1"
	if region == otherRegion {
		otherRegion = "eu-central-1"
	}
	for name, foreign := range map[string]string{
		"account and region": "arn:aws:kms:" + otherRegion + ":" + otherAccount + ":alias/app",
		"account":            "arn:aws:kms:" + region + ":" + otherAccount + ":alias/app",
		"region":             "arn:aws:kms:" + otherRegion + ":" + account + ":alias/app",
		"key in account":     "arn:aws:kms:" + region + ":" + otherAccount + ":key/" + e2eKeyID,
	} {
		t.Run(name, func(t *testing.T) {
			before := e.mutatingCalls()
			r := f.run(e, runOpts{}, f.args("plan", "--detailed-exit-code", "--kms-key-id", foreign)...)
			expect(t, r, 2, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 3})
			assert.Equal(t, before, e.mutatingCalls(), "plan is read-only")

			calls := e.stats().Calls["UpdateSecret"]
			r = f.run(e, runOpts{}, f.args("sync", "--kms-key-id", foreign)...)
			expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, nil)
			assert.Greater(t, e.stats().Calls["UpdateSecret"], calls, "sync sent the update")
			rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_code"] == "InvalidParameterException" })
			assert.NotNil(t, rec, "the record names AWS's error code (docs/recovery.md): %s", r.Stdout)
			for _, d := range docs {
				assert.Equal(t, "alias/app", e.secret(d.Name).KmsKeyID, "AWS refused it: nothing changed")
			}
		})
	}
}

// TestKMSKeyIdentity_ManagedKeyEveryFormConverges: the AWS managed key in
// every documented form — alias name, alias ARN, and the key id and key ARN
// the emulator gives it — converges and then plans nothing, both for
// secrets created with it and for secrets that use it by default (no
// KmsKeyId). The alias forms are the default key already: no call at all.
// The key id forms cannot be told from "no KmsKeyId" without KMS, so one
// metadata update stores the form, after which it compares equal.
func TestKMSKeyIdentity_ManagedKeyEveryFormConverges(t *testing.T) {
	f := newFixture(t)
	docs := f.standardDocs()
	probe := startEmulator(t)
	keys := probe.ctl.KMSKeys().Keys
	require.NotEmpty(t, keys)
	require.True(t, keys[0].AWSManaged, "the emulator lists the AWS managed key first")
	managedID, managedARN := keys[0].KeyID, keys[0].ARN
	region, account := scopeOf(t, managedARN)
	forms := []struct {
		name, ref string
		aliasForm bool // provably the default key: no update on secrets without KmsKeyId
	}{
		{"alias name", "alias/aws/secretsmanager", true},
		{"alias ARN", "arn:aws:kms:" + region + ":" + account + ":alias/aws/secretsmanager", true},
		{"key id", managedID, false},
		{"key ARN", managedARN, false},
	}
	for _, fm := range forms {
		t.Run(fm.name+" from create", func(t *testing.T) {
			e := startEmulator(t)
			r := f.run(e, runOpts{}, f.args("sync", "--kms-key-id", fm.ref)...)
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
			converged(t, f, e, fm.ref, 3)
		})
		t.Run(fm.name+" over the default key", func(t *testing.T) {
			e := startEmulator(t)
			r := f.run(e, runOpts{}, f.args("sync")...)
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
			for _, d := range docs {
				require.Equal(t, "", e.secret(d.Name).KmsKeyID, "the default key: KmsKeyId left out")
			}
			if fm.aliasForm {
				before := e.mutatingCalls()
				r = f.run(e, runOpts{}, f.args("plan", "--detailed-exit-code", "--kms-key-id", fm.ref)...)
				expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 3})
				r = f.run(e, runOpts{}, f.args("sync", "--kms-key-id", fm.ref)...)
				expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
				assert.Equal(t, before, e.mutatingCalls(), "the managed key is the default: nothing to send")
			} else {
				r = f.run(e, runOpts{}, f.args("plan", "--detailed-exit-code", "--kms-key-id", fm.ref)...)
				expect(t, r, 2, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 3})
				calls := e.stats().Calls
				r = f.run(e, runOpts{}, f.args("sync", "--kms-key-id", fm.ref)...)
				expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 3})
				after := e.stats().Calls
				assert.Equal(t, int64(3), after["UpdateSecret"]-calls["UpdateSecret"], "one metadata update per secret")
				assert.Zero(t, after["PutSecretValue"]-calls["PutSecretValue"], "no value written")
				for _, d := range docs {
					assert.Equal(t, fm.ref, e.secret(d.Name).KmsKeyID, "stored as given")
				}
			}
			converged(t, f, e, fm.ref, 3)
		})
	}
}

// converged asserts that a sync with --kms-key-id ref is a no-op and that
// plan --detailed-exit-code exits 0.
func converged(t *testing.T, f *fixture, e *emu, ref string, n int) {
	t.Helper()
	before := e.mutatingCalls()
	r := f.run(e, runOpts{}, f.args("sync", "--kms-key-id", ref)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: n})
	assert.Equal(t, before, e.mutatingCalls(), "a converged scope is a no-op")
	r = f.run(e, runOpts{}, f.args("plan", "--detailed-exit-code", "--kms-key-id", ref)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: n})
}
