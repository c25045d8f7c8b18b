package command

import (
	"errors"
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/config"
	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// sourceRootsFlag is validate's --source-roots-file: a flag of the
// command, not a setting, like --no-decrypt. The GitHub Action reads the
// file to learn which paths of a pull request are secrets changes
// (docs/github-action.md, "Pull requests from forks").
const sourceRootsFlag = "source-roots-file"

// SourceRootsSchema is the schema_version of the source-roots file.
const SourceRootsSchema = "sops-aws-sync/source-roots/v1"

// sourceRootsFile is the source-roots file's kind: a small file (a name
// and a path per scope).
var sourceRootsFile = wirefile.File{Temp: ".sops-aws-sync-source-roots-*.tmp", MaxBytes: 1 << 20}

// SourceRoots is the source-roots file validate --source-roots-file
// writes (docs/validate.md): the run's scopes, in configuration order,
// after --scope, each with its resolved source root (repository-relative,
// clean, "." for the whole repository; model.CleanSourceRoot). It holds
// settings only: never a document's path, a secret name or a value.
type SourceRoots struct {
	SchemaVersion string            `json:"schema_version"`
	Scopes        []SourceRootScope `json:"scopes"`
}

// SourceRootScope is one scope of a SourceRoots: its name (SPEC §10) and
// its source root.
type SourceRootScope struct {
	Name       string `json:"name"`
	SourceRoot string `json:"source_root"`
}

// NewSourceRoots lists scopes' names and source roots.
func NewSourceRoots(scopes []config.Scope) SourceRoots {
	out := SourceRoots{SchemaVersion: SourceRootsSchema, Scopes: []SourceRootScope{}}
	for _, s := range scopes {
		out.Scopes = append(out.Scopes, SourceRootScope{Name: s.Name, SourceRoot: s.Desired.SourceRoot})
	}
	return out
}

// Validate checks the schema's value rules: the schema version, at least
// one scope, each name of the scope name rule and used once, each source
// root clean (model.CleanSourceRoot gives it back unchanged).
func (s SourceRoots) Validate() error {
	if s.SchemaVersion != SourceRootsSchema {
		return errors.New("schema_version is not " + SourceRootsSchema)
	}
	if len(s.Scopes) == 0 {
		return errors.New("no scope")
	}
	var names []string
	for _, sc := range s.Scopes {
		if model.ValidateScopeName(sc.Name) != nil || slices.Contains(names, sc.Name) {
			return errors.New("a scope name breaks the scope name rule or is used twice")
		}
		names = append(names, sc.Name)
		if clean, err := model.CleanSourceRoot(sc.SourceRoot); err != nil || clean != sc.SourceRoot {
			return errors.New("a source root is not clean and repository-relative")
		}
	}
	return nil
}

// SourceRootsFailure is the diagnostic of a source-roots file that could
// not be probed or written: report:source-roots-write-failed naming the
// failed step, never the path.
func SourceRootsFailure(err error) diag.Diagnostic {
	return diag.New(diag.ReportSourceRootsWriteFailed, diag.Subject{}).
		WithSummary("the source-roots file could not be written (step " + wirefile.StepOf(err) + ")")
}

// sourceRootsOutput is the file output of --source-roots-file path: the
// scopes the run resolved (o.scopes), written first of the outputs so
// that its failure is in the ending the plan file and the report tell.
func (o *outputs) sourceRootsOutput(path string) *fileOutput {
	return &fileOutput{path: path, file: sourceRootsFile, done: "source-roots file written", failure: SourceRootsFailure,
		value: func(ending) wirefile.Value { return NewSourceRoots(o.scopes) }}
}
