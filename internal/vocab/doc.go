// Package vocab owns every stable token that leaves the process: run statuses,
// verification outcomes, exit codes, conflict classes, operation kinds, the
// report schema identifier and the log field vocabulary (SPEC §4.1, §7).
//
// Invariant: these strings are part of the public contract (the recovery
// guide, the GitHub Action and users' scripts key on them). A golden test in
// this package fails if any of them changes.
package vocab
