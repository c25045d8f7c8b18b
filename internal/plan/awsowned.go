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

// Oversized returns the operations of p that would write a value larger
// than rules.MaxValueBytes once the keys owned by AWS are in it (SPEC §13;
// the limit is the target's, model.ValueLimit: 65,536 bytes for Secrets
// Manager, AWS API reference CreateSecret and PutSecretValue):
//   - a create whose document lacks a listed key that generate fills: the
//     value the engine would send (keydiff.Fill, then Rules.Canonical),
//     with each generated key at its configured length (generate
//     characters of [A-Za-z0-9], one byte each in canonical JSON);
//   - an adoption or update that writes the merge (Decision.Value): its
//     canonical bytes.
//
// The document alone was held to the limit by the loader; with the keys
// added, AWS would refuse the write, or (before this check) the create
// went out without the key it could not fit and left the secret conflict
// aws-owned-missing for good. A plan holding one must not be applied
// (gate:value-too-large). Creates Unfillable refuses are left to it. Nil
// when MaxValueBytes is 0.
func Oversized(p Plan, rules Rules) []Operation {
	if rules.MaxValueBytes <= 0 {
		return nil
	}
	var out []Operation
	for _, op := range p.Ops {
		e, ok := rules.awsOwned(op.Desired)
		if !ok || op.Desired == nil {
			continue
		}
		size := len(op.Desired.Value)
		if op.Action == vocab.ActionCreate {
			size = createSize(rules, op.Desired.Value, e)
		}
		if size > rules.MaxValueBytes {
			out = append(out, op)
		}
	}
	return out
}

// createSize is the size of the value a create of the document value
// sends with entry e: the document's, or with each lacking key filled by
// generate characters of [A-Za-z0-9]. Such a string is its own length in
// canonical JSON (nothing to escape), so the size is that of the value
// with empty strings in their place (canonicalized: Rules.Canonical) plus
// generate per key: exact, and never beyond what Canonical accepts.
func createSize(rules Rules, value []byte, e model.AWSOwned) int {
	if e.Whole() || e.Generate == 0 {
		return len(value)
	}
	lack, err := keydiff.Lacking(value, e.Keys)
	if err != nil || len(lack) == 0 {
		return len(value)
	}
	empty, err := keydiff.Fill(value, lack, func(string) string { return "" })
	if err != nil {
		return len(value)
	}
	if rules.Canonical != nil {
		if c, err := rules.Canonical(empty); err == nil {
			empty = c
		}
	}
	return len(empty) + len(lack)*e.Generate
}
