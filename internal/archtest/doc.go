// Package archtest holds the architecture test. It reads the layer block and
// the rules list of docs/architecture.md (the "## Layers" section) and checks
// them against every package's imports, read with `go list`: an import
// pointing up the block, a core package that reaches SOPS, go-git or the AWS
// SDK, a package missing from the block, and the other rules listed there.
//
// It also holds the map's other statements that code can check: every
// name, file, path and make target it names exists (docnames_test.go), a
// name it places in a file is declared there (docplaces_test.go), a
// function it says is "called only by" some functions has no other caller
// in the product and a type "built only by" one function is built nowhere
// else in its package (doconly_test.go), every module of the Action is
// named, and the package comments name only what exists.
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
