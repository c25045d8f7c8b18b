package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/atomicfile"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Report is the content of the report file (SPEC §7.2). Field order is the
// order of the keys in the file.
type Report struct {
	SchemaVersion string             `json:"schema_version"`
	ToolVersion   string             `json:"tool_version"`
	GitRevision   string             `json:"git_revision"`
	Status        vocab.Status       `json:"status"`
	Counts        vocab.Counts       `json:"counts"`
	Verification  vocab.Verification `json:"verification"`
	DurationMS    int64              `json:"duration_ms"`
}

// New returns a report of schema v1. A revision that is not 40 lower-case
// hex characters is recorded as empty (SPEC §7.2).
func New(toolVersion, revision string, status vocab.Status, v vocab.Verification, c vocab.Counts, durationMS int64) Report {
	if !IsRevision(revision) {
		revision = ""
	}
	if durationMS < 0 {
		durationMS = 0
	}
	return Report{
		SchemaVersion: vocab.ReportSchema, ToolVersion: toolVersion, GitRevision: revision,
		Status: status, Counts: c, Verification: v, DurationMS: durationMS,
	}
}

// IsRevision reports whether s is a full 40-hex commit SHA.
func IsRevision(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Validate checks the schema's value rules: known schema, status and
// verification tokens, a 40-hex or empty revision, non-negative numbers.
func (r Report) Validate() error {
	switch {
	case r.SchemaVersion != vocab.ReportSchema:
		return errors.New("report: unknown schema_version")
	case !slices.Contains(vocab.Statuses, r.Status):
		return errors.New("report: unknown status")
	case !slices.Contains(vocab.Verifications, r.Verification):
		return errors.New("report: unknown verification")
	case r.GitRevision != "" && !IsRevision(r.GitRevision):
		return errors.New("report: git_revision is neither empty nor 40 hex characters")
	case r.DurationMS < 0:
		return errors.New("report: negative duration_ms")
	}
	c := r.Counts
	if c.Create < 0 || c.Update < 0 || c.Restore < 0 || c.ScheduleDelete < 0 || c.Unchanged < 0 || c.Conflicts < 0 {
		return errors.New("report: negative count")
	}
	return nil
}

// Marshal returns the report as indented JSON with a trailing newline.
func Marshal(r Report) ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("failed to encode report: %w", err)
	}
	return append(b, '\n'), nil
}

// Parse decodes a report strictly: exactly the v1 keys (no more, no fewer,
// at the top level and in counts), correct JSON types, and valid values.
func Parse(data []byte) (Report, error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return Report{}, errors.New("report: not a JSON object")
	}
	want := []string{"schema_version", "tool_version", "git_revision", "status", "counts", "verification", "duration_ms"}
	if err := exactKeys(keys, want); err != nil {
		return Report{}, err
	}
	var counts map[string]json.RawMessage
	if err := json.Unmarshal(keys["counts"], &counts); err != nil {
		return Report{}, errors.New("report: counts is not an object")
	}
	if err := exactKeys(counts, []string{"create", "update", "restore", "schedule_delete", "unchanged", "conflicts"}); err != nil {
		return Report{}, fmt.Errorf("counts: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return Report{}, errors.New("report: a value has the wrong JSON type")
	}
	if _, err := dec.Token(); err != io.EOF {
		return Report{}, errors.New("report: trailing data")
	}
	return r, r.Validate()
}

func exactKeys(m map[string]json.RawMessage, want []string) error {
	if len(m) != len(want) {
		return fmt.Errorf("report: %d keys, want exactly %d", len(m), len(want))
	}
	for _, k := range want {
		v, ok := m[k]
		if !ok {
			return fmt.Errorf("report: missing key %s", k)
		}
		if string(v) == "null" {
			return fmt.Errorf("report: key %s is null", k)
		}
	}
	return nil
}

// WriteError is returned by WriteFile; the CLI maps it to exit 3
// (SPEC §7.1: a report-file write failure forces exit 3).
type WriteError struct {
	// Step is the stage that failed: validate, create, write, sync, close,
	// chmod or rename. The path is deliberately not part of the message.
	Step string
	Err  error
}

func (e *WriteError) Error() string { return "failed to write report file (" + e.Step + ")" }
func (e *WriteError) Unwrap() error { return e.Err }

// WriteFile validates r and writes it to path atomically (atomicfile.Write:
// a temporary file in the same directory created with mode 0600, written,
// fsynced, closed, then renamed over path; the directory fsynced on a
// best-effort basis). On any failure the temporary file is removed and a
// *WriteError returned.
func WriteFile(path string, r Report) error {
	if err := r.Validate(); err != nil {
		return &WriteError{"validate", err}
	}
	data, err := Marshal(r)
	if err != nil {
		return &WriteError{"encode", err}
	}
	if err := atomicfile.Write(path, data, ".sops-aws-sync-report-*.tmp"); err != nil {
		var ae *atomicfile.Error
		if errors.As(err, &ae) {
			return &WriteError{ae.Step, ae.Err}
		}
		return &WriteError{"write", err}
	}
	return nil
}
