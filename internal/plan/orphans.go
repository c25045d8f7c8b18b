package plan

import (
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Listed is one entry of a ListSecrets page: what discovery saw of a secret
// (eventually consistent; never ownership by itself).
type Listed struct {
	Name string
	ARN  string
	Tags map[string]string
	// Deleted: the entry has a DeletedDate (scheduled for deletion).
	Deleted bool
}

// Orphans returns, sorted, the names of listed secrets that this tool owns
// in another scope and that come from a document of this commit: managed-by
// is ours, the scope tag is neither this scope's nor one of siblings (the
// scope digests of the configuration's other scopes, SPEC §10), and the
// source tag is the source digest of a desired document. That is what a
// change of --secret-prefix, --repository-id or --source-root leaves
// behind; a sibling scope that publishes the same documents under another
// prefix in the same account and Region is live, not left behind.
// Secrets already scheduled for deletion are being retired and are
// not listed. The caller only warns about them; nothing ever touches them.
func Orphans(scopeDigest string, siblings []string, want []model.Secret, listed []Listed) []string {
	sources := make(map[string]bool, len(want))
	for _, s := range want {
		sources[s.SourceDigest] = true
	}
	var out []string
	for _, l := range listed {
		if l.Deleted || l.Tags[model.TagManagedBy] != model.ManagedByValue {
			continue
		}
		if scope := l.Tags[model.TagScope]; scope == scopeDigest || scope == "" || slices.Contains(siblings, scope) {
			continue
		}
		if sources[l.Tags[model.TagSource]] {
			out = append(out, l.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
