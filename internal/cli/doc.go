// Package cli is the sops-aws-sync command line (SPEC §2, §7), built in the
// GitHub CLI's shape: plan, sync and validate in one package (command)
// with one NewCmdX(f, runF) constructor each over a shared definition, so
// that flag resolution and behaviour are tested apart; show (package show)
// and version; a Factory (package factory) of one provider per dependency,
// each built only when a command calls it, and IO streams; one function
// (package exitcode) that maps a run's outcome and diagnostics to exit
// codes and stderr lines; and Main (package root), the composition root
// the binary's main calls.
//
// Invariants:
//   - Command code never touches os.Stdout, os.Exit, os.Getenv or the clock
//     directly; everything comes from the Factory.
//   - Help and version read no configuration, environment or AWS.
//   - stderr carries only usage and configuration diagnostics (and a report
//     write failure); run outcomes are log records on stdout and the report
//     file. Every problem is a diag.Diagnostic (internal/diag).
package cli
