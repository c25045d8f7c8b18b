// Package ssm is the emulator's AWS Systems Manager Parameter Store,
// served on the same listener as Secrets Manager: requests whose
// X-Amz-Target is "AmazonSSM.<Operation>" (awsJson1_1, the SSM service
// model's protocol; decoding and errors are internal/emulator/core's).
// Every (account, Region) has its own parameters (a Store), as it has its
// own secrets. The facts modelled (operations, error codes, limits,
// messages) come from the SSM API reference and the tests of moto's
// tests/test_ssm, the two marked as verified against AWS first;
// docs/emulator.md ("Parameter Store") lists them, the choices made where
// neither says, and what is not modelled. Values are not encrypted: a
// SecureString read without decryption returns an opaque stand-in, never
// the value. KMS keys are reached through core.Keys, never the kms package.
package ssm
