// Package awsps is the adapter implementing engine.Port over an
// aws-sdk-go-v2 AWS Systems Manager client: a scope whose target is
// parameter-store (SPEC §16) keeps each document as one SecureString
// parameter of Parameter Store. It maps Parameter Store's API onto what
// the port names in common with Secrets Manager (a stored value, its
// version, its tags, a deletion); docs/parameter-store.md says where the
// two differ.
//
// Invariants:
//   - Every call runs under its own timeout (Options.OperationTimeout;
//     each DescribeParameters page is one call).
//   - No AWS error text leaves this package: failures become
//     *engine.Error through awscore.ConvertError with this service's
//     allow-listed codes, or the parent context's error when the run was
//     cancelled; every request goes through awscore.GuardBody.
//   - The SDK never retries a throttling error (awscore.NoThrottleRetry); a
//     throttled read waits for its quota family's next turn (its own
//     pace.Controller, Parameter Store's ceilings: never Secrets
//     Manager's) and is resent; a throttled write is returned to the
//     engine, which paces writes.
//   - A PutParameter is sent once (no SDK retry: it has no idempotency
//     token, so a resend with Overwrite=true would write a second
//     version); the engine judges an unclear one by version and value.
//   - Every value written is a SecureString under the configured KMS key
//     or alias/aws/ssm, never the key left to a default by omission.
//   - A deletion is DeleteParameter, immediate. The adapter implements the
//     core port and engine.Surveyor, the one capability of its target's
//     row: no restore, replicas or labels (no method answers
//     "unsupported"; config refuses the settings that would need them).
package awsps
