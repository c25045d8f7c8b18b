// Package logging builds the CLI's log/slog logger: JSON (or text) records
// on stdout whose attribute keys come only from the fixed vocabulary of
// internal/vocab (SPEC §7.3). The "resource" value that stands in for a
// secret name comes from the one redaction view, model.Redaction.
//
// Invariants:
//   - Vocab (the handler) is a safety net: an attribute whose key is outside
//     the vocabulary, any group, and any value that is not a plain scalar
//     (string, number, bool, duration) is dropped before it reaches the
//     output, however the record was built. Dropped attributes are counted.
//   - Record messages are constant strings chosen by the caller; nothing in
//     this package formats error text into them.
package logging
