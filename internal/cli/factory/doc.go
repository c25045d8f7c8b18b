// Package factory holds the CLI's dependencies, one provider each: IO
// streams, build information, an environment snapshot, a file reader, the
// clock, and the Sources of a run (run.Sources: the AWS ports, the
// revision, the desired state). The production Sources (Sources, built by
// New) makes every scope's AWS port on demand (NewPorts: the SDK's default
// chain, one STS AssumeRole per scope with a role, internal/awssm or, for
// a scope whose target is parameter-store, internal/awsps, one shared pace
// per quota bucket) and opens the desired state through internal/desired;
// nothing is built before a command calls it, so help and version build
// nothing. Tests replace a provider, never the composition of a run
// (internal/run).
//
// Invariant: nothing here prints; errors carry a stable class token and
// never provider or library text.
package factory
