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
	// Scopes are the run's scopes in configuration order (SPEC §10; one
	// named default without scopes:), an additive key of v1:
	// written whenever the run's configuration was resolved, absent when a
	// usage error or a rejected configuration stopped it before its scopes
	// were known, and in reports of versions before it. Readers accept a
	// report with or without it.
	Scopes []Scope `json:"scopes,omitempty"`
}

// Scope is one scope's line of a report: its name ([a-z0-9-]{1,32}), the
// Region its calls went to ("" when the SDK's chain chose something that is
// no Region code, or the run stopped before it was known), its own status,
// verification and counts (report/v1 counts: an adoption counts as
// update). The report's status is the most severe of its scopes' and of
// what stopped the run itself; its counts are the scopes' summed.
type Scope struct {
	Name         string             `json:"name"`
	Region       string             `json:"region"`
	Status       vocab.Status       `json:"status"`
	Verification vocab.Verification `json:"verification"`
	Counts       vocab.Counts       `json:"counts"`
}

// NewScope returns a scope's line, its counts folded (vocab.Counts.Report)
// and a region that is no Region code (model.ValidRegion) recorded as "".
func NewScope(name, region string, status vocab.Status, v vocab.Verification, c vocab.Counts) Scope {
	if !model.ValidRegion(region) {
		region = ""
	}
	return Scope{Name: name, Region: region, Status: status, Verification: v, Counts: c.Report()}
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
// verification tokens, a 40-hex or empty revision, non-negative numbers;
// for each scope a name of the scope-name rule listed once, an empty or
// valid Region code, known status and verification, non-negative counts.
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
	if err := validCounts(r.Counts); err != nil {
		return err
	}
	if r.Scopes != nil && len(r.Scopes) == 0 {
		return errors.New("report: scopes is present and empty (a writer omits it)")
	}
	seen := map[string]bool{}
	for _, s := range r.Scopes {
		switch {
		case model.ValidateScopeName(s.Name) != nil:
			return errors.New("report: a scope name breaks the scope-name rule")
		case seen[s.Name]:
			return errors.New("report: a scope is listed twice")
		case s.Region != "" && !model.ValidRegion(s.Region):
			return errors.New("report: a scope region is neither empty nor a Region code")
		case !slices.Contains(vocab.Statuses, s.Status):
			return errors.New("report: unknown scope status")
		case !slices.Contains(vocab.Verifications, s.Verification):
			return errors.New("report: unknown scope verification")
		}
		seen[s.Name] = true
		if err := validCounts(s.Counts); err != nil {
			return err
		}
	}
	return nil
}

// validCounts checks one counts object of the report: no negative count,
// no adopt (report v1 counts adoptions as update).
func validCounts(c vocab.Counts) error {
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
// the top level, scopes optional, and in counts and each scope, each once and spelled exactly, valid UTF-8,
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
