// Package cli is the sops-aws-sync command line (SPEC §2, §7), built in the
// GitHub CLI's shape: one package per command (plan, sync, version), each
// with an Options struct and a NewCmdX(f, runF) constructor so that flag
// parsing and behaviour are tested apart; a Factory (package factory) of
// lazily built dependencies and IO streams; one function (package exitcode)
// that maps typed errors to exit codes; and Main, the composition root the
// binary's main calls.
//
// Invariants:
//   - Command code never touches os.Stdout, os.Exit, os.Getenv or the clock
//     directly; everything comes from the Factory.
//   - Help and version read no configuration, environment or AWS.
//   - stderr carries only usage and configuration diagnostics; run outcomes
//     are log records on stdout and the report file.
package cli
