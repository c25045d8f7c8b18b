// Package command is `plan`, `sync` and `validate`: one constructor each
// (NewCmdPlan, NewCmdSync, NewCmdValidate, in the GitHub CLI's
// NewCmdX(f, runF) shape) over one shared definition. Every setting of SPEC §2.1 is a cobra flag holding only its
// raw text; RunE resolves flags, environment and config file into the typed
// Options (config.Resolve) and hands them to runF (tests) or to
// reconcile (validate: validate), which reads resolve → execute →
// conclude → write: resolve the logger, the outputs (each output proves
// itself writable) and the run's request; execute the run (run.Execute
// over the factory's Sources: the AWS ports, the revision, the desired
// state, the engine; validate: run.Validate, which never asks for a
// port); conclude its Outcome into an ending; and write the ending.
//
// The end of every plan, sync or validate — a usage error (EarlyFiles), a rejected
// configuration, a refused output, a rejected AWS set-up or desired state,
// a real run, an interruption — is one value, an ending, built by one
// function (conclude) and written by one set of outputs (outputs.go): the
// plan file (planview.Build over the engine's Result.Plan and the run's
// diagnostics), the report, sync's changes file (--changes-file),
// validate's source-roots file, the final "run finished" record, and with
// --log-format text planview.Text after the log.
//
// Invariants:
//   - Nothing with a side effect (Git, decryption, AWS, the report or plan
//     file) happens before the whole configuration is valid; the one
//     exception is the report and the plan file of an invalid run, written
//     when --report-file / --plan-file itself resolved (SPEC §7.2: also
//     when the run fails early; the plan file then holds the diagnostics).
//   - The report file and the plan file are proven writable before the
//     first AWS call (wirefile.File.Probe: the checks and the directory of
//     the final write), and two outputs naming one file are refused
//     (planfile:same-file): a refused output ends the run invalid, exit 3,
//     with no AWS call (docs/results.md).
//   - Exit code, report and final record agree: the plan file is written
//     before the report, and an output that fails makes the ending invalid
//     (exit 3) before the next output writes it.
//   - The JSON log stream holds only JSON records: the human rendering of
//     the plan is printed only with --log-format text.
//   - A flag given twice is a usage error (usage:repeated-flag), never "the
//     last one wins"; no usage diagnostic quotes a value.
//   - Every run that gets past configuration ends with exactly one
//     "run finished" record (phase complete, the last record) and, with
//     --report-file, one report, whatever the outcome — cancellation
//     included.
//   - Every problem is a diag.Diagnostic; its log record and its stderr
//     line render from that value. A rejected desired state is logged as
//     one record per diagnostic: msg "desired state rejected: <Error()>",
//     phase plan, status invalid, error_class <class>, resource <label>.
package command
