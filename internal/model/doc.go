// Package model is the domain model of sops-aws-sync, with no I/O: the
// desired secret and state (SPEC §3), the rules that turn committed paths
// into secret names (the secret-name rule, the prefix rule, the source-root
// rule and the document suffix table, SPEC §2.1 and §3), ownership (the
// scope, its digest, the source digest and the three reserved tags,
// SPEC §4), and the redaction view that decides how a resource is named in
// logs, diagnostics and views (SPEC §7.3). It also holds the rules the
// settings, the loader and the planner share (metadata, replica Regions,
// keys owned by AWS, key services, targets and Parameter Store's names and
// tiers) and the values hand-off between the loader and the engine
// (Arrival, whose rules are on the type).
//
// Invariants:
//   - Each rule has exactly one definition, here; config, the loader, the
//     planner, the engine and the logs call it.
//   - Nothing here reads files, the network, the clock or the environment;
//     the package imports the standard library only (internal/archtest).
//   - Rule errors are plain errors whose text is a reason that never quotes
//     the rejected value; the caller that knows the context wraps them into
//     its own diagnostic class.
//   - The digests are stable across releases; changing them would orphan
//     every secret users have already created.
package model
