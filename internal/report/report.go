package report

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
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

// New returns a report of schema v1, its counts folded from c
// (vocab.Counts.Report: an adoption counts as update). A revision that is not 40 lower-case
// hex characters is recorded as empty (SPEC §7.2).
func New(toolVersion, revision string, status vocab.Status, v vocab.Verification, c vocab.Counts, durationMS int64) Report {
	if !model.IsRevision(revision) {
		revision = ""
	}
	if durationMS < 0 {
		durationMS = 0
	}
	return Report{
		SchemaVersion: vocab.ReportSchema, ToolVersion: toolVersion, GitRevision: revision,
		Status: status, Counts: c.Report(), Verification: v, DurationMS: durationMS,
	}
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
	case r.GitRevision != "" && !model.IsRevision(r.GitRevision):
		return errors.New("report: git_revision is neither empty nor 40 hex characters")
	case r.DurationMS < 0:
		return errors.New("report: negative duration_ms")
	}
	c := r.Counts
	if c.Create < 0 || c.Update < 0 || c.Restore < 0 || c.ScheduleDelete < 0 || c.Unchanged < 0 || c.Conflicts < 0 {
		return errors.New("report: negative count")
	}
	if c.Adopt != 0 {
		return errors.New("report: adopt is not a report v1 count (adoptions are counted as update)")
	}
	return nil
}

// File is the report file's kind: its temporary-file pattern, and a read
// cap (a v1 report is under 1 KiB).
var File = wirefile.File{Temp: ".sops-aws-sync-report-*.tmp", MaxBytes: 64 << 10}

// Marshal validates r and returns it as indented JSON with a trailing
// newline. Failures are *wirefile.WriteError (step validate or encode).
func Marshal(r Report) ([]byte, error) { return wirefile.Marshal(r) }

// Parse decodes a report strictly (wirefile.Decode: exactly the v1 keys at
// the top level and in counts, each once and spelled exactly, valid UTF-8,
// correct JSON types, no trailing data) and checks its values (Validate).
func Parse(data []byte) (Report, error) {
	var r Report
	if err := wirefile.Decode(data, &r); err != nil {
		return Report{}, fmt.Errorf("report: %w", err)
	}
	return r, r.Validate()
}

// WriteFile validates r and writes it to path atomically with mode 0600
// (wirefile: a temporary file in the target's directory, fsync, rename; an
// existing target that is not a regular file is refused). Failures are
// *wirefile.WriteError.
func WriteFile(path string, r Report) error { return File.WriteJSON(path, r) }
