// Package reconcile is the behaviour shared by `plan` and `sync`: the
// options of SPEC §2.1 as cobra flags, and Run, which resolves the
// configuration, loads the desired state, builds the AWS port, runs the
// engine, logs the outcome and writes the report.
//
// Invariants:
//   - Nothing with a side effect (Git, decryption, AWS, the report file)
//     happens before the whole configuration is valid; the one exception is
//     the report of an invalid run, written when --report-file itself
//     resolved (SPEC §7.2: also when the run fails early).
//   - Every run that gets past configuration ends with exactly one
//     "run finished" record (phase complete) and, with --report-file, one
//     report, whatever the outcome — cancellation included.
//   - A desired-state error is logged as one record: msg "desired state
//     rejected", phase plan, status invalid, error_class <class>, resource
//     <resource-NNNN or path with --show-resource-names>.
package reconcile
