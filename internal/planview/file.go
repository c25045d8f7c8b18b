package planview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/atomicfile"
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/report"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Class tokens of plan-file failures, family "planfile" (one word, as the
// diag registry's families are). They are part of the public contract
// (docs/results.md) and are to be registered in internal/diag.
const (
	// ClassUnknownSchema: schema_version is not sops-aws-sync/plan/v1 (a
	// file from another major version of the tool).
	ClassUnknownSchema = "planfile:unknown-schema"
	// ClassMalformed: the file breaks the v1 schema.
	ClassMalformed = "planfile:malformed"
	// ClassUnreadable: the file cannot be opened or read, or is larger
	// than MaxFileBytes.
	ClassUnreadable = "planfile:unreadable"
	// ClassWriteFailed: WriteFile failed (see WriteError).
	ClassWriteFailed = "planfile:write-failed"
)

// MaxFileBytes caps what ReadFile reads: 64 MiB, far above a plan of
// 10,000 secrets with names and key paths shown.
const MaxFileBytes = 64 << 20

// Error is a plan file that cannot be read or is not a valid v1 plan.
// Reason is a fixed sentence of this package: it never quotes the file.
type Error struct {
	Class  string
	Reason string
}

func (e *Error) Error() string { return e.Class + ": " + e.Reason }

func malformed(format string, a ...any) *Error {
	return &Error{ClassMalformed, fmt.Sprintf(format, a...)}
}

var labelRE = regexp.MustCompile(`^resource-(unknown|[0-9]{4,})$`)

// Validate checks the v1 rules on v, the redaction rule's shape included:
// the schema; a 40-hex or empty git_revision; known actions and reasons;
// with names hidden, every resource an ordinal label and no key_paths;
// metadata kinds only on an update;
// for create and update exactly one of keys and keys_unavailable, with
// key_paths exactly when names are shown, holding valid, sorted, distinct
// RFC 6901 pointers, as many added and changed as counted and no more
// removed than counted; for other actions none of them; a summary equal to
// the counts of the operations; diagnostics with a class and a summary.
// Failures are *Error.
func (v View) Validate() error {
	if v.SchemaVersion != vocab.PlanSchema {
		return &Error{ClassUnknownSchema, "schema_version is not " + vocab.PlanSchema}
	}
	if v.GitRevision != "" && !report.IsRevision(v.GitRevision) {
		return malformed("git_revision is neither empty nor 40 lower-case hex characters")
	}
	for i, o := range v.Operations {
		if err := o.validate(v.NamesShown); err != nil {
			return malformed("operation %d: %s", i, err)
		}
	}
	if v.Summary != Count(v.Operations) {
		return malformed("summary does not match the operations")
	}
	for i, d := range v.Diagnostics {
		if d.Class == "" || d.Summary == "" {
			return malformed("diagnostic %d has no class or summary", i)
		}
	}
	return nil
}

func (o Op) validate(namesShown bool) error {
	reasons, ok := vocab.PlanReasons[o.Action]
	switch {
	case !ok:
		return errors.New("unknown action")
	case !slices.Contains(reasons, o.Reason):
		return errors.New("reason not valid for the action")
	case o.Resource == "":
		return errors.New("no resource")
	case !namesShown && !labelRE.MatchString(o.Resource):
		return errors.New("resource is not an ordinal label, but names are not shown")
	}
	if o.Metadata != nil && o.Action != vocab.PlanUpdate {
		return errors.New("metadata on an action other than update")
	}
	if o.Metadata != nil && !validMetadata(o.Metadata) {
		return errors.New("metadata must be a non-empty list of distinct known kinds in schema order")
	}
	if !hasKeys(o.Action) {
		if o.Keys != nil || o.KeyPaths != nil || o.KeysUnavailable != "" {
			return errors.New("keys on an action other than create or update")
		}
		return nil
	}
	if o.KeysUnavailable != "" {
		if o.Action == vocab.PlanCreate || o.Keys != nil || o.KeyPaths != nil || !slices.Contains(vocab.KeysUnavailableReasons, o.KeysUnavailable) {
			return errors.New("keys_unavailable must be a known token and come alone")
		}
		return nil
	}
	k := o.Keys
	if k == nil {
		return errors.New("create or update without keys or keys_unavailable")
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

// Marshal validates v and returns the plan file: indented JSON with a
// trailing newline.
func Marshal(v View) ([]byte, error) {
	if err := v.Validate(); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("failed to encode plan file: %w", err)
	}
	return append(b, '\n'), nil
}

var (
	topKeys     = []string{"schema_version", "git_revision", "names_shown", "operations", "summary", "diagnostics"}
	summaryKeys = []string{"create", "update", "restore", "schedule_delete", "unchanged", "conflicts"}
)

// Parse decodes a plan file strictly: a schema_version other than v1 is
// ClassUnknownSchema (checked first, so a newer file is named as such);
// then exactly the v1 top-level and summary keys, no unknown key anywhere,
// correct JSON types, no trailing data, and Validate. Failures are *Error.
func Parse(data []byte) (View, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return View{}, malformed("not a JSON object")
	}
	var schema string
	if raw, ok := top["schema_version"]; !ok || json.Unmarshal(raw, &schema) != nil || schema != vocab.PlanSchema {
		return View{}, &Error{ClassUnknownSchema, "schema_version is not " + vocab.PlanSchema}
	}
	if err := exactKeys(top, topKeys); err != nil {
		return View{}, err
	}
	var summary map[string]json.RawMessage
	if err := json.Unmarshal(top["summary"], &summary); err != nil {
		return View{}, malformed("summary is not an object")
	}
	if err := exactKeys(summary, summaryKeys); err != nil {
		return View{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var v View
	if err := dec.Decode(&v); err != nil {
		return View{}, malformed("a key is unknown or a value has the wrong JSON type")
	}
	if _, err := dec.Token(); err != io.EOF {
		return View{}, malformed("trailing data")
	}
	if v.Operations == nil || v.Diagnostics == nil {
		return View{}, malformed("operations and diagnostics must be arrays")
	}
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	return v, nil
}

func exactKeys(m map[string]json.RawMessage, want []string) error {
	if len(m) != len(want) {
		return malformed("%d keys, want exactly %d", len(m), len(want))
	}
	for _, k := range want {
		v, ok := m[k]
		if !ok {
			return malformed("missing key %s", k)
		}
		if string(v) == "null" {
			return malformed("key %s is null", k)
		}
	}
	return nil
}

// WriteError is a failed WriteFile (class ClassWriteFailed). Step is
// validate, encode, or an atomicfile step (create, chmod, write, sync,
// close, rename); the message never holds the path.
type WriteError struct {
	Step string
	Err  error
}

func (e *WriteError) Error() string {
	return ClassWriteFailed + ": failed to write plan file (" + e.Step + ")"
}
func (e *WriteError) Unwrap() error { return e.Err }

// WriteFile validates v and writes the plan file to path atomically with
// mode 0600 (internal/atomicfile, the writer the report file uses).
// Failures are *WriteError.
func WriteFile(path string, v View) error {
	if err := v.Validate(); err != nil {
		return &WriteError{"validate", err}
	}
	data, err := Marshal(v)
	if err != nil {
		return &WriteError{"encode", err}
	}
	if err := atomicfile.Write(path, data, ".sops-aws-sync-plan-*.tmp"); err != nil {
		var ae *atomicfile.Error
		if errors.As(err, &ae) {
			return &WriteError{ae.Step, ae.Err}
		}
		return &WriteError{"write", err}
	}
	return nil
}

// ReadFile reads and parses the plan file at path (at most MaxFileBytes).
// Failures are *Error: ClassUnreadable, or Parse's classes.
func ReadFile(path string) (View, error) {
	f, err := os.Open(path)
	if err != nil {
		return View{}, &Error{ClassUnreadable, "the plan file cannot be opened"}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return View{}, &Error{ClassUnreadable, "the plan file cannot be read"}
	}
	if len(data) > MaxFileBytes {
		return View{}, &Error{ClassUnreadable, "the plan file is larger than 64 MiB"}
	}
	return Parse(data)
}
