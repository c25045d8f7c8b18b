// Package root assembles the command tree and is the composition root the
// binary's main calls: it parses the command line, runs the command, prints
// any usage/configuration diagnostic on stderr and returns the exit code.
//
// Invariants: help and version build no dependency; every error becomes an
// exit code through exitcode.For only; usage errors on plan/sync still
// write the report when its path can be found.
package root
