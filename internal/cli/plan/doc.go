// Package plan is the `plan` command: observe and plan, never write
// (SPEC §2). With --detailed-exit-code it exits 2 when any operation is
// planned.
//
// Invariant: plan never calls a mutating AWS operation (engine.ModePlan),
// and its report's verification is always not-run.
package plan
