package changes

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
	"github.com/sops-aws-sync/sops-aws-sync/internal/wirefile"
)

// Schema is the changes file's schema_version.
const Schema = "sops-aws-sync/changes/v1"

// DigestPrefix starts every state digest ("sha256:" and 64 lower-case hex
// characters; engine.StateDigestOf computes it).
const DigestPrefix = "sha256:"

// Changes is the content of the changes file. Field order is the order of
// the keys in the file.
type Changes struct {
	SchemaVersion string       `json:"schema_version"`
	ToolVersion   string       `json:"tool_version"`
	GitRevision   string       `json:"git_revision"`
	Status        vocab.Status `json:"status"`
	// Changes are every operation of the run that took effect, in scope
	// order, then name, then apply phase; empty (never null) when none.
	Changes []Change `json:"changes"`
	// Scopes are the run's scopes in configuration order; empty when the
	// run stopped before they were known.
	Scopes []Scope `json:"scopes"`
}

// Change is one operation that took effect: its scope, its action (a
// vocab.Action that is an operation: restore, create, adopt, update,
// schedule-delete), the secret's name and full ARN, and the id of the
// version it wrote ("" when it wrote none: restore, schedule-delete, a
// change of metadata, tags or replicas alone).
type Change struct {
	Scope     string       `json:"scope"`
	Action    vocab.Action `json:"action"`
	Name      string       `json:"name"`
	ARN       string       `json:"arn"`
	VersionID string       `json:"version_id"`
}

// Scope is one scope's line: its name, Region ("" when unknown), status,
// and the digest of its converged state ("" unless status is converged).
type Scope struct {
	Name        string       `json:"name"`
	Region      string       `json:"region"`
	Status      vocab.Status `json:"status"`
	StateDigest string       `json:"state_digest"`
}

// New returns the changes file of schema v1 for a run's ending: a
// revision that is not 40 lower-case hex characters is recorded as "", a
// Region that is no Region code as "", nil lists as empty ones.
func New(toolVersion, revision string, status vocab.Status, scopes []Scope, cs []Change) Changes {
	if !model.IsRevision(revision) {
		revision = ""
	}
	out := Changes{SchemaVersion: Schema, ToolVersion: toolVersion, GitRevision: revision, Status: status,
		Changes: slices.Clone(cs), Scopes: slices.Clone(scopes)}
	if out.Changes == nil {
		out.Changes = []Change{}
	}
	if out.Scopes == nil {
		out.Scopes = []Scope{}
	}
	for i := range out.Scopes {
		if !model.ValidRegion(out.Scopes[i].Region) {
			out.Scopes[i].Region = ""
		}
	}
	return out
}

// Validate checks the schema's value rules: known schema and statuses, a
// 40-hex or empty revision; each scope named by the scope-name rule once,
// an empty or valid Region, a digest only beside converged and then of
// the form sha256:<64 hex>; each change of a listed scope, an action that
// is an operation, a name of the secret-name rule, an ARN of one of the
// targets naming the resource of that name (model.TargetOfARN: the target
// table's ARN forms, a secret's "…:secretsmanager:…:secret:NAME-XXXXXX",
// a parameter's "…:ssm:…:parameter/NAME"), or "" in a scope that did not
// converge (a Parameter Store create's ARN, which PutParameter does not
// answer, when the run stopped before it observed the name: interrupted,
// or its describe after a stopped apply failed; docs/results.md), a version id of at most 64
// printable ASCII characters (Secrets Manager's VersionId: 32–64;
// Parameter Store's version: 1, 2, …).
func (c Changes) Validate() error {
	switch {
	case c.SchemaVersion != Schema:
		return errors.New("changes: unknown schema_version")
	case !slices.Contains(vocab.Statuses, c.Status):
		return errors.New("changes: unknown status")
	case c.GitRevision != "" && !model.IsRevision(c.GitRevision):
		return errors.New("changes: git_revision is neither empty nor 40 hex characters")
	case c.Changes == nil || c.Scopes == nil:
		return errors.New("changes: changes and scopes are lists, never null")
	}
	seen := map[string]bool{}
	status := map[string]vocab.Status{}
	for _, s := range c.Scopes {
		switch {
		case model.ValidateScopeName(s.Name) != nil:
			return errors.New("changes: a scope name breaks the scope-name rule")
		case seen[s.Name]:
			return errors.New("changes: a scope is listed twice")
		case s.Region != "" && !model.ValidRegion(s.Region):
			return errors.New("changes: a scope region is neither empty nor a Region code")
		case !slices.Contains(vocab.Statuses, s.Status):
			return errors.New("changes: unknown scope status")
		case s.StateDigest != "" && s.Status != vocab.StatusConverged:
			return errors.New("changes: a state digest beside a scope that did not converge")
		case s.StateDigest != "" && !validDigest(s.StateDigest):
			return errors.New("changes: a state digest is not sha256:<64 hex>")
		}
		seen[s.Name] = true
		status[s.Name] = s.Status
	}
	for _, ch := range c.Changes {
		switch {
		case !seen[ch.Scope]:
			return errors.New("changes: a change names a scope that is not listed")
		case !ch.Action.IsOperation():
			return errors.New("changes: a change's action is not an operation")
		case model.ValidateName(ch.Name) != nil:
			return errors.New("changes: a change's name breaks the secret-name rule")
		case ch.ARN == "" && status[ch.Scope] == vocab.StatusConverged:
			return errors.New("changes: a change of a converged scope has no arn")
		case ch.ARN != "" && !validARN(ch.ARN, ch.Name):
			return errors.New("changes: a change's arn is not an ARN of its name in a target's form (a secret's or a parameter's)")
		case !validVersion(ch.VersionID):
			return errors.New("changes: a change's version_id is longer than 64 characters or not printable ASCII")
		}
	}
	return nil
}

func validDigest(s string) bool {
	h, ok := strings.CutPrefix(s, DigestPrefix)
	return ok && model.IsLowerHex(h, 64)
}

// validARN: arn is the ARN of name's resource in one target's form.
func validARN(arn, name string) bool {
	_, ok := model.TargetOfARN(arn, name)
	return ok
}

func validVersion(v string) bool {
	if len(v) > 64 {
		return false
	}
	for i := range len(v) {
		if v[i] < 0x21 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

// File is the changes file's kind: its temporary-file pattern and a read
// cap (16 MiB: about 50,000 changes).
var File = wirefile.File{Temp: ".sops-aws-sync-changes-*.tmp", MaxBytes: 16 << 20}

// Parse decodes a changes file strictly (wirefile.Decode: exactly the v1
// keys, each once and spelled exactly, valid UTF-8, correct JSON types,
// no trailing data) and checks its values (Validate).
func Parse(data []byte) (Changes, error) {
	var c Changes
	if err := wirefile.Decode(data, &c); err != nil {
		return Changes{}, fmt.Errorf("changes: %w", err)
	}
	return c, c.Validate()
}
