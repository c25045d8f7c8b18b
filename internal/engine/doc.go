// Package engine reconciles one scope of AWS Secrets Manager with a desired
// state: observe (through Port), classify, plan (package plan, pure),
// apply with fingerprint preconditions and idempotency tokens, and verify by
// re-observation (SPEC §4–6).
package engine
