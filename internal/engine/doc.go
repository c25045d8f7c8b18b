// Package engine reconciles one scope of AWS Secrets Manager (or of
// Parameter Store: the Port hides which) with a desired state: observe
// (through Port), classify, plan (package plan, pure), apply with
// fingerprint preconditions and idempotency tokens, and verify by
// re-observation (SPEC §4–6). RunScopes runs several scopes as one run
// (SPEC §10): every scope planned, and checked against a reviewed plan
// (Reviewer, SPEC §14), before any is applied. Every write goes through
// one driver (write.go) over the rows of steps.go.
// docs/reconciliation.md describes the design.
//
// Invariants:
//   - Nothing is mutated when the plan has a conflict or the empty-scope
//     gate holds, in plan mode, or after the run's context is cancelled.
//   - Phases run in order (vocab.Phases: restore, create, adopt, update,
//     schedule-delete); at
//     most Config.Concurrency calls are in flight inside a phase; once an
//     operation fails, needs a rebuild or meets a conflict, no new operation
//     starts.
//   - Every mutation is preceded by a direct re-observation whose
//     fingerprint must equal the planned one; at most one rebuild per run.
//     Each observation of a name is classified once (sighting).
//   - A create that meets an existing secret is re-observed and accepted
//     (desired state, this scope), rebuilt once, a conflict, or
//     verification-failed; never apply-failed.
//   - What the run did and learned is in the ledger (ledger.go); every
//     Result is built from it by ledger.result.
//   - One fresh ClientRequestToken per logical create/update, reused only by
//     SDK retries, resends of a throttled attempt and one retry after an
//     ambiguous outcome; a restore or schedule-delete whose outcome may have
//     taken effect is never re-issued in the same run.
//   - Throttling is back-pressure: a throttled write was not
//     executed, so it takes a new turn of the run's write pace
//     (internal/pace), a new precondition and is resent until the run's
//     context ends; it is never a failure and never logged per call.
//   - Converged is reported only after a direct observation shows an empty
//     plan. Logs carry only vocab fields: never values, tokens or ARNs, and
//     names only when Config.ShowResourceNames is set.
package engine
