package plan

import (
	"slices"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// AdoptSet is the adopt list as Rules.Adopt takes it; nil for an empty
// list (no adoption allowed).
func AdoptSet(names []string) map[string]bool {
	if len(names) == 0 {
		return nil
	}
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// NotDesired returns, sorted, the adopt entries that no secret of want is
// named (SPEC §11: an entry must name a secret this commit's documents map
// to; any other is config:adopt-not-desired, exit 3, before any AWS call).
func NotDesired(want model.State, adopt []string) []string {
	desired := make(map[string]bool, len(want.Secrets))
	for _, s := range want.Secrets {
		desired[s.Name] = true
	}
	var out []string
	for _, n := range adopt {
		if !desired[n] {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// AlreadyOwned returns, sorted, the adopt entries whose observed secret
// this scope already owns (SPEC §11: a no-op with warning:adopt-owned; the
// secret is planned like every owned secret).
func AlreadyOwned(rules Rules, observed map[string]ObservedSecret) []string {
	var out []string
	for n := range rules.Adopt {
		if o, ok := observed[n]; ok && o.Owned(rules.ScopeDigest) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
