// Package sync is the `sync` command: observe, plan, apply and verify
// (SPEC §2, §6). There is no way to skip verification.
//
// Invariant: every sync that applies something verifies by re-observation
// before it can report converged.
package sync
