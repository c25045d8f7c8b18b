// Package exitcode is the one place that maps the CLI's typed errors to
// process exit codes (SPEC §7.1) and to the stderr diagnostic, if any.
//
// Invariants: a nil error is exit 0; an error of unknown type fails closed
// as exit 3; a report write failure always wins and is exit 3; diagnostics
// name settings and classes, never values.
package exitcode
