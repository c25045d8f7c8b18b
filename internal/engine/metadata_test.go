package engine_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator"
	"github.com/sops-aws-sync/sops-aws-sync/internal/emulator/emulatortest"
	"github.com/sops-aws-sync/sops-aws-sync/internal/engine"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const (
	testKeyID  = "1234abcd-12ab-34cd-56ef-1234567890ab"
	testKeyARN = "arn:aws:kms:us-east-1:" + emulator.DefaultAccountID + ":key/" + testKeyID
)

// newMetaEnv is newEnv with a customer managed key (and its alias) the
// emulator knows: it refuses unknown keys as AWS does.
func newMetaEnv(t *testing.T) *env {
	srv := emulatortest.Start(t, emulator.WithKMSKeys(emulator.KMSKey{KeyID: testKeyID},
		emulator.KMSKey{KeyID: "5678abcd-12ab-34cd-56ef-1234567890ab", Aliases: []string{"alias/app-secrets"}}))
	c := srv.Client(t)
	return &env{srv: srv, client: c, port: newAdapter(c), logs: &syncBuffer{}}
}

func (e *env) syncMeta(t *testing.T, conc int, st model.State, m model.Metadata) engine.Result {
	t.Helper()
	cfg := e.cfg(engine.ModeSync, conc)
	cfg.Metadata = m
	return e.run(t, cfg, st)
}

// TestMetadataCreateChangeAndNoOp is issue 14 items 2 and 3 with the real
// SDK against the emulator: a create carries the KMS key, description and
// tags in its one CreateSecret; each change of the configuration is one
// metadata update per secret (UpdateSecret for key and description,
// TagResource for tags) and writes no version; then a run is a no-op; a tag
// set by someone else survives every run, and ownership tags are untouched.
func TestMetadataCreateChangeAndNoOp(t *testing.T) {
	eachConcurrency(t, func(t *testing.T, conc int) {
		e := newMetaEnv(t)
		st := state(doc{"api", `{"key":"a1"}`}, doc{"db", `{"password":"p1"}`})
		m := model.Metadata{KMSKeyID: testKeyARN, Description: "from owner/repo", Tags: map[string]string{"team": "platform", "env": "prod"}}

		before := e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Create: 2})
		wantCalls(t, e, before, map[string]int64{"CreateSecret": 2})
		for _, base := range []string{"api", "db"} {
			s := e.secret(t, nameOf(base))
			if s.KmsKeyID != testKeyARN || s.Description != m.Description || s.Tags["team"] != "platform" || s.Tags["env"] != "prod" || s.Tags[model.TagScope] != testScope.Digest() {
				t.Fatalf("%s created without its metadata: %+v", base, s)
			}
		}

		// Someone else tags one secret; it must survive every run.
		arn := e.secret(t, nameOf("db")).ARN
		if _, err := e.client.TagResource(context.Background(), &secretsmanager.TagResourceInput{SecretId: aws.String(arn),
			Tags: []types.Tag{{Key: aws.String("by-hand"), Value: aws.String("keep")}}}); err != nil {
			t.Fatal(err)
		}

		before = e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
		wantCalls(t, e, before, map[string]int64{})

		versions := len(e.secret(t, nameOf("db")).Versions)
		for _, change := range []struct {
			name  string
			edit  func(*model.Metadata)
			calls map[string]int64
		}{
			{"description", func(m *model.Metadata) { m.Description = "moved to owner/other" }, map[string]int64{"UpdateSecret": 2}},
			{"kms key", func(m *model.Metadata) { m.KMSKeyID = "alias/app-secrets" }, map[string]int64{"UpdateSecret": 2}},
			{"tag value", func(m *model.Metadata) { m.Tags = map[string]string{"team": "payments", "env": "prod"} }, map[string]int64{"TagResource": 2}},
			{"new tag", func(m *model.Metadata) { m.Tags = map[string]string{"team": "payments", "env": "prod", "cost": "42"} }, map[string]int64{"TagResource": 2}},
		} {
			change.edit(&m)
			before = e.calls(t)
			wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 2})
			wantCalls(t, e, before, change.calls)
			before = e.calls(t)
			wantResult(t, e.syncMeta(t, conc, st, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
			wantCalls(t, e, before, map[string]int64{})
		}
		db := e.secret(t, nameOf("db"))
		if len(db.Versions) != versions {
			t.Fatalf("metadata updates wrote versions: %d, want %d", len(db.Versions), versions)
		}
		if db.Tags["by-hand"] != "keep" || db.Tags["team"] != "payments" || db.Tags["cost"] != "42" || db.KmsKeyID != "alias/app-secrets" || db.Description != "moved to owner/other" {
			t.Fatalf("db metadata: %+v", db)
		}

		// Dropping a setting stops managing it: nothing changes.
		before = e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st, model.Metadata{}), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Unchanged: 2})
		wantCalls(t, e, before, map[string]int64{})

		// A value change and a metadata change of one secret: one
		// PutSecretValue and one TagResource, counted as one update.
		st2 := state(doc{"api", `{"key":"a1"}`}, doc{"db", `{"password":"p2"}`})
		m.Tags["cost"] = "43"
		before = e.calls(t)
		wantResult(t, e.syncMeta(t, conc, st2, m), vocab.StatusConverged, vocab.VerificationConverged, vocab.Counts{Update: 2})
		wantCalls(t, e, before, map[string]int64{"PutSecretValue": 1, "TagResource": 2})
		if got := current(e.secret(t, nameOf("db"))); got != `{"password":"p2"}` {
			t.Fatalf("db value = %q", got)
		}
	})
}
