package plan

import (
	"bytes"
	"errors"

	"github.com/sops-aws-sync/sops-aws-sync/internal/keydiff"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// AWSOwnedSet maps each desired secret that an aws-owned entry matches
// (model.AWSOwnedFor under the state's prefix) to that entry: Rules.AWSOwned.
// Nil when entries is empty or matches nothing.
func AWSOwnedSet(want model.State, entries []model.AWSOwned) map[string]model.AWSOwned {
	var out map[string]model.AWSOwned
	for _, s := range want.Secrets {
		if e, ok := model.AWSOwnedFor(entries, want.Scope.Prefix, s.Name); ok {
			if out == nil {
				out = map[string]model.AWSOwned{}
			}
			out[s.Name] = e
		}
	}
	return out
}

// awsOwned is the aws-owned entry of a desired secret (want nil: none).
func (r Rules) awsOwned(want *model.Secret) (model.AWSOwned, bool) {
	if want == nil || r.AWSOwned == nil {
		return model.AWSOwned{}, false
	}
	e, ok := r.AWSOwned[want.Name]
	return e, ok
}

// classifyOwned is classifyValue for a secret with keys owned by AWS
// (SPEC §13), whose current value obs.Current was read:
//   - no value read, or a key listed missing from it (or the live value is
//     not a JSON object, or is binary): conflict aws-owned-missing (the
//     tool does not know the value AWS owns);
//   - staging and payload conflicts as for any secret;
//   - keys [""]: unchanged (the whole value is AWS's after create);
//   - otherwise the merge (keydiff.Merge: the document's value with the
//     live values of the listed keys), canonicalized (Rules.Canonical),
//     against the live value canonicalized: the same JSON object is
//     unchanged (a rotation function's own spelling is no change), else an
//     update (value-differs) that writes the merge (Decision.Value).
func classifyOwned(rules Rules, want *model.Secret, obs ObservedSecret, e model.AWSOwned) Decision {
	missing, _ := conflict(vocab.ConflictAWSOwnedMissing)
	v := obs.Current
	if v == nil || v.Missing {
		return missing
	}
	if c, ok := currentConflict(obs); ok {
		return c
	}
	if e.Whole() {
		return Decision{Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual}
	}
	if v.HasBinary {
		return missing
	}
	merged, err := keydiff.Merge(want.Value, v.String, e.Keys)
	if err != nil {
		return missing
	}
	live := v.String
	if rules.Canonical != nil {
		if merged, err = rules.Canonical(merged); err != nil {
			return missing // a live value of a listed key breaks the plaintext rules (a number JSON cannot keep)
		}
		if c, err := rules.Canonical(v.String); err == nil {
			live = c
		}
	}
	if bytes.Equal(live, merged) {
		return Decision{Action: vocab.ActionUnchanged, Reason: vocab.ReasonValueEqual}
	}
	return Decision{Action: vocab.ActionUpdate, Reason: vocab.ReasonValueDiffers, Value: merged}
}

// ErrUnfillable: a create lacks a key aws-owned lists and has no generate
// for it, or the key has no place in the document (SPEC §13: the
// configuration is invalid, config:aws-owned).
var ErrUnfillable = errors.New("a new secret lacks a key aws-owned lists and generate is not given")

// Unfillable returns the names of p's creates that lack a listed key the
// engine cannot fill: no generate, or a parent of the key in the document
// is not an object (keydiff.Lacking). A plan holding one must not be
// applied.
func Unfillable(p Plan, rules Rules) []string {
	var out []string
	for _, op := range p.Ops {
		if op.Action != vocab.ActionCreate {
			continue
		}
		e, ok := rules.awsOwned(op.Desired)
		if !ok || e.Whole() {
			continue
		}
		lack, err := keydiff.Lacking(op.Desired.Value, e.Keys)
		if err != nil || (len(lack) > 0 && e.Generate == 0) {
			out = append(out, op.Name)
		}
	}
	return out
}
