package planview

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

const rev = "0123456789abcdef0123456789abcdef01234567"

// Canaries: plaintext values, out-of-band key names and a ciphertext
// fragment are placed in the inputs; no output may ever contain them.
// Desired-side key names start with "dk_" and secret names with
// "prod/app/": with names hidden no output may contain those either.
var canaries = []string{"CANARY", "OOB_", "ENC[AES256_GCM"}

func summary(t testing.TB, desired, observed string) *keydiff.Summary {
	t.Helper()
	var (
		s   keydiff.Summary
		err error
	)
	if observed == "" {
		s, err = keydiff.Create([]byte(desired))
	} else {
		s, err = keydiff.Diff([]byte(desired), []byte(observed))
	}
	require.NoError(t, err)
	return &s
}

func binary() *keydiff.Summary { s := keydiff.Binary(); return &s }

// single is the Input of a run without scopes: one scope named default in
// eu-west-1 with the given status (verification not-run, as a plan's).
// The plan is bound (SPEC §14): a fixed salt, repository-id, source tree
// and settings.
func single(revision string, status vocab.Status, ops []Operation, ds diag.Diagnostics) Input {
	return Input{Command: CommandPlan, Salt: fixedSalt, RepositoryID: "example/repo", GitRevision: revision,
		Scopes: []ScopeInput{{Name: model.DefaultScopeName, Region: "eu-west-1", SourceTree: tree, Settings: []byte(`{"secret_prefix":"prod/app/"}`),
			Status: status, Verification: vocab.VerificationNotRun, Operations: ops, Diagnostics: ds}}}
}

// fixedSalt and tree are a bound plan's salt and source tree in fixtures.
var (
	fixedSalt = []byte("0123456789abcdef")
	tree      = "89abcdef0123456789abcdef0123456789abcdef"
)

// ops is the operations of in's only scope.
func ops(in Input) []Operation { return in.Scopes[0].Operations }

// fixtures are the plans the golden files render: every action and
// reason (full), conflicts (conflict), an early failure (invalid), a
// converged scope (nochange), one with a warning (orphans), whole values
// (whole), adoptions (adopt), a run of three scopes in two Regions with a run-level warning
// (scopes), and a run that ended before its scopes were known (early).
func fixtures(t testing.TB) map[string]Input {
	t.Helper()
	full := single(rev, vocab.StatusDrift, []Operation{
		{Ordinal: 9, Name: "prod/app/old", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired},
		{Ordinal: 1, Name: "prod/app/api", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent,
			Keys: summary(t, `{"dk_db":{"dk_password":"CANARY-pw-1","dk_user":"api"},"dk_token":"CANARY-tok"}`, "")},
		{Ordinal: 2, Name: "prod/app/billing", Action: vocab.ActionRestore, Reason: vocab.ReasonScheduledForDeletion},
		{Ordinal: 3, Name: "prod/app/db", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
			Keys: summary(t,
				`{"dk_cache":{"dk_ttl":5},"dk_db":{"dk_host":"db.internal","dk_password":"CANARY-new","dk_pool":{"dk_max":10,"dk_min":1}},"dk_feature/flags":["a"],"dk_tilde~key":"x"}`,
				`{"dk_cache":5,"dk_db":{"dk_host":"db.internal","dk_password":"CANARY-old","dk_pool":{"dk_max":10}},"dk_feature/flags":["a","b"],"dk_tilde~key":"x","OOB_added":"CANARY-oob","OOB_other":{"x":"ENC[AES256_GCM,data:CANARY]"}}`)},
		{Ordinal: 5, Name: "prod/app/blob", Action: vocab.ActionUpdate, Reason: vocab.ReasonStoredValueBinary, Keys: binary()},
		{Ordinal: 6, Name: "prod/app/notjson", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `CANARY plain text stored by hand`)},
		{Ordinal: 7, Name: "prod/app/nocurrent", Action: vocab.ActionUpdate, Reason: vocab.ReasonNoCurrentVersion,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, "")},
		{Ordinal: 8, Name: "prod/app/restored", Action: vocab.ActionUpdate, Reason: vocab.ReasonRestoreThenUpdate,
			Keys: summary(t, `{"dk_a":"CANARY-a","dk_b":"CANARY-b"}`, `{"dk_a":"CANARY-z","OOB_c":1}`)},
		{Ordinal: 12, Name: "prod/app/spacing", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
			Keys: summary(t, `{"dk_a":"CANARY-a","dk_b":[1]}`, ` { "dk_b" : [ 1.0 ], "dk_a" : "CANARY-a" } `)},
		{Ordinal: 13, Name: "prod/app/tagged", Action: vocab.ActionUpdate, Reason: vocab.ReasonMetadata,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-a"}`), Metadata: []vocab.MetadataKind{vocab.MetadataDescription, vocab.MetadataTags}},
		{Ordinal: 14, Name: "prod/app/rekeyed", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-b"}`), Metadata: []vocab.MetadataKind{vocab.MetadataKMSKey}},
		{Ordinal: 4, Name: "prod/app/same", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
		{Ordinal: 10, Name: "prod/app/same2", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
		{Ordinal: 11, Name: "prod/app/gone", Action: vocab.ActionUnchanged, Reason: vocab.ReasonScheduledForDeletion},
	}, nil)
	conflict := single(rev, vocab.StatusConflict, []Operation{
		{Ordinal: 2, Name: "prod/app/rotated", Action: vocab.ActionConflict, Conflict: vocab.ConflictRotation},
		{Ordinal: 1, Name: "prod/app/taken", Action: vocab.ActionConflict, Conflict: vocab.ConflictOwnership},
		{Ordinal: 3, Name: "prod/app/same", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
	}, nil)
	invalid := single("", vocab.StatusInvalid, nil, diag.Diagnostics{
		{Class: "decrypt:no-key", Subject: diag.Subject{Ordinal: 2},
			Summary: "document resource-0002 cannot be decrypted: no key this runner holds opens it",
			Next:    "add a recipient this runner holds to the document with sops updatekeys, or give the runner the key"},
		{Class: "plaintext:duplicate-key", Subject: diag.Subject{Ordinal: 5},
			Summary: "document resource-0005: a member name appears twice in one JSON object",
			Next:    "remove or rename the repeated member in the source document, then re-encrypt it with sops"},
	})
	nochange := single(rev, vocab.StatusConverged, []Operation{
		{Ordinal: 1, Name: "prod/app/a", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
		{Ordinal: 2, Name: "prod/app/b", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
	}, nil)
	// A converged scope whose documents an older scope also holds (a
	// renamed prefix): a warning, and still "No changes".
	orphans := single(rev, vocab.StatusConverged, ops(nochange), diag.Diagnostics{
		{Class: "warning:orphans",
			Summary: "3 secrets this tool owns in another scope hold documents of this commit; they are not touched",
			Next:    "if the scope was renamed on purpose, retire the old scope once nothing reads it (docs/recovery.md, retiring an old scope)"},
	})
	// Whole values (.sops.txt, .sops.bin; SPEC §3.1): created, changed,
	// switched between string and binary, metadata only, and equal. No
	// length or hash of a value is ever shown.
	ws := func() *keydiff.Summary { return &keydiff.Summary{Unavailable: vocab.KeysWholeValue} }
	whole := single(rev, vocab.StatusDrift, []Operation{
		{Ordinal: 1, Name: "prod/app/tls-cert", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: ws()},
		{Ordinal: 2, Name: "prod/app/tls-key", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers, Keys: ws()},
		{Ordinal: 3, Name: "prod/app/keystore", Action: vocab.ActionUpdate, Reason: vocab.ReasonStoredValueString, Keys: ws()},
		{Ordinal: 4, Name: "prod/app/ssh-key", Action: vocab.ActionUpdate, Reason: vocab.ReasonStoredValueBinary, Keys: ws()},
		{Ordinal: 5, Name: "prod/app/ca", Action: vocab.ActionUpdate, Reason: vocab.ReasonMetadata, Keys: ws(), Metadata: []vocab.MetadataKind{vocab.MetadataTags}},
		{Ordinal: 6, Name: "prod/app/truststore", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
	}, nil)
	// Three scopes, two Regions: one drifts (a create and a deletion), one
	// is converged, one is blocked by a conflict (so the run is conflict);
	// the ordinals are each scope's own. The run has a warning of its own.
	scopes := Input{GitRevision: rev, Diagnostics: diag.Diagnostics{{Class: "warning:orphans",
		Summary: "2 secrets this tool owns in another scope hold documents of this commit; they are not touched",
		Next:    "if the scope was renamed on purpose, retire the old scope once nothing reads it (docs/recovery.md, retiring an old scope)"}},
		Scopes: []ScopeInput{
			{Name: "prod-eu", Region: "eu-west-1", Status: vocab.StatusDrift, Verification: vocab.VerificationNotRun, Operations: []Operation{
				{Ordinal: 1, Name: "prod/app/api", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: summary(t, `{"dk_token":"CANARY-tok"}`, "")},
				{Ordinal: 2, Name: "prod/app/old", Action: vocab.ActionScheduleDelete, Reason: vocab.ReasonNotDesired},
			}},
			{Name: "staging", Region: "us-east-1", Status: vocab.StatusConverged, Verification: vocab.VerificationNotRun, Operations: []Operation{
				{Ordinal: 1, Name: "prod/app/api", Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual},
			}},
			{Name: "prod-us", Region: "us-east-1", Status: vocab.StatusConflict, Verification: vocab.VerificationNotRun, Operations: []Operation{
				{Ordinal: 1, Name: "prod/app/taken", Action: vocab.ActionConflict, Conflict: vocab.ConflictOwnership},
				{Ordinal: 2, Name: "prod/app/db", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
					Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-b","OOB_x":1}`)},
			}},
		}}
	// Adoptions (SPEC §11): a secret made by hand with the document's value
	// (tags only), one whose value differs and holds a key only AWS has
	// (counted, never named), one whose configured tag is missing, a whole
	// value equal and one changed; beside a create, an update and an owned
	// secret named in adopt (a warning).
	adopt := single(rev, vocab.StatusDrift, []Operation{
		{Ordinal: 1, Name: "prod/app/api", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: summary(t, `{"dk_token":"CANARY-tok"}`, "")},
		{Ordinal: 2, Name: "prod/app/db", Action: vocab.ActionAdopt, Reason: vocab.ReasonValueEqual,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-a"}`)},
		{Ordinal: 3, Name: "prod/app/legacy", Action: vocab.ActionAdopt, Reason: vocab.ReasonValueDiffers,
			Keys: summary(t, `{"dk_a":"CANARY-a","dk_b":"CANARY-b"}`, `{"dk_a":"CANARY-old","OOB_live":"CANARY-live"}`)},
		{Ordinal: 4, Name: "prod/app/tagged", Action: vocab.ActionAdopt, Reason: vocab.ReasonValueEqual,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-a"}`), Metadata: []vocab.MetadataKind{vocab.MetadataTags}},
		{Ordinal: 5, Name: "prod/app/tls-cert", Action: vocab.ActionAdopt, Reason: vocab.ReasonValueEqual, Keys: ws()},
		{Ordinal: 6, Name: "prod/app/tls-key", Action: vocab.ActionAdopt, Reason: vocab.ReasonValueDiffers, Keys: ws()},
		{Ordinal: 7, Name: "prod/app/owned", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
			Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-b"}`)},
	}, diag.Diagnostics{{Class: "warning:adopt-owned", Subject: diag.Subject{Setting: "adopt"},
		Summary: "1 adopt entry names a secret this scope already owns; the entry does nothing",
		Next:    "remove the entry from adopt: the secret is managed like every other owned secret (docs/migration.md)"}})
	// A configuration rejected before the scopes were known: no scope, the
	// run's error says why.
	early := Input{Diagnostics: diag.Diagnostics{{Class: "config:invalid-value", Subject: diag.Subject{Setting: "scopes", Origin: diag.OriginFile},
		Summary: "config file key scopes: two scopes have one name", Next: "give every scope its own name"}}}
	// A sync of three scopes that failed (issue 30 item 4): in prod-eu a
	// create AWS denied (the IAM actions to grant), an update whose
	// outcome was not proven and a throttled call given up on; staging's
	// observation was denied; prod-us verified until the timeout, with a
	// resource still differing (what differs) and one whose metadata
	// another writer changed; a fourth scope halted by the first.
	failed := Input{Command: CommandSync, GitRevision: rev,
		Scopes: []ScopeInput{
			{Name: "prod-eu", Region: "eu-west-1", Status: vocab.StatusApplyFailed, Verification: vocab.VerificationNotRun, Operations: []Operation{
				{Ordinal: 1, Name: "prod/app/api", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: summary(t, `{"dk_token":"CANARY-tok"}`, "")},
				{Ordinal: 2, Name: "prod/app/db", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
					Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-b"}`)},
				{Ordinal: 3, Name: "prod/app/tagged", Action: vocab.ActionUpdate, Reason: vocab.ReasonMetadata,
					Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-a"}`), Metadata: []vocab.MetadataKind{vocab.MetadataTags}},
			}, Failures: []Failure{
				{Ordinal: 1, Name: "prod/app/api", Class: "apply:failed", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent,
					ErrorCode: "AccessDeniedException", IAMActions: []string{"secretsmanager:CreateSecret", "secretsmanager:TagResource"}},
				{Ordinal: 2, Name: "prod/app/db", Class: "apply:failed", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers},
				{Ordinal: 3, Name: "prod/app/tagged", Class: "apply:failed", Action: vocab.ActionUpdate, Reason: vocab.ReasonMetadata,
					Metadata: []vocab.MetadataKind{vocab.MetadataTags}, ErrorCode: "InternalServiceError", IAMActions: []string{"secretsmanager:TagResource"}},
			}},
			{Name: "staging", Region: "us-east-1", Status: vocab.StatusObservationFailed, Verification: vocab.VerificationNotRun,
				Diagnostics: diag.Diagnostics{{Class: "observe:failed", Summary: "the scope could not be read from AWS Secrets Manager",
					Next: "see the failure record: re-run for a transient fault; for AccessDeniedException grant its IAM actions (docs/iam-policy.md)"}},
				Failures: []Failure{{Class: "observe:failed", ErrorCode: "AccessDeniedException", IAMActions: []string{"secretsmanager:ListSecrets"}}}},
			{Name: "prod-us", Region: "us-east-1", Status: vocab.StatusVerificationFailed, Verification: vocab.VerificationFailed, Operations: []Operation{
				{Ordinal: 1, Name: "prod/app/db", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers,
					Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-b"}`)},
				{Ordinal: 2, Name: "prod/app/keyed", Action: vocab.ActionUpdate, Reason: vocab.ReasonMetadata,
					Keys: summary(t, `{"dk_a":"CANARY-a"}`, `{"dk_a":"CANARY-a"}`), Metadata: []vocab.MetadataKind{vocab.MetadataKMSKey}},
			}, Failures: []Failure{
				{Ordinal: 1, Name: "prod/app/db", Class: "verify:not-converged", Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers},
				{Ordinal: 2, Name: "prod/app/keyed", Class: "verify:changed-elsewhere", Action: vocab.ActionUpdate, Reason: vocab.ReasonMetadata,
					Metadata: []vocab.MetadataKind{vocab.MetadataKMSKey}},
				{Ordinal: 3, Name: "prod/app/new", Class: "verify:second-writer", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent,
					ErrorCode: "ResourceExistsException"},
			}},
			{Name: "dev", Region: "eu-west-1", Status: vocab.StatusApplyFailed, Verification: vocab.VerificationNotRun, Operations: []Operation{
				{Ordinal: 1, Name: "prod/app/api", Action: vocab.ActionCreate, Reason: vocab.ReasonAbsent, Keys: summary(t, `{"dk_token":"CANARY-tok"}`, "")},
			}, Diagnostics: diag.Diagnostics{{Class: "apply:halted", Summary: "halted: scope prod-eu failed; no new operation of this scope was started",
				Next: "fix the failure of the other scope (its log records and diagnostics), then re-run: the plan resumes from the observed state"}}},
		}}
	return map[string]Input{"full": full, "conflict": conflict, "invalid": invalid, "nochange": nochange, "orphans": orphans, "whole": whole,
		"scopes": scopes, "early": early, "adopt": adopt, "failed": failed}
}
