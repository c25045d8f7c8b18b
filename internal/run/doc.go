// Package run composes one plan or sync of several scopes (SPEC §10):
// Execute resolves the revision once, builds every scope's AWS port, opens
// every scope's desired state at that commit, decrypts the documents on
// one goroutine while the engine observes every scope (engine.RunScopes),
// and returns the Outcome the command concludes from. Validate composes a
// validate (SPEC §15) over the same Sources without a port: every scope
// opened and decrypted, or checked structurally. With a reviewed plan
// (SPEC §14, review.go) the run checks the file before any Sources call
// and each scope's plan against it before anything is applied. The
// command resolves its options and writes the ending; this package
// orchestrates and renders nothing.
//
// What a run reads from outside itself comes through Sources, one small
// interface (the AWS ports, the revision, the desired state), which
// internal/cli/factory implements over the AWS SDK and internal/desired and
// tests fake; the engine is called directly.
//
// Invariants: a rejected AWS set-up, revision or desired state ends the
// run with nothing written (a rejected desired state also with no revision:
// docs/results.md, git_revision); no scope is planned before its desired
// state is whole (model.Arrival); every record of a scope carries its
// scope field.
package run
