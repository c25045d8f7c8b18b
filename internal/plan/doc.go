// Package plan is the pure heart of the reconciler: it classifies each
// observed secret against the desired state and builds the plan of
// operations (SPEC §4.1, §5). It does no I/O and imports only the standard
// library and the domain packages vocab and model (internal/archtest
// fails the build if it ever reaches SOPS, go-git or the AWS SDK).
//
// Invariants:
//   - Build is a function of its inputs: the same desired state and
//     observation always give the same plan, whatever map order.
//   - Operations come in phase order (restore, create, update,
//     schedule-delete) and, within a phase, names ascending.
//   - Any conflict empties the plan of operations: nothing may be mutated.
//   - Counts are derived from the plan's data, never accumulated by hand.
//   - A value is compared byte for byte with the desired canonical JSON; a
//     plan never holds an observed value, only a hash of it (Fingerprint).
package plan
