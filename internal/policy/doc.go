// Package policy checks a plan against the operator's Rego policies
// (docs/policy-checks.md), in-process with OPA's Go module: plan --policy
// DIR. The input of every policy is the plan file exactly as the run
// writes it (schema sops-aws-sync/plan/v3, schemas/plan-v3.schema.json:
// never a value, a length or a hash of one), so a policy that passes here
// passes under Conftest on the same file; what the plan file does not say
// and a policy needs — each scope's target, Parameter Store tier and kind
// of KMS key, the change's labels — is data under data.sops_aws_sync
// (Context), never a key id or an account.
//
// Invariants: evaluation is deterministic and offline (the builtins OPA
// marks non-deterministic — http.send, net.lookup_ip_addr, opa.runtime
// with its environment, time.now_ns, rand.intn, uuid.rfc4122, JWT
// signing — are not available: a policy that calls one does not
// compile); the rules read are Conftest's (package main; deny,
// violation, deny_*, violation_*); a denial's message is cut to one
// printable line of at most MaxMessageBytes.
package policy
