// Package organizations is the emulator's AWS Organizations, served on the
// same listener as the other services: requests whose X-Amz-Target is
// "AWSOrganizationsV20161128.<Operation>" (awsJson1_1, the Organizations
// service model's protocol; decoding and errors are internal/emulator/core's).
// It keeps organizations (a management account, one root, organizational
// units, member accounts with their status and tags, the requests that
// created them) for the whole emulator, not per (account, Region): the
// caller's account says which organization a request is about.
//
// Operations, error codes, identifiers and ARNs come from the AWS
// Organizations API reference; where the reference says nothing, the
// choice is written in docs/emulator.md ("Organizations") and marked
// [unverified]. CreateAccount and CloseAccount complete on the emulator
// clock (the creation and closure lags of the fault configuration): a
// request IN_PROGRESS becomes SUCCEEDED, an account PENDING_CLOSURE
// becomes SUSPENDED. It imports no other service; the emulator lends it
// the server through Host, and STS asks it (through the emulator) whether
// an account may be reached.
package organizations
