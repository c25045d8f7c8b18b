// Package bench holds the performance harness of sops-aws-sync:
// the harness library in bench/harness, the program behind `make bench` in
// bench/cmd/bench, and a CI-sized test (N = 200) that runs the real CLI
// binary against the emulator and asserts the API call counts, which are
// deterministic, never wall times (those are measured by the harness and
// recorded in docs/benchmarks.md).
//
// Invariants: nothing here is imported by the product; the harness only
// drives the built binaries and the emulator's public control API.
package bench
