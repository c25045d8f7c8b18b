// Package emulatortest starts the Secrets Manager emulator in-process for
// tests: an httptest server on 127.0.0.1 (closed by t.Cleanup), the real
// aws-sdk-go-v2 client pointed at it, and helpers that drive the control API
// over HTTP exactly as an external test would (GET /_emulator/state, PUT
// /_emulator/faults, ...).
//
// Invariants: every helper fails the test (t.Fatal) on an unexpected answer,
// so callers never check errors; nothing here sleeps.
package emulatortest
