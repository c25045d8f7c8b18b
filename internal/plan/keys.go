package plan

import (
	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// KeysOf is the key-level change summary (internal/keydiff, SPEC §7.4) of
// writing want's canonical value over what obs shows, for a create or an
// update or adoption; nil for every other kind and when want is nil. It is computed
// only for operations (never for unchanged names or conflicts), so a no-op
// plan decodes no value:
//   - a whole value (.sops.txt, .sops.bin): no paths, keys_unavailable
//     whole-value, whatever is stored (SPEC §3.1: the plan says "whole
//     value changed", never a length or a hash; nothing is decoded);
//   - create, or an update with no current value read (no AWSCURRENT, the
//     read found none): every desired leaf added (keydiff.Create);
//   - the current version holds SecretBinary: no paths, keys_unavailable
//     stored-value-binary (keydiff.Binary);
//   - otherwise the desired value against the current SecretString
//     (keydiff.Diff; a metadata-only update has no key change). For an
//     adoption this is the diff against the live value made outside this
//     tool: keys only in the live value are Removed paths not InDesired,
//     which planview counts and never names (SPEC §7.4, §11).
//
// A desired value that is not a JSON object (a bug: internal/canonical only
// produces objects) gives the empty summary rather than a panic.
func KeysOf(action vocab.Action, want *model.Secret, obs ObservedSecret) *keydiff.Summary {
	if want == nil || (action != vocab.ActionCreate && action != vocab.ActionUpdate && action != vocab.ActionAdopt) {
		return nil
	}
	var (
		s   keydiff.Summary
		err error
	)
	cur := obs.Current
	switch {
	case want.Kind.Whole():
		s = keydiff.Summary{Unavailable: vocab.KeysWholeValue}
	case action == vocab.ActionCreate || cur == nil || cur.Missing || (!cur.HasString && !cur.HasBinary):
		s, err = keydiff.Create(want.Value)
	case !cur.HasString:
		s = keydiff.Binary()
	default:
		s, err = keydiff.Diff(want.Value, cur.String)
	}
	if err != nil {
		s = keydiff.Summary{}
	}
	return &s
}

// Written is what an operation decided as d (Classify) writes for want
// over obs: the desired secret — want, or a copy whose Value is d.Value,
// the merge with the live values of keys owned by AWS (SPEC §13) — and its
// key-level summary (KeysOf for d.Action, listed keys dropped: keptOut).
// Build and the engine's follow-up update after a restore both take it,
// so neither writes the document alone over a key AWS owns. want is
// returned as is when d carries no value.
func Written(rules Rules, want *model.Secret, obs ObservedSecret, d Decision) (*model.Secret, *keydiff.Summary) {
	desired := want
	if d.Value != nil && want != nil {
		merged := *want
		merged.Value = d.Value
		desired = &merged
	}
	return desired, keptOut(rules, want, d.Action, KeysOf(d.Action, desired, obs))
}

// keptOut drops from the key summary of an adoption or update of a secret
// with keys owned by AWS every path under those keys
// (keydiff.Summary.Without): the plan counts them as kept (Plan.KeptOf),
// never as added, removed or changed, whatever the document holds (SPEC
// §13: the adopt line never counts a listed key as removed). A create's
// summary is kept whole: it writes the keys the document seeds.
func keptOut(rules Rules, want *model.Secret, action vocab.Action, s *keydiff.Summary) *keydiff.Summary {
	e, ok := rules.awsOwned(want)
	if !ok || s == nil || action == vocab.ActionCreate {
		return s
	}
	k := s.Without(e.Keys)
	return &k
}
