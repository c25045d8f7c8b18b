// Package secretsmanager is the emulator's AWS Secrets Manager: the
// operations of X-Amz-Target "secretsmanager.<Operation>" (awsJson1_1;
// decoding and errors are internal/emulator/core's), one Store of secrets
// per (account, Region), ListSecrets' lag and pages, replication, and the
// control API's conditions and rotation steps. It imports no other service:
// KMS keys are reached as core.Keys, and the server (its lock, clock,
// faults, seeded ids and the other Regions' stores) as Host. The facts
// modelled come from shared/reference/aws-secrets-manager.md, cited as
// "reference §n"; docs/emulator.md lists them.
//
// Invariants:
//   - Handlers validate their input without the lock, then take it (Host),
//     purge secrets whose recovery window ended, and act on the Store; their
//     answers share no mutable memory with the Store.
//   - A secret snapshot is immutable once committed, and so is a version (a
//     re-encryption replaces the version in the new snapshot by a copy); each
//     mutation commits a new snapshot into the secret's short history, which
//     is what ListSecrets reads when list lag is on (no copy of the whole
//     state per write).
package secretsmanager
