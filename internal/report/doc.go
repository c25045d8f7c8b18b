// Package report writes and reads the redacted run report
// (schema sops-aws-sync/report/v1, SPEC §7.2).
//
// Invariants:
//   - A report has exactly the keys schema_version, tool_version,
//     git_revision, status, counts {create, update, restore, schedule_delete,
//     unchanged, conflicts}, verification, duration_ms and the additive
//     scopes [{name, region, status, verification, counts}]
//     (optional to a reader) — never a secret's name, a path, value, key,
//     token or provider id. Parse rejects anything else.
//     Parse rejects a key given twice or in another letter case, and
//     invalid UTF-8 (internal/wirefile's strict decoding).
//   - git_revision is a 40-hex commit SHA (model.IsRevision) or empty.
//   - WriteFile is atomic (internal/wirefile): a temporary file in the
//     target's directory, mode 0600, fsync, rename, then a best-effort
//     fsync of the directory. A reader sees the old file or the complete
//     new one, never a torn write. Failures are *wirefile.WriteError.
package report
