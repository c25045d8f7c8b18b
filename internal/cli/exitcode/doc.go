// Package exitcode is the one place that maps the CLI's outcome to the
// process exit code (SPEC §7.1) and to the stderr lines, if any: a
// *RunError (final status plus diagnostics) or a diag.Diagnostics (usage
// problems). Exit codes of diagnostics come from diag's one table from
// class family to exit code.
//
// Invariants: a nil error is exit 0; an error of unknown type fails closed
// as exit 3 with the internal diagnostic; a report write failure always
// wins and is exit 3; diagnostics name settings and classes, never values.
package exitcode
