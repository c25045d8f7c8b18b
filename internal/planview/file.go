package planview

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// MaxFileBytes caps what ReadFile reads: 64 MiB, far above a plan of
// 10,000 secrets with names and key paths shown.
const MaxFileBytes = 64 << 20

// File is the plan file's kind: its temporary-file pattern and read cap.
var File = wirefile.File{Temp: ".sops-aws-sync-plan-*.tmp", MaxBytes: MaxFileBytes}

// Error is a plan file that cannot be read or is not a valid v3, v2 or v1
// plan. Class is one of the planfile:* tokens of the diag registry (SPEC
// §7.4; this package defines none of its own): diag.PlanfileUnknownSchema
// (schema_version is none of v3, v2 and v1: a file of another major
// version), diag.PlanfileMalformed (the file breaks its schema),
// diag.PlanfileUnreadable (it cannot be opened or read, or is larger than
// MaxFileBytes) or diag.PlanfileNotRegularFile (the path names a FIFO, a
// device node, a socket). Reason is a fixed sentence of this package: it
// never quotes the file.
type Error struct {
	Class  string
	Reason string
}

func (e *Error) Error() string { return e.Class + ": " + e.Reason }

func malformed(format string, a ...any) *Error {
	return &Error{diag.PlanfileMalformed, fmt.Sprintf(format, a...)}
}

var (
	labelRE = regexp.MustCompile(`^resource-(unknown|[0-9]{4,})$`)
	// scopeNameRE is the scope name rule (SPEC §10).
	scopeNameRE = regexp.MustCompile(`^[a-z0-9-]{1,32}$`)
)

func unknownSchema() *Error {
	return &Error{diag.PlanfileUnknownSchema, "schema_version is none of " + vocab.PlanSchema + ", " + vocab.PlanSchemaV2 + " and " + vocab.PlanSchemaV1}
}

// Validate checks the plan-file rules on v, the redaction rule's shape
// included. Run level: the schema (v2; v1 only as Parse gives it: one
// scope "default" with no Region, status or verification); a 40-hex or
// empty git_revision; scopes with distinct names of the scope name rule,
// a Region code or "", a known status and verification, and counts equal
// to the counts of their operations; no scope only when a run-level
// diagnostic is an error. In a scope, no two operations share an action
// and a resource (the engine files each secret once per action: a restore
// and its follow-up update are two actions), and a scope converged with
// verification not-run (a plan, or a sync with nothing to do) lists no
// operation and no conflict: only a sync that applied its operations and
// verified them (verification converged) is converged with operations.
// Operations: known actions and reasons; with
// names hidden, every resource an ordinal label and no key_paths; metadata
// kinds only on an update; for create and update exactly one of keys and
// keys_unavailable (a create only whole-value), with key_paths exactly
// when names are shown, holding valid, sorted, distinct RFC 6901
// pointers, as many added and changed as counted and no more removed than
// counted; for other actions none of them. Diagnostics (run and scope):
// a class and a summary, and, with names hidden, a subject that is no
// document path (hiddenSubject). Failures are *Error.
func (v View) Validate() error {
	v1 := v.SchemaVersion == vocab.PlanSchemaV1
	if v.SchemaVersion != vocab.PlanSchema && v.SchemaVersion != vocab.PlanSchemaV2 && !v1 {
		return unknownSchema()
	}
	if err := v.validateBindings(); err != nil {
		return malformed("%s", err)
	}
	if v.GitRevision != "" && !model.IsRevision(v.GitRevision) {
		return malformed("git_revision is neither empty nor 40 lower-case hex characters")
	}
	if v.Scopes == nil || v.Diagnostics == nil {
		return malformed("scopes and diagnostics must be arrays")
	}
	if err := validateDiagnostics(v.Diagnostics, v.NamesShown); err != nil {
		return malformed("%s", err)
	}
	if v1 {
		if len(v.Scopes) != 1 || v.Scopes[0].Name != model.DefaultScopeName || v.Scopes[0].Region != "" || v.Scopes[0].Status != "" || v.Scopes[0].Verification != "" {
			return malformed("a v1 plan is one scope named default with no Region, status or verification")
		}
	} else if len(v.Scopes) == 0 && errorCount(v.Diagnostics) == 0 {
		return malformed("no scope, but no run-level error says why")
	}
	seen := map[string]bool{}
	for i, sc := range v.Scopes {
		if err := sc.validate(v.NamesShown, v1); err != nil {
			return malformed("scope %d: %s", i, err)
		}
		if seen[sc.Name] {
			return malformed("scope %d: the name of an earlier scope", i)
		}
		seen[sc.Name] = true
	}
	return nil
}

// validateBindings checks v3's bindings (SPEC §14): command "plan",
// "sync", "validate" (SPEC §15) or ""; digest_salt "" or 32 lower-case hex; with a salt, a
// repository_digest and every settings_digest "" or 64 lower-case hex and a
// fingerprint of two 64-hex digests on every operation and on nothing
// else; without one (and in every v1 or v2 file), none of them; a
// source_tree "" or 40 lower-case hex.
func (v View) validateBindings() error {
	bound := v.DigestSalt != ""
	switch {
	case v.SchemaVersion != vocab.PlanSchema && (v.Command != "" || bound || v.RepositoryDigest != ""):
		return errors.New("a v1 or v2 plan has no command, digest_salt or repository_digest")
	case v.Command != "" && v.Command != CommandPlan && v.Command != CommandSync && v.Command != CommandValidate:
		return errors.New("command is none of plan, sync, validate and empty")
	case bound && !model.IsLowerHex(v.DigestSalt, 2*SaltBytes):
		return errors.New("digest_salt is neither empty nor 32 lower-case hex characters")
	case !optionalDigest(v.RepositoryDigest, bound):
		return errors.New("repository_digest is neither empty nor a digest under the file's salt")
	case v.Reviewed != nil && v.Command != CommandSync:
		return errors.New("reviewed belongs only to a sync's file")
	case v.Reviewed != nil && (!model.IsRevision(v.Reviewed.GitRevision) || v.Reviewed.Operations < 0):
		return errors.New("reviewed needs a 40 lower-case hex git_revision and a count of operations of at least 0")
	}
	for i, sc := range v.Scopes {
		switch {
		case v.SchemaVersion != vocab.PlanSchema && sc.SourceTree != "":
			return fmt.Errorf("scope %d: a v1 or v2 plan has no source_tree", i)
		case sc.SourceTree != "" && !model.IsRevision(sc.SourceTree):
			return fmt.Errorf("scope %d: source_tree is neither empty nor 40 lower-case hex characters", i)
		case !optionalDigest(sc.SettingsDigest, bound):
			return fmt.Errorf("scope %d: settings_digest is neither empty nor a digest under the file's salt", i)
		}
		for j, o := range sc.Operations {
			want := bound && o.Action.IsOperation()
			switch {
			case want != (o.Fingerprint != nil):
				return fmt.Errorf("scope %d: operation %d: a fingerprint belongs on every operation of a file with a digest_salt, and nowhere else", i, j)
			case want && (!model.IsDigest(o.Fingerprint.Versions) || !model.IsDigest(o.Fingerprint.Metadata)):
				return fmt.Errorf("scope %d: operation %d: a fingerprint digest is not 64 lower-case hex characters", i, j)
			}
		}
	}
	return nil
}

// optionalDigest: "" always; otherwise 64 lower-case hex, only in a file
// with a salt.
func optionalDigest(d string, bound bool) bool {
	return d == "" || (bound && model.IsDigest(d))
}

// The commands that write a plan file (View.Command).
const (
	CommandPlan     = "plan"
	CommandSync     = "sync"
	CommandValidate = "validate" // diagnostics only, never reviewable (SPEC §15)
)

func (s ScopeView) validate(namesShown, v1 bool) error {
	if !v1 {
		switch {
		case !scopeNameRE.MatchString(s.Name):
			return errors.New("name breaks the scope name rule [a-z0-9-]{1,32}")
		case s.Region != "" && !model.ValidRegion(s.Region):
			return errors.New("region is neither empty nor an AWS Region code")
		case !slices.Contains(vocab.Statuses, s.Status):
			return errors.New("unknown status")
		case !slices.Contains(vocab.Verifications, s.Verification):
			return errors.New("unknown verification")
		}
	}
	if s.Operations == nil || s.Diagnostics == nil {
		return errors.New("operations and diagnostics must be arrays")
	}
	type entry struct {
		action   vocab.Action
		resource string
	}
	seen := make(map[entry]bool, len(s.Operations))
	for i, o := range s.Operations {
		if err := o.validate(namesShown); err != nil {
			return fmt.Errorf("operation %d: %w", i, err)
		}
		if seen[entry{o.Action, o.Resource}] {
			return fmt.Errorf("operation %d: the action and resource of an earlier operation", i)
		}
		seen[entry{o.Action, o.Resource}] = true
	}
	if s.Counts != Count(s.Operations) {
		return errors.New("counts do not match the operations")
	}
	if s.Status == vocab.StatusConverged && s.Verification == vocab.VerificationNotRun && slices.ContainsFunc(s.Operations, func(o Op) bool {
		return o.Action.IsOperation() || o.Action == vocab.ActionConflict
	}) {
		return errors.New("status converged without verification, but it lists an operation or a conflict")
	}
	if s.Target != "" && (!s.Target.Known() || s.Target.IsDefault()) {
		return errors.New("target must be absent (the default, secrets-manager) or another target")
	}
	for i, f := range s.Failures {
		if err := f.validate(namesShown, s.Target); err != nil {
			return fmt.Errorf("failure %d: %w", i, err)
		}
	}
	return validateDiagnostics(s.Diagnostics, namesShown)
}

var (
	// errorCodeRE is an AWS error code as the engine reports it: a
	// modelled code or one of the tool's own (engine.Error), never text.
	errorCodeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,63}$`)
)

// validate checks one failure record: a registered class that is no
// warning; a resource that is "" (the scope) or, with names hidden, an
// ordinal label; an action that is an operation with a reason of it, or
// conflict with its conflict class as the reason (exactly for
// conflict:late and verify:conflict), or neither; metadata kinds only with an operation; an error code of letters
// and digits; distinct IAM actions of the form service:Action whose
// service is one the scope's target calls (model.Target.ValidIAMAction:
// its own service's, STS's, KMS's).
// conflictClasses are the classes of a failure record about a conflict
// met after planning: its action is conflict, its reason the conflict
// class.
var conflictClasses = map[string]bool{diag.ConflictLate: true, diag.VerifyConflict: true}

func (f FailureView) validate(namesShown bool, target model.Target) error {
	e, ok := diag.Lookup(f.Class)
	switch {
	case !ok || e.Family == diag.FamilyWarning:
		return errors.New("class is not a registered error class")
	case f.Resource != "" && !namesShown && !labelRE.MatchString(f.Resource):
		return errors.New("resource is not an ordinal label, but names are not shown")
	case f.Action == "" && (f.Reason != "" || f.Metadata != nil):
		return errors.New("a reason or metadata without an action")
	case conflictClasses[f.Class] != (f.Action == vocab.ActionConflict):
		return errors.New("the action is conflict exactly for a record of a conflict met while applying or verifying")
	case f.Action != "" && (!f.Action.IsOperation() && f.Action != vocab.ActionConflict || !slices.Contains(f.Action.Reasons(), f.Reason)):
		return errors.New("action is not an operation or conflict with one of its reasons")
	case f.Action == vocab.ActionConflict && f.Metadata != nil:
		return errors.New("a conflict's record carries no metadata")
	case f.Metadata != nil && !validMetadata(f.Metadata):
		return errors.New("metadata must be a non-empty list of distinct known kinds in schema order")
	case f.ErrorCode != "" && !errorCodeRE.MatchString(f.ErrorCode):
		return errors.New("error_code is not an error code")
	case f.IAMActions != nil && len(f.IAMActions) == 0:
		return errors.New("iam_actions is empty")
	}
	for i, a := range f.IAMActions {
		if !target.ValidIAMAction(a) || slices.Contains(f.IAMActions[:i], a) {
			return errors.New("iam_actions must be distinct IAM actions (service:Action)")
		}
	}
	return nil
}

func validateDiagnostics(ds []diag.Record, namesShown bool) error {
	for i, d := range ds {
		if d.Class == "" || d.Summary == "" {
			return fmt.Errorf("diagnostic %d has no class or summary", i)
		}
		if !namesShown && !hiddenSubject(d.Subject) {
			return fmt.Errorf("diagnostic %d: subject is neither an ordinal label nor a setting, but names are not shown", i)
		}
	}
	return nil
}

// settingSubjects are the forms of every subject a diagnostic names a
// setting with (diag.Subject.Name): "flag --secret-prefix" and "setting
// --x" (a setting name), "environment variable SOPS_AWS_SYNC_X" (the
// variable as set, which config echoes whatever follows the prefix), and
// "config file key x" where x is a key as config echoes it: a key of
// config's safe key text ([a-z0-9_-], at most 40), "at line N", or a path
// into scopes: (scopes.<scope name>.<key>, scopes[<index>].<key>,
// scopes[<index>], scopes). A form checked by its prefix alone let a
// hand-edited file hide a secret name or document path after "config file
// key " in a plan whose names are hidden.
var settingSubjects = []*regexp.Regexp{
	regexp.MustCompile(`^(flag|setting) --[a-z0-9-]{1,40}$`),
	regexp.MustCompile(`^environment variable SOPS_AWS_SYNC_`),
	regexp.MustCompile(`^config file key (at line [0-9]+|[a-z0-9_-]{1,40}|scopes((\.[a-z0-9-]{1,32}|\[[0-9]+\])(\.[a-z0-9_-]{1,40})?)?)$`),
}

// hiddenSubject reports whether a diagnostic subject may appear in a plan
// file whose names are hidden: none, a document's ordinal label, or a
// setting (diag.Subject.Name of a subject without a path). Anything else
// may be a document path, which the redaction rule (SPEC §7.4) keeps out
// of a plan written without --show-resource-names, like a resource name.
func hiddenSubject(s string) bool {
	if s == "" || s == "config file" || labelRE.MatchString(s) {
		return true
	}
	for _, re := range settingSubjects {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

func (o Op) validate(namesShown bool) error {
	switch {
	case !o.Action.Known():
		return errors.New("unknown action")
	case !slices.Contains(o.Action.Reasons(), o.Reason):
		return errors.New("reason not valid for the action")
	case o.Resource == "":
		return errors.New("no resource")
	case !namesShown && !labelRE.MatchString(o.Resource):
		return errors.New("resource is not an ordinal label, but names are not shown")
	}
	if o.Metadata != nil && o.Action != vocab.ActionUpdate && o.Action != vocab.ActionAdopt {
		return errors.New("metadata on an action other than update")
	}
	if o.Metadata != nil && !validMetadata(o.Metadata) {
		return errors.New("metadata must be a non-empty list of distinct known kinds in schema order")
	}
	if o.Case != "" && (o.Action != vocab.ActionConflict || !slices.Contains(vocab.ConflictClass(o.Reason).Cases(), o.Case)) {
		return errors.New("conflict_case must be a case of the conflict's class, on a conflict")
	}
	if o.AWSOwnedKept < 0 || (o.AWSOwnedKept > 0 && o.Action == vocab.ActionConflict) {
		return errors.New("aws_owned_kept must be a positive count on an action other than conflict")
	}
	if o.ReplicasAdded != nil && (!hasKeys(o.Action) || !validRegions(o.ReplicasAdded)) {
		return errors.New("replicas_added must be sorted distinct Region codes on a create or update")
	}
	if o.ReplicasRemoved != nil && (!(o.Action == vocab.ActionUpdate || o.Action == vocab.ActionScheduleDelete) || !validRegions(o.ReplicasRemoved)) {
		return errors.New("replicas_removed must be sorted distinct Region codes on an update or schedule-delete")
	}
	if !hasKeys(o.Action) {
		if o.Keys != nil || o.KeyPaths != nil || o.KeysUnavailable != "" {
			return errors.New("keys on an action other than create, adopt or update")
		}
		return nil
	}
	if o.KeysUnavailable != "" {
		if (o.Action == vocab.ActionCreate && o.KeysUnavailable != vocab.KeysWholeValue) || o.Keys != nil || o.KeyPaths != nil || !slices.Contains(vocab.KeysUnavailableReasons, o.KeysUnavailable) {
			return errors.New("keys_unavailable must be a known token and come alone")
		}
		return nil
	}
	k := o.Keys
	if k == nil {
		return errors.New("create, adopt or update without keys or keys_unavailable")
	}
	if k.Added < 0 || k.Removed < 0 || k.Changed < 0 {
		return errors.New("negative key count")
	}
	if namesShown != (o.KeyPaths != nil) {
		return errors.New("key_paths must be present exactly when names are shown")
	}
	if p := o.KeyPaths; p != nil {
		if len(p.Added) != k.Added || len(p.Changed) != k.Changed || len(p.Removed) > k.Removed {
			return errors.New("key_paths do not match the key counts")
		}
		for _, l := range [][]string{p.Added, p.Removed, p.Changed} {
			if l == nil || !slices.IsSorted(l) || len(slices.Compact(slices.Clone(l))) != len(l) {
				return errors.New("key_paths lists must be sorted, distinct arrays")
			}
			for _, ptr := range l {
				if !keydiff.ValidPointer(ptr) {
					return errors.New("a key path is not an RFC 6901 pointer")
				}
			}
		}
	}
	return nil
}

// validMetadata: non-empty, known kinds, strictly in vocab.MetadataKinds order.
func validMetadata(ks []vocab.MetadataKind) bool {
	last := -1
	for _, k := range ks {
		i := slices.Index(vocab.MetadataKinds, k)
		if i <= last {
			return false
		}
		last = i
	}
	return len(ks) > 0
}

// errWritesV3Only refuses to write a View read from a v1 or v2 file.
func errWritesV3Only() *Error {
	return &Error{diag.PlanfileUnknownSchema, "only " + vocab.PlanSchema + " is written"}
}

// Marshal validates v and returns the plan file: indented JSON with a
// trailing newline. A View that breaks the schema is Validate's *Error;
// only v3 is written (a View read from a v1 or v2 file is refused).
func Marshal(v View) ([]byte, error) {
	if v.SchemaVersion != vocab.PlanSchema {
		return nil, errWritesV3Only()
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("failed to encode plan file: %w", err)
	}
	return append(b, '\n'), nil
}

// viewV2 is the plan file before the reviewed-plan binding (schema
// sops-aws-sync/plan/v2, SPEC §10), field for field: v3 without command,
// digest_salt, repository_digest, source_tree, settings_digest and
// fingerprint.
type viewV2 struct {
	SchemaVersion string        `json:"schema_version"`
	GitRevision   string        `json:"git_revision"`
	NamesShown    bool          `json:"names_shown"`
	Scopes        []scopeV2     `json:"scopes"`
	Diagnostics   []diag.Record `json:"diagnostics"`
}

type scopeV2 struct {
	Name         string             `json:"name"`
	Region       string             `json:"region"`
	Status       vocab.Status       `json:"status"`
	Verification vocab.Verification `json:"verification"`
	Counts       vocab.Counts       `json:"counts"`
	Operations   []Op               `json:"operations"`
	Diagnostics  []diag.Record      `json:"diagnostics"`
}

// viewV1 is the plan file before scopes (schema sops-aws-sync/plan/v1,
// SPEC §7.4), field for field; Parse reads it as one scope. Its summary
// keeps v1's six count keys, whatever vocab.Counts gains later (so an
// operation of a later action, adopt, never matches a v1 summary).
type viewV1 struct {
	SchemaVersion string        `json:"schema_version"`
	GitRevision   string        `json:"git_revision"`
	NamesShown    bool          `json:"names_shown"`
	Operations    []Op          `json:"operations"`
	Summary       countsV1      `json:"summary"`
	Diagnostics   []diag.Record `json:"diagnostics"`
}

// countsV1 are the summary keys of a v1 plan file (the report's counts).
type countsV1 struct {
	Create         int `json:"create"`
	Update         int `json:"update"`
	Restore        int `json:"restore"`
	ScheduleDelete int `json:"schedule_delete"`
	Unchanged      int `json:"unchanged"`
	Conflicts      int `json:"conflicts"`
}

// Parse decodes a plan file strictly. First the bytes (wirefile.Check:
// valid UTF-8, one JSON object, no key twice anywhere, no null); then a
// schema_version other than v3, v2 or v1 is diag.PlanfileUnknownSchema (so
// a newer file is named as such); then that schema's shape exactly
// (wirefile.Decode: every key spelled as the schema spells it, none
// unknown, none missing but the optional ones of an operation, correct
// JSON types) and Validate. A v1 file becomes a View of schema v1 with one
// scope "default" holding its operations (its summary as counts) and its
// diagnostics, and no Region, status or verification; a v2 file a View of
// schema v2 without v3's bindings. Failures are *Error.
func Parse(data []byte) (View, error) {
	if err := wirefile.Check(data); err != nil {
		return View{}, malformed("%s", err)
	}
	var top map[string]json.RawMessage
	var schema string
	if json.Unmarshal(data, &top) != nil || json.Unmarshal(top["schema_version"], &schema) != nil {
		return View{}, unknownSchema()
	}
	var v View
	switch schema {
	case vocab.PlanSchema:
		if err := wirefile.Decode(data, &v); err != nil {
			return View{}, malformed("%s", err)
		}
	case vocab.PlanSchemaV2:
		var old viewV2
		if err := wirefile.Decode(data, &old); err != nil {
			return View{}, malformed("%s", err)
		}
		v = View{SchemaVersion: old.SchemaVersion, GitRevision: old.GitRevision, NamesShown: old.NamesShown, Diagnostics: old.Diagnostics}
		if old.Scopes != nil {
			v.Scopes = make([]ScopeView, len(old.Scopes))
		}
		for i, sc := range old.Scopes {
			v.Scopes[i] = ScopeView{Name: sc.Name, Region: sc.Region, Status: sc.Status, Verification: sc.Verification,
				Counts: sc.Counts, Operations: sc.Operations, Diagnostics: sc.Diagnostics}
		}
	case vocab.PlanSchemaV1:
		var old viewV1
		if err := wirefile.Decode(data, &old); err != nil {
			return View{}, malformed("%s", err)
		}
		c := old.Summary
		v = View{SchemaVersion: old.SchemaVersion, GitRevision: old.GitRevision, NamesShown: old.NamesShown,
			Scopes: []ScopeView{{Name: model.DefaultScopeName, Operations: old.Operations, Diagnostics: old.Diagnostics,
				Counts: vocab.Counts{Create: c.Create, Update: c.Update, Restore: c.Restore, ScheduleDelete: c.ScheduleDelete,
					Unchanged: c.Unchanged, Conflicts: c.Conflicts}}},
			Diagnostics: []diag.Record{}}
	default:
		return View{}, unknownSchema()
	}
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	return v, nil
}

// WriteFile validates v and writes the plan file to path atomically with
// mode 0600 (internal/wirefile, the writer of the report file too; an
// existing target that is not a regular file is refused). Only v3 is
// written (v3). Failures are *wirefile.WriteError.
func WriteFile(path string, v View) error {
	if v.SchemaVersion != vocab.PlanSchema {
		return &wirefile.WriteError{Step: "validate", Err: errWritesV3Only()}
	}
	return File.WriteJSON(path, v)
}

// ReadFile reads and parses the plan file at path (a regular file of at
// most MaxFileBytes; a FIFO never blocks). Failures are *Error:
// diag.PlanfileNotRegularFile, diag.PlanfileUnreadable, or Parse's classes.
func ReadFile(path string) (View, error) {
	data, err := File.Read(path)
	switch {
	case errors.Is(err, wirefile.ErrNotRegular):
		return View{}, &Error{diag.PlanfileNotRegularFile, "the path is not a regular file"}
	case errors.Is(err, wirefile.ErrTooLarge):
		return View{}, &Error{diag.PlanfileUnreadable, "the plan file is larger than 64 MiB"}
	case errors.Is(err, wirefile.ErrOpen):
		return View{}, &Error{diag.PlanfileUnreadable, "the plan file cannot be opened"}
	case err != nil:
		return View{}, &Error{diag.PlanfileUnreadable, "the plan file cannot be read"}
	}
	return Parse(data)
}

// validRegions reports whether rs is a non-empty, strictly ascending list
// of AWS Region codes (model.ValidRegion): a plan file's replica Regions.
func validRegions(rs []string) bool {
	if len(rs) == 0 {
		return false
	}
	for i, r := range rs {
		if !model.ValidRegion(r) || (i > 0 && rs[i-1] >= r) {
			return false
		}
	}
	return true
}
