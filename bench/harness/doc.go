// Package harness is the benchmark harness of sops-aws-sync: it
// generates SOPS-encrypted desired-state repositories in process (sops Go
// library, age keys), seeds the Secrets Manager emulator with the exact
// secrets the CLI would have written (names, reserved tags, canonical
// values), runs the CLI as a child process while measuring wall time and
// peak RSS, reads the emulator's call statistics, and computes the lower
// bound that per-call latency and AWS request quotas allow.
//
// Invariants: lower bounds and call bounds are pure functions of the
// scenario (no clock, no I/O) and are stated as formulas in
// docs/benchmarks.md; the seeded values are RFC 8785 canonical JSON computed
// independently of the product's own canonicalizer (gowebpki/jcs), so a
// canonicalization difference shows up as unexpected writes in a no-op run
// rather than being hidden.
package harness
