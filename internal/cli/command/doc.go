// Package command is `plan` and `sync`: one constructor each (NewCmdPlan,
// NewCmdSync, in the GitHub CLI's NewCmdX(f, runF) shape) over one shared
// definition. Every setting of SPEC §2.1 is a cobra flag holding only its
// raw text; RunE resolves flags, environment and config file into the typed
// Options (config.Resolve) and hands them to runF (tests) or to the run:
// probe the report and plan files, build the AWS port, load the desired
// state, run the engine, log the outcome, write the report and the plan
// file (planview.Build over the engine's Result.Plan and the run's
// diagnostics), and with --log-format text print planview.Text after the
// log.
//
// Invariants:
//   - Nothing with a side effect (Git, decryption, AWS, the report or plan
//     file) happens before the whole configuration is valid; the one
//     exception is the report and the plan file of an invalid run, written
//     when --report-file / --plan-file itself resolved (SPEC §7.2: also
//     when the run fails early; the plan file then holds the diagnostics).
//   - The report file and the plan file are proven writable (a probe in
//     their directory) before the first AWS call: an unwritable one ends
//     the run with report:write-failed / planfile:write-failed, exit 3, and
//     no AWS call (docs/results.md). A failure to write either after the
//     run forces exit 3 too.
//   - The JSON log stream holds only JSON records: the human rendering of
//     the plan is printed only with --log-format text.
//   - A flag given twice is a usage error (usage:repeated-flag), never "the
//     last one wins"; no usage diagnostic quotes a value.
//   - Every run that gets past configuration ends with exactly one
//     "run finished" record (phase complete) and, with --report-file, one
//     report, whatever the outcome — cancellation included.
//   - Every problem is a diag.Diagnostic; its log record and its stderr
//     line render from that value. A rejected desired state is logged as
//     one record per diagnostic: msg "desired state rejected: <Error()>",
//     phase plan, status invalid, error_class <class>, resource <label>.
package command
