// Package e2e runs the real sops-aws-sync binary against the real
// secretsmanager-emulator binary, on real Git repositories holding
// documents encrypted by the real sops CLI with fresh age keys. Tests are
// named after the situations of the recovery guide (docs/recovery.md).
//
// Invariants: each binary is built once per test run (TestMain) and shared;
// every run's stdout, stderr and report are scanned for canaries (plaintext
// values, the age key, the AWS secret key, version ids = request tokens,
// and secret names unless --show-resource-names); every report is parsed
// strictly against schema v1 and its status checked against the exit code.
package e2e
