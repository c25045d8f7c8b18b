// Package diag is the one home of user-facing problems: the Diagnostic
// value (class token, summary, next action, subject), the registry of every
// class token the product emits with its family, summary and next action,
// and the table from class family to exit code (SPEC §7.1, vocab exit
// codes).
//
// Invariants:
//   - Every class token a record's error_class, a stderr line or a report
//     can carry is registered here (registry.go); a golden test
//     (testdata/registry.golden, regenerate with go test -update) pins the
//     list, each token's family, exit code and next action, in the order
//     of Families.
//   - A Diagnostic never holds a value: its subject is a document ordinal,
//     a document path only when resource names may be shown
//     (model.Redaction), or a setting name. A summary or next action is the
//     registry's sentence, or a more precise one the site that found the
//     problem builds from fixed words, counts, and setting or command names
//     (WithSummary, WithNext); never a value or a provider's text.
//   - Stderr lines (Lines) and log records (Attrs with Error or Sentence as
//     the message) render from the same value.
//   - The package imports only model, canonical and vocab below it (the
//     plaintext:* tokens are declared by canonical, which sits below and
//     cannot import diag); packages above declare no class token of their
//     own, at most an alias of a registered one.
package diag
