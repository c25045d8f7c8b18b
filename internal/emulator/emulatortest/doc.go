// Package emulatortest is the test support of the Secrets Manager emulator:
//
//   - Start serves an emulator in-process for a Go test (an httptest server
//     on 127.0.0.1, closed by t.Cleanup) and Server.Client (Secrets
//     Manager) and Server.SSMClient (Parameter Store) give the real
//     aws-sdk-go-v2 clients pointed at it;
//   - StartProcess runs the built emulator binary on a free loopback port,
//     for the tests and tools that drive built binaries (test/e2e,
//     test/chaos, bench);
//   - Control is the one typed client of the control API under /_emulator/
//     (state, stats, faults, quotas, conditions, clock, reset), with the
//     emulator's own request and response types; Control.Must and Server's
//     helpers fail the test (t.Fatal) on an unexpected answer, so test
//     callers never check errors.
//
// Invariants: every request goes over HTTP exactly as an external client's
// would; nothing here sleeps.
package emulatortest
