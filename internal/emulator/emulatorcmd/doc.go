// Package emulatorcmd is the secretsmanager-emulator command: flag parsing,
// listening, the "listening on http://..." line, and shutdown on a signal.
// main only wires os.Args, stdio and signals to Run.
//
// Invariants: the first line written to stdout is exactly
// "listening on http://<host>:<port>"; Run returns 0 after a clean shutdown
// on a signal, 2 on bad flags, 1 when it cannot listen or serve.
package emulatorcmd
