// Package plan is the pure heart of the reconciler: it classifies each
// observed secret against the desired state and builds the plan of
// operations (SPEC §4.1, §5). It does no I/O and imports only the standard
// library and our packages vocab, model and keydiff (internal/archtest fails
// if it ever reaches SOPS, go-git or the AWS SDK, or links 100 packages).
//
// Invariants:
//   - Build is a function of its inputs: the same desired state and
//     observation always give the same plan, whatever map order.
//   - Operations come in phase order (restore, create, adopt, update,
//     schedule-delete: vocab.Phases) and, within a phase, names ascending.
//   - Any conflict empties the plan of operations: nothing may be mutated.
//   - Counts are derived from the plan's data (vocab.Counts.Add), never
//     accumulated by hand.
//   - A value is compared byte for byte with the desired one (the canonical
//     JSON, or a whole value in the payload field of its kind); a plan never
//     holds an observed value, only a hash of it (Fingerprint) and key
//     paths (keydiff).
package plan
