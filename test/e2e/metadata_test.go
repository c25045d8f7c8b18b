package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/planview"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const (
	e2eKeyID  = "1234abcd-12ab-34cd-56ef-1234567890ab"
	e2eKeyARN = "arn:aws:kms:us-east-1:123456789012:key/" + e2eKeyID
)

// startKMSEmulator starts the emulator with a customer managed key and a
// second key behind alias/app-secrets (unknown keys are refused, as by AWS).
func startKMSEmulator(t *testing.T) *emu {
	return startEmulator(t, "--kms-key", e2eKeyID, "--kms-key", "5678abcd-12ab-34cd-56ef-1234567890ab=alias/app-secrets")
}

// TestOperatorMetadataLifecycle is issue 14's first "Done when" with the
// real binary, SOPS documents, Git and the emulator: create with KMS key,
// description and tags (flags, then the config file and the environment);
// each change of configuration is exactly one metadata update per secret
// and no new version, then a no-op; a tag someone else added survives.
func TestOperatorMetadataLifecycle(t *testing.T) {
	f := newFixture(t)
	e := startKMSEmulator(t)
	docs := f.standardDocs()

	meta := []string{"--kms-key-id", e2eKeyARN, "--description", "from owner/repo", "--tag", "team=platform", "--tag", "env=prod"}
	r := f.run(e, runOpts{}, f.args("sync", meta...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	for _, d := range docs {
		s := e.secret(d.Name)
		require.NotNil(t, s)
		assert.Equal(t, e2eKeyARN, s.KmsKeyID)
		assert.Equal(t, "from owner/repo", s.Description)
		assert.Equal(t, "platform", s.Tags["team"])
		assert.Equal(t, "prod", s.Tags["env"])
		assert.Equal(t, model.ManagedByValue, s.Tags[model.TagManagedBy], "ownership tags beside the configured ones")
	}
	assert.Equal(t, int64(3), e.stats().Calls["CreateSecret"], "one CreateSecret per secret carries everything")

	// Someone else tags a secret.
	_, err := e.sdk().TagResource(context.Background(), &secretsmanager.TagResourceInput{SecretId: aws.String(docs[0].Name),
		Tags: []types.Tag{{Key: aws.String("by-hand"), Value: aws.String("keep")}}})
	require.NoError(t, err)

	before := e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync", meta...)...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, before, e.mutatingCalls(), "a converged scope with metadata is a no-op")

	versions := map[string]int{}
	for _, d := range docs {
		versions[d.Name] = len(e.secret(d.Name).Versions)
	}
	steps := []struct {
		name   string
		o      runOpts
		args   []string
		update map[string]int64
	}{
		{"description by flag", runOpts{}, []string{"--kms-key-id", e2eKeyARN, "--description", "moved", "--tag", "team=platform", "--tag", "env=prod"},
			map[string]int64{"UpdateSecret": 3}},
		{"kms key by config file", runOpts{Config: "kms-key-id: alias/app-secrets\ndescription: moved\ntag:\n  team: platform\n  env: prod\n"}, nil,
			map[string]int64{"UpdateSecret": 3}},
		{"tags by environment", runOpts{Env: []string{"SOPS_AWS_SYNC_KMS_KEY_ID=alias/app-secrets", "SOPS_AWS_SYNC_DESCRIPTION=moved",
			"SOPS_AWS_SYNC_TAG=team=payments\nenv=prod\ncost=42\n"}}, nil,
			map[string]int64{"TagResource": 3}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			calls := e.stats().Calls
			r := f.run(e, st.o, f.args("plan", st.args...)...)
			expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Update: 3})
			r = f.run(e, st.o, f.args("sync", st.args...)...)
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: 3})
			after := e.stats().Calls
			for _, op := range mutating {
				assert.Equal(t, st.update[op], after[op]-calls[op], "%s calls", op)
			}
			before := e.mutatingCalls()
			r = f.run(e, st.o, f.args("sync", st.args...)...)
			expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
			assert.Equal(t, before, e.mutatingCalls(), "then a no-op")
		})
	}
	for _, d := range docs {
		s := e.secret(d.Name)
		assert.Equal(t, versions[d.Name], len(s.Versions), "metadata updates write no version")
		assert.Equal(t, "alias/app-secrets", s.KmsKeyID)
		assert.Equal(t, "moved", s.Description)
		assert.Equal(t, "payments", s.Tags["team"])
		assert.Equal(t, "42", s.Tags["cost"])
	}
	assert.Equal(t, "keep", e.secret(docs[0].Name).Tags["by-hand"], "a tag added by someone else survives every run")

	// Settings not given are not managed: nothing changes.
	before = e.mutatingCalls()
	r = f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, before, e.mutatingCalls())
}

// TestRegression_ChangedTagValueIsOneTagResourceNeverUntag: with the real
// binary, a configured tag whose value changes is one TagResource per
// secret and no UntagResource (an untag first would leave the secret
// without the tag an IAM condition may grant access by); no other write.
// The engine's test of the same name also reads the tags after every call.
func TestRegression_ChangedTagValueIsOneTagResourceNeverUntag(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()

	r := f.run(e, runOpts{}, f.args("sync", "--tag", "team=platform", "--tag", "env=prod")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: len(docs)})

	calls := e.stats().Calls
	r = f.run(e, runOpts{}, f.args("sync", "--tag", "team=payments", "--tag", "env=prod")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Update: len(docs)})
	after := e.stats().Calls
	for _, op := range mutating {
		want := int64(0)
		if op == "TagResource" {
			want = int64(len(docs))
		}
		assert.Equal(t, want, after[op]-calls[op], "%s calls", op)
	}
	for _, d := range docs {
		s := e.secret(d.Name)
		require.NotNil(t, s)
		assert.Equal(t, "payments", s.Tags["team"])
		assert.Equal(t, "prod", s.Tags["env"])
		assert.Equal(t, model.ManagedByValue, s.Tags[model.TagManagedBy])
	}
}

// TestReservedTagKeyExits3WithZeroCalls: a reserved or invalid tag key (or
// another invalid metadata setting) is exit 3 before any AWS call, naming
// the setting and never echoing the value.
func TestReservedTagKeyExits3WithZeroCalls(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	f.standardDocs()
	for name, args := range map[string][]string{
		"aws prefix":       {"--tag", "aws:CANARY-tagkey=v"},
		"ownership prefix": {"--tag", "sops-aws-sync:scope=CANARY-tagvalue"},
		"bad character":    {"--tag", "CANARY-tag;key=v"},
		"kms form":         {"--kms-key-id", "CANARY-kms"},
		"negative limit":   {"--max-deletions", "-1"},
		// Tighter forms (each a regression: accepted before).
		"line break in one tag": {"--tag", "team=CANARY-a\nenv=CANARY-b"},
		"kms partition":         {"--kms-key-id", "arn:CANARY:kms:us-east-1:123456789012:alias/app"},
		"kms upper-case key id": {"--kms-key-id", "1234ABCD-12AB-34CD-56EF-1234567890AB"},
		"kms empty alias part":  {"--kms-key-id", "alias//CANARY"},
		"limit out of range":    {"--max-deletions", "99999999999999999999"},
	} {
		t.Run(name, func(t *testing.T) {
			before := e.stats().Calls
			r := f.run(e, runOpts{}, f.args("sync", args...)...)
			expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, nil)
			assert.Contains(t, r.Stderr, args[0][2:], "the setting is named")
			assert.NotContains(t, r.Stderr+r.Stdout, "CANARY")
			assert.NotContains(t, r.Stderr+r.Stdout, args[1], "the value is never echoed")
			assert.Equal(t, before, e.stats().Calls, "zero AWS calls")
		})
	}
}

// TestMaxDeletionsBlocksAndAllows: --max-deletions 2 blocks a plan with 3
// deletions (exit 3, zero writes, plan too; plan counts what it would do,
// sync what it did) and allows one with 2.
func TestMaxDeletionsBlocksAndAllows(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	f.writeDoc("secrets/keep.sops.json", `{"k": "CANARY-keep-`+token(6)+`"}`, "")
	f.commit("add keep")
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 4})

	for _, d := range docs {
		f.removeDoc(d.Rel)
	}
	f.commit("remove three")
	for cmd, counts := range map[string]vocab.Counts{"plan": {ScheduleDelete: 3, Unchanged: 1}, "sync": {Unchanged: 1}} {
		before := e.mutatingCalls()
		r = f.run(e, runOpts{}, f.args(cmd, "--max-deletions", "2")...)
		expect(t, r, 3, vocab.StatusInvalid, vocab.VerificationNotRun, &counts)
		assert.Equal(t, before, e.mutatingCalls(), "%s: zero writes", cmd)
		rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_class"] == "gate:max-deletions" })
		require.NotNil(t, rec, "the gate's record: %s", r.Stdout)
		assert.EqualValues(t, 3, rec["count"])
	}
	f.writeDoc(docs[0].Rel, docs[0].Plain, "")
	f.commit("bring one back")
	r = f.run(e, runOpts{}, f.args("sync", "--max-deletions", "2")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{ScheduleDelete: 2, Unchanged: 2})
}

// TestUnusableKMSKeyIsApplyFailed: a configured key that KMS refuses
// (disabled) fails the write it encrypts; the run ends apply-failed (exit 5)
// and the log names the modelled error code, never provider text.
func TestUnusableKMSKeyIsApplyFailed(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t, "--kms-key", e2eKeyID, "--kms-key-fault", e2eKeyID+":disabled")
	f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync", "--kms-key-id", e2eKeyARN)...)
	expect(t, r, 5, vocab.StatusApplyFailed, vocab.VerificationNotRun, nil)
	rec := findRecord(r.records(t), func(m map[string]any) bool { return m["error_code"] == "EncryptionFailure" })
	require.NotNil(t, rec, "a record with the modelled error code: %s", r.Stdout)
	assert.Zero(t, len(e.state().Secrets), "nothing was created with the unusable key")
}

// TestPrefixChangeWarnsAboutOrphans: issue 14 item 5 with the real binary.
// After a sync under one prefix, a change of --secret-prefix leaves that
// scope's secrets behind: plan and sync warn with their count (names only
// with --show-resource-names) and never touch them; the list costs no extra
// call when the account holds no other scope.
func TestPrefixChangeWarnsAboutOrphans(t *testing.T) {
	f := newFixture(t)
	e := startEmulator(t)
	docs := f.standardDocs()
	r := f.run(e, runOpts{}, f.args("sync")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	// Pages the tool asked for: the SDK's own retries of a page (emulator
	// Stats.Retries) are transport events, not pages (docs/benchmarks.md).
	pages := func() int64 { st := e.stats(); return st.Calls["ListSecrets"] - st.Retries["ListSecrets"] }
	lists := pages()
	r = f.run(e, runOpts{}, f.args("plan")...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationNotRun, &vocab.Counts{Unchanged: 3})
	assert.Equal(t, int64(1), pages()-lists, "one list page, as before: no other scope exists")
	assert.Nil(t, findRecord(r.records(t), func(m map[string]any) bool { return m["level"] == "WARN" }), "no orphan in one scope")

	moved := []string{"plan", "--secret-prefix", f.Prefix + "-moved", "--repository-id", f.RepoID}
	isOrphanWarning := func(m map[string]any) bool {
		msg, _ := m["msg"].(string)
		return m["level"] == "WARN" && strings.Contains(msg, "another scope")
	}
	before := e.mutatingCalls()
	r, view, _ := f.runPlan(e, runOpts{}, moved...)
	expect(t, r, 0, vocab.StatusDrift, vocab.VerificationNotRun, &vocab.Counts{Create: 3})
	w := findRecord(r.records(t), isOrphanWarning)
	require.NotNil(t, w, "orphan warning: %s", r.Stdout)
	assert.EqualValues(t, 3, w["count"])
	assert.Nil(t, w["resource"], "names only with --show-resource-names")
	// The plan file (and so the pull request's summary and comment) carries
	// it as a warning with the count only; it changes neither the exit code
	// nor the plan.
	require.Len(t, view.Scopes[0].Diagnostics, 1)
	assert.Equal(t, diag.Record{Class: "warning:orphans",
		Summary: "3 secrets this tool owns in another scope hold documents of this commit; they are not touched",
		Next:    "if the scope was renamed on purpose, retire the old scope once nothing reads it (docs/recovery.md, retiring an old scope)"},
		view.Scopes[0].Diagnostics[0])
	assert.Contains(t, planview.Text(view), "Warnings (1):\n  * warning:orphans: 3 secrets")
	assert.Contains(t, planview.Markdown(view), "Warnings (1):")
	for _, d := range docs {
		assert.NotContains(t, planview.Markdown(view), d.Name, "no orphan name in the rendering with names hidden")
	}

	r = f.run(e, runOpts{ShowNames: true}, append(moved, "--show-resource-names")...)
	w = findRecord(r.records(t), isOrphanWarning)
	require.NotNil(t, w)
	for _, d := range docs {
		assert.Contains(t, w["resource"], d.Name)
	}

	sync := append([]string{"sync"}, moved[1:]...)
	r = f.run(e, runOpts{}, sync...)
	expect(t, r, 0, vocab.StatusConverged, vocab.VerificationConverged, &vocab.Counts{Create: 3})
	require.NotNil(t, findRecord(r.records(t), isOrphanWarning))
	assert.Equal(t, int64(3), e.mutatingCalls()-before, "only the three creates of the new scope")
	for _, d := range docs {
		s := e.secret(d.Name)
		require.NotNil(t, s)
		assert.Nil(t, s.DeletedDate, "an orphan is never scheduled for deletion")
	}
}
