// Package changes writes and reads the changes file of a sync
// (--changes-file, schema sops-aws-sync/changes/v1, docs/results.md): the
// operations that took effect, each with its scope, action, secret name,
// full ARN and the version id it wrote, and per scope a value-free digest
// of the converged state, so that a following step restarts exactly what
// reads a changed secret (ECS tasks, Lambda functions read secrets at
// start).
//
// Invariants:
//   - The file names secrets (an ARN holds the name), so it exists only
//     when asked for; it never holds a value, a key, a token that was not
//     made a version id by AWS, a hash of a value, or a credential.
//   - Exactly the keys schema_version, tool_version, git_revision, status,
//     changes [{scope, action, name, arn, version_id}], scopes [{name,
//     region, status, state_digest}]; Parse rejects anything else
//     (internal/wirefile's strict decoding) and every value that breaks
//     its rule (Validate).
//   - Written atomically with mode 0600 (internal/wirefile), like the
//     report.
package changes
