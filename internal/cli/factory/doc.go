// Package factory holds the CLI's dependencies: IO streams, build
// information, an environment snapshot, a file reader, the clock, and the
// constructors of the desired-state loader, the AWS port and the engine.
// Constructors are functions, called only when a command needs them, so
// help and version build nothing.
//
// Invariant: nothing here prints; errors carry a stable class token and
// never provider or library text.
package factory
