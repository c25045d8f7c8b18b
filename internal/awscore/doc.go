// Package awscore is what the AWS adapters (internal/awssm for Secrets
// Manager, internal/awsps for Parameter Store) share, the way
// aws-sdk-go-v2's services share aws/retry and smithy-go's middleware:
// the reduction of an SDK error to the engine's error contract
// (ConvertError, over one service's Codes), the guard on request bodies
// (GuardBody), the retryer that leaves throttles to the adapter and the
// engine (NoThrottleRetry), and one adapter's calls: each under the
// operation timeout, reads paced and resent while throttled (Calls).
// Neither adapter imports the other; both stand on this package.
//
// Invariants:
//   - No AWS error text leaves this package: a failure becomes an
//     *engine.Error (operation, an allow-listed code or one of ours,
//     fault class, request id, flags), or the parent context's error when
//     the run was cancelled.
//   - A throttle (ThrottlingException and the codes the SDK treats as
//     throttles) is never ambiguous: the request was not executed.
//   - A read is resent after a throttle for as long as the run lasts, each
//     attempt after its quota family's turn (internal/pace); the SDK never
//     retries a throttle.
package awscore
