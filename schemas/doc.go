// Package schemas holds the published JSON Schemas (draft 2020-12) of the
// files the tool writes, one per schema name: the plan file
// (sops-aws-sync/plan/v3, and v2 and v1 that show still reads), the report
// (sops-aws-sync/report/v1) and sync's changes file
// (sops-aws-sync/changes/v1), as plan-v3.schema.json, report-v1.schema.json
// and so on beside this file, for CI tools (a policy engine, jq, a
// dashboard) that consume them. The schemas are the shape of each file;
// the tool's own readers (planview.Parse, report.Parse, changes.Parse) are
// authoritative and also check the rules between fields.
//
// Invariants, each held by a test: every object of a Go type is closed
// (additionalProperties false) with exactly the Go type's JSON keys, the
// keys a writer always writes required (TestSchemasMatchTheGoTypes); the
// enumerations are vocab's lists; every output of the outputs × results
// table (test/outputs) validates (Validate). No product package imports
// this one: it is outside the layers (docs/architecture.md).
package schemas
