// Package archtest holds the architecture test: it reads every package's
// imports with `go list` and fails when a layer of docs/architecture.md is
// crossed (an import pointing up the layer table) or when a package that
// must stay free of I/O libraries reaches SOPS, go-git or the AWS SDK,
// directly or through another package.
//
// Invariant: the layer table in archtest_test.go and the one in
// docs/architecture.md say the same thing; change both together.
package archtest
