// Package canonical turns the plaintext of one decrypted SOPS document (JSON,
// YAML or dotenv) into the exact SecretString the tool stores: the RFC 8785
// (JCS) canonical JSON of one object (SPEC §3.3).
//
// Invariants:
//   - Canonicalization is a pure function of (format, plaintext bytes); it
//     does no I/O and keeps no state.
//   - Either the result is 1..MaxValueBytes bytes of canonical JSON of an
//     object whose content equals what the author wrote, or the error is an
//     *Error carrying one stable class token (Class* constants), one of
//     the package-level failures Rules lists (the only source of those
//     sentences; the diagnostics registry reads them). No value is
//     ever silently changed: numbers that canonical JSON would alter,
//     non-string keys, timestamps, anchors and the like are refused.
//   - JSON and YAML documents with equal content give byte-identical
//     results, and canonicalizing a canonical value returns it unchanged.
//   - Error text never contains any part of the plaintext (no keys, no
//     values, no fragments of library error messages).
package canonical
