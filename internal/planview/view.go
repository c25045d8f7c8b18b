package planview

import (
	"cmp"
	"encoding/hex"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// View is the view model of one run's plan and, field for field, the
// content of the plan file (schema sops-aws-sync/plan/v3, docs/results.md).
// Field order is key order. A View read from a v1 file (Parse) keeps
// SchemaVersion v1 and holds one scope named "default" with no Region,
// status or verification (v1 recorded none); one read from a v2 file keeps
// SchemaVersion v2 and has none of v3's bindings (Command, DigestSalt,
// RepositoryDigest, SourceTree, SettingsDigest, Fingerprint are empty);
// only v3 is ever written.
type View struct {
	SchemaVersion string `json:"schema_version"`
	// Command is the command that wrote the file: "plan", "sync",
	// "validate", or "" when the run ended before it was known.
	Command string `json:"command"`
	// DigestSalt is 32 lower-case hex (16 random bytes per file) keying
	// every digest of the file (HMAC-SHA-256, SPEC §14), or "" when the file
	// binds nothing (then every digest and fingerprint is absent).
	DigestSalt string `json:"digest_salt"`
	// RepositoryDigest is the keyed digest of the run's repository-id
	// (64 hex), or "" when none is known.
	RepositoryDigest string `json:"repository_digest"`
	// GitRevision is the 40-hex commit or "".
	GitRevision string `json:"git_revision"`
	// NamesShown is --show-resource-names: resources are secret names and
	// create/update carry KeyPaths.
	NamesShown bool `json:"names_shown"`
	// Reviewed is, for a sync given --reviewed-plan whose own plan equalled
	// the reviewed one (SPEC §14), the plan it applied: the commit the plan
	// was reviewed at and how many operations it holds; nil otherwise (an
	// optional key of v3, absent in every file written before it).
	Reviewed *Reviewed `json:"reviewed,omitempty"`
	// Scopes are the run's scopes in configuration order, names distinct;
	// empty only when the run ended before its scopes were known (then
	// Diagnostics hold at least one error).
	Scopes []ScopeView `json:"scopes"`
	// Diagnostics are the run's own problems (not any one scope's), then
	// its warnings (diag.IsWarning), in the order the run met them, as
	// diag writes a diagnostic ({class, summary, next, subject}).
	Diagnostics []diag.Record `json:"diagnostics"`
}

// Reviewed is the reviewed plan a sync applied (View.Reviewed).
type Reviewed struct {
	// GitRevision is the 40-hex commit the reviewed plan was made at
	// (its own git_revision).
	GitRevision string `json:"git_revision"`
	// Operations is how many operations (restore, create, adopt, update,
	// schedule-delete) the run planned, each as the reviewed plan holds
	// it, over all scopes; 0 when every scope was converged already.
	Operations int `json:"operations"`
}

// ScopeView is one scope of a View.
type ScopeView struct {
	// Name is the scope's name ([a-z0-9-]{1,32}, SPEC §10).
	Name string `json:"name"`
	// Region is the scope's AWS Region code, or "" when not resolved.
	Region string `json:"region"`
	// Status and Verification are the scope's outcome (SPEC §7.1 words).
	Status       vocab.Status       `json:"status"`
	Verification vocab.Verification `json:"verification"`
	// SourceTree is the Git tree id (40 hex) of the scope's source root at
	// the commit, or "" when the scope's documents were not read.
	SourceTree string `json:"source_tree"`
	// SettingsDigest is the keyed digest (64 hex) of the scope's
	// plan-shaping settings (config.Scope.PlanSettings), or "".
	SettingsDigest string `json:"settings_digest"`
	// Counts is derived from Operations: one per operation by its action
	// (the report's count keys; v1's summary).
	Counts vocab.Counts `json:"counts"`
	// Operations: conflicts, then restore, create, update, schedule-delete
	// (apply phase order), then unchanged; ordinals ascending within each.
	// Ordinals are the scope's own: two scopes may both hold resource-0001.
	Operations []Op `json:"operations"`
	// Diagnostics are the problems that stopped or limited this scope,
	// then its warnings, in the order the run met them (diag.Record).
	Diagnostics []diag.Record `json:"diagnostics"`
	// Failures are the scope's failure records (an optional key of v3,
	// absent when there is none and in every file written before it):
	// each failed operation or observation with its class, AWS error code
	// and IAM actions, each resource still differing at the verification
	// timeout with what differs. A reviewed-plan comparison never reads
	// them (Compare): they are what a run met, not what it planned.
	Failures []FailureView `json:"failures,omitempty"`
	// Target is the scope's target when it is not the default (SPEC §16:
	// "parameter-store"; an optional key of v3, absent for Secrets Manager
	// and in every file written before it): the views say what happens in
	// its words (model.Target.Words: a Parameter Store deletion is an
	// immediate DeleteParameter, with no recovery window), and its failure
	// records name its IAM actions.
	Target model.Target `json:"target,omitempty"`
}

// FailureView is one failure record of a scope, redacted: Resource is an
// ordinal label (or the secret name when names are shown), "" for a
// record about the scope as a whole. Class is a registered diag class;
// Action, Reason and Metadata are what failed or still differs (absent
// for an observation); ErrorCode is a modelled AWS error code, never the
// provider's message; IAMActions are vocab.IAMActions of the failed call.
type FailureView struct {
	Resource   string               `json:"resource"`
	Class      string               `json:"class"`
	Action     vocab.Action         `json:"action,omitempty"`
	Reason     vocab.Reason         `json:"reason,omitempty"`
	Metadata   []vocab.MetadataKind `json:"metadata,omitempty"`
	ErrorCode  string               `json:"error_code,omitempty"`
	IAMActions []string             `json:"iam_actions,omitempty"`
}

// Outcome is the run's status and verification as the view shows them:
// the most severe of the scopes' statuses and of their verifications
// (vocab.MostSevere, vocab.MostSevereVerification: SPEC §10, as the
// report's); invalid and not-run when no scope is known, or when an error
// of the run's own stopped a run whose scopes are converged or drifting;
// "" and "" for a v1 file (which records neither).
func (v View) Outcome() (vocab.Status, vocab.Verification) {
	if v.SchemaVersion == vocab.PlanSchemaV1 {
		return "", ""
	}
	if len(v.Scopes) == 0 {
		return vocab.StatusInvalid, vocab.VerificationNotRun
	}
	statuses := make([]vocab.Status, len(v.Scopes))
	verifications := make([]vocab.Verification, len(v.Scopes))
	for i, s := range v.Scopes {
		statuses[i], verifications[i] = s.Status, s.Verification
	}
	st := vocab.MostSevere(statuses...)
	if (st == vocab.StatusConverged || st == vocab.StatusDrift) && errorCount(v.Diagnostics) > 0 {
		return vocab.StatusInvalid, vocab.VerificationNotRun
	}
	return st, vocab.MostSevereVerification(verifications...)
}

// Counts are the scopes' counts summed (what the report counts for the run).
func (v View) Counts() vocab.Counts {
	var c vocab.Counts
	for _, s := range v.Scopes {
		c = c.Plus(s.Counts)
	}
	return c
}

// Op is one operation of a View: one secret.
type Op struct {
	// Resource is "resource-0003", or the secret name when names are shown.
	Resource string       `json:"resource"`
	Action   vocab.Action `json:"action"`
	// Reason is one of Action.Reasons() (a conflict's class).
	Reason vocab.Reason `json:"reason"`
	// Case is which case of a conflict's class was found, where the next
	// action differs between cases (one of the class's
	// vocab.ConflictClass.Cases); absent otherwise and on other actions.
	Case vocab.ConflictCase `json:"conflict_case,omitempty"`
	// Keys counts the key-level changes of a create or update.
	Keys *KeyCounts `json:"keys,omitempty"`
	// KeyPaths names the desired-side paths of Keys; only when names are
	// shown. Removed may be shorter than Keys.Removed: paths that exist only
	// in the observed value are counted, never named.
	KeyPaths *KeyPaths `json:"key_paths,omitempty"`
	// KeysUnavailable replaces Keys when the stored value is not a JSON
	// object, or the document is a whole value (whole-value, the one token
	// a create may carry).
	KeysUnavailable vocab.KeysUnavailable `json:"keys_unavailable,omitempty"`
	// Metadata lists the kinds of configured metadata an update changes
	// (kms-key, description, tags; vocab.MetadataKinds order), never their
	// values or tag keys; absent when none changes and for other actions.
	Metadata []vocab.MetadataKind `json:"metadata,omitempty"`
	// ReplicasAdded are the Regions whose replicas a create or update adds
	// (sorted Region codes); absent when none.
	ReplicasAdded []string `json:"replicas_added,omitempty"`
	// ReplicasRemoved are the Regions whose replicas an update or
	// schedule-delete removes (sorted Region codes): each removal is
	// immediate, cannot be undone, and counts against --max-deletions;
	// absent when none.
	ReplicasRemoved []string `json:"replicas_removed,omitempty"`
	// AWSOwnedKept counts the keys of this secret owned by AWS (aws-owned,
	// SPEC §13) that the plan neither compared nor writes; never their
	// values or names. Absent when 0 (and on a conflict).
	AWSOwnedKept int `json:"aws_owned_kept,omitempty"`
	// Fingerprint is what planning observed of the secret, as keyed
	// digests: on every operation of a v3 file with a DigestSalt, absent
	// otherwise (conflict, unchanged, v1, v2).
	Fingerprint *Fingerprint `json:"fingerprint,omitempty"`
	// immediate is set by the views on a schedule-delete of a scope whose
	// target deletes at once (scopePart); words are the scope's target's
	// (nil: the action's wire spelling). Never written to the plan file.
	immediate bool
	words     *model.TargetWords
}

// Fingerprint is an operation's observed secret as two keyed digests
// (HMAC-SHA-256 under the file's DigestSalt, 64 hex each): Versions over
// its ARN and AWSCURRENT version ids, Metadata over its ARN and its
// managed metadata with the change planned. Neither reveals a value, a
// hash of a value, a length or a name (SPEC §14).
type Fingerprint struct {
	Versions string `json:"versions"`
	Metadata string `json:"metadata"`
}

// KeyCounts are the numbers of leaf paths added, removed and changed.
type KeyCounts struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
}

// KeyPaths are RFC 6901 JSON Pointers of the desired document, sorted.
type KeyPaths struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// Unnamed returns how many removed paths are counted but not named (they
// exist only in the observed AWS value).
func (o Op) Unnamed() int {
	if o.Keys == nil {
		return 0
	}
	if o.KeyPaths == nil {
		return o.Keys.Removed
	}
	return o.Keys.Removed - len(o.KeyPaths.Removed)
}

// rank orders actions as views show them (vocab.Actions).
func rank(a vocab.Action) int {
	if i := slices.Index(vocab.Actions, a); i >= 0 {
		return i
	}
	return len(vocab.Actions)
}

// Build redacts in into a View: the one place where names, key paths and
// the redaction setting meet (SPEC §7.4). Scopes keep their order;
// operations are ordered as ScopeView documents; invalid input (an
// unknown action, a create without Keys, two scopes of one name) gives a
// View that Validate rejects, never a panic.
func Build(in Input, r model.Redaction) View {
	rev := in.GitRevision
	if !model.IsRevision(rev) {
		rev = "" // as in the report: a revision is 40 hex or empty
	}
	v := View{
		SchemaVersion: vocab.PlanSchema,
		Command:       in.Command,
		GitRevision:   rev,
		NamesShown:    r.ShowNames,
		Reviewed:      in.Reviewed,
		Scopes:        make([]ScopeView, 0, len(in.Scopes)),
		Diagnostics:   in.Diagnostics.Records(),
	}
	k := keyed(in.Salt)
	if k != nil {
		v.DigestSalt = hex.EncodeToString(in.Salt)
		if in.RepositoryID != "" {
			v.RepositoryDigest = k.digest("repository-id", []byte(in.RepositoryID))
		}
	}
	for _, s := range in.Scopes {
		v.Scopes = append(v.Scopes, buildScope(s, r, k))
	}
	return v
}

func buildScope(in ScopeInput, r model.Redaction, k *key) ScopeView {
	ops := slices.Clone(in.Operations)
	slices.SortStableFunc(ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(rank(a.Action), rank(b.Action)), cmp.Compare(a.Ordinal, b.Ordinal))
	})
	s := ScopeView{
		Name:         in.Name,
		Region:       in.Region,
		Status:       in.Status,
		Verification: in.Verification,
		SourceTree:   in.SourceTree,
		Operations:   make([]Op, 0, len(ops)),
		Diagnostics:  in.Diagnostics.Records(),
	}
	if !in.Target.IsDefault() {
		s.Target = in.Target.Resolved()
	}
	if k != nil && in.Settings != nil {
		s.SettingsDigest = k.digest("settings", in.Settings)
	}
	for _, o := range ops {
		op := buildOp(o, r)
		if k != nil && o.Action.IsOperation() {
			op.Fingerprint = k.fingerprint(o.Observed)
		}
		s.Operations = append(s.Operations, op)
	}
	s.Counts = Count(s.Operations)
	for _, f := range in.Failures {
		fv := FailureView{Class: f.Class, Action: f.Action, Reason: f.Reason, ErrorCode: f.ErrorCode,
			Metadata: slices.Clone(f.Metadata), IAMActions: slices.Clone(f.IAMActions)}
		if f.Ordinal > 0 || f.Name != "" {
			fv.Resource = r.Label(f.Ordinal, f.Name)
		}
		if len(fv.Metadata) == 0 {
			fv.Metadata = nil
		}
		if len(fv.IAMActions) == 0 {
			fv.IAMActions = nil
		}
		s.Failures = append(s.Failures, fv)
	}
	return s
}

func buildOp(o Operation, r model.Redaction) Op {
	op := Op{Resource: r.Label(o.Ordinal, o.Name), Action: o.Action, Reason: o.Reason}
	if o.Action == vocab.ActionConflict {
		op.Reason = o.Conflict.Reason()
		op.Case = o.Case
	} else if o.AWSOwnedKept > 0 {
		op.AWSOwnedKept = o.AWSOwnedKept
	}
	if (o.Action == vocab.ActionUpdate || o.Action == vocab.ActionAdopt) && len(o.Metadata) > 0 {
		op.Metadata = slices.Clone(o.Metadata)
	}
	if hasKeys(o.Action) && len(o.ReplicasAdded) > 0 {
		op.ReplicasAdded = slices.Sorted(slices.Values(o.ReplicasAdded))
	}
	if (o.Action == vocab.ActionUpdate || o.Action == vocab.ActionScheduleDelete) && len(o.ReplicasRemoved) > 0 {
		op.ReplicasRemoved = slices.Sorted(slices.Values(o.ReplicasRemoved))
	}
	if !hasKeys(o.Action) || o.Keys == nil {
		return op
	}
	s := o.Keys
	if !s.Comparable() {
		op.KeysUnavailable = s.Unavailable
		return op
	}
	added, removed, changed := s.Counts()
	op.Keys = &KeyCounts{Added: added, Removed: removed, Changed: changed}
	if r.ShowNames {
		op.KeyPaths = &KeyPaths{Added: desiredSide(s.Added), Removed: desiredSide(s.Removed), Changed: desiredSide(s.Changed)}
	}
	return op
}

// desiredSide keeps the pointers of the desired document: the redaction
// rule's one filter.
func desiredSide(ps []keydiff.Path) []string {
	out := []string{}
	for _, p := range ps {
		if p.InDesired {
			out = append(out, p.Pointer)
		}
	}
	slices.Sort(out)
	return out
}

func hasKeys(a vocab.Action) bool {
	return a == vocab.ActionCreate || a == vocab.ActionUpdate || a == vocab.ActionAdopt
}

// Count derives the summary from operations: each counted once by its
// action (vocab.Counts.Add, the one count of an action).
func Count(ops []Op) vocab.Counts {
	var c vocab.Counts
	for _, o := range ops {
		c.Add(o.Action)
	}
	return c
}

// Kept sums the operations' AWSOwnedKept: the keys owned by AWS the plan
// kept (SPEC §13).
func Kept(ops []Op) int {
	n := 0
	for _, o := range ops {
		n += o.AWSOwnedKept
	}
	return n
}
