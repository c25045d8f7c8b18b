// Package vocab owns every stable token that leaves the process: run statuses,
// verification outcomes, exit codes, conflict classes, the actions a plan
// takes (one type for the planner's decision, the engine's operation, the
// plan file's action and the log's operation) with their reasons and report
// counters, the report and plan-file schema identifiers and the log field
// vocabulary (SPEC §4.1, §5, §7).
//
// Invariant: these strings are part of the public contract (the recovery
// guide, the GitHub Action and users' scripts key on them). Golden tests in
// this package (TestWireTokensGolden, TestActionsGolden over
// testdata/actions.golden) fail if any of them changes; the part the
// GitHub Action re-declares is generated into testdata/wire.golden.json
// (TestWireContractGolden), which the Action's unit tests read too.
package vocab
