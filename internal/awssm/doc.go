// Package awssm adapts aws-sdk-go-v2's Secrets Manager client to the
// engine's Port (SPEC §4, §6): discovery, direct observation, batched value
// reads with the staging cross-check, and every mutation the engine's
// write steps make (create, put value, tag, update metadata, deletion
// with a recovery window), with the capabilities of the target
// secrets-manager (model.Target.Capabilities): restore (engine.Restorer),
// replicas (engine.Replicator) and moving a staging label
// (engine.LabelMover).
//
// Invariants:
//   - Every call runs under its own timeout (Options.OperationTimeout; each
//     ListSecrets page is one call); SDK retries happen inside it and reuse
//     the caller's ClientRequestToken.
//   - No AWS error text leaves this package: failures become *engine.Error
//     (operation, allow-listed code, fault class, request id, flags;
//     awscore.ConvertError under Secrets Manager's codes), or the parent
//     context's error when the run was cancelled.
//   - The SDK never retries a throttling error; a throttled read waits for
//     its quota family's next turn (internal/pace, shared with the engine
//     through Adapter.Pace) and is resent until answered or the run ends; a
//     throttled write is returned with Throttled set (never Ambiguous).
//   - DeleteSecret always carries RecoveryWindowInDays and never
//     ForceDeleteWithoutRecovery.
package awssm
