// Package archtest holds the architecture test. It reads the layer block and
// the rules list of docs/architecture.md (the "## Layers" section) and checks
// them against every package's imports, read with `go list`: an import
// pointing up the block, a core package that reaches SOPS, go-git or the AWS
// SDK, a package missing from the block, and the other rules listed there.
//
// It also checks the sources: product code comments cite no issue or
// review finding (they say the reason), and one assertion style per test
// package (docs/testing.md); and that make test begins with the Makefile's
// fmt-check, run against a scratch repository (fmt_test.go).
//
// Invariant: the doc is the only copy of the layers and the rules. A rule
// stated in the doc that this package does not check, or one it checks that
// the doc does not state, fails TestDocStatesOnlyCheckedRules.
package archtest
