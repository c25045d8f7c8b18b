// Package emulator is a local stand-in for AWS Secrets Manager that speaks the
// real awsJson1_1 wire protocol, so the unmodified aws-sdk-go-v2 client works
// against it, and that misbehaves on command the way AWS does (latency, list
// lag, throttling, internal errors, ambiguous writes, scripted faults,
// unusable KMS keys). The same listener serves Parameter Store
// (X-Amz-Target AmazonSSM.*) and STS (the roles a run assumes), on the same
// accounts, Regions, clock, faults and quotas, and it keeps a registry of
// KMS keys and aliases; nothing is encrypted.
//
// Each service is its own package on a shared core (internal/emulator/core:
// the protocol, errors, accounts' forms, the interfaces a service reaches
// the server and another service through): secretsmanager, ssm, sts and
// kms, none importing another. This package composes them: the router,
// one partition per (account, Region) holding each service's store, the
// clock, faults, quotas, stats and the control API under /_emulator/
// (services.go lends them to the services as their Host).
//
// The facts it models (operations, error codes and messages, limits, wire
// format) come from shared/reference/aws-secrets-manager.md; docs/emulator.md
// lists what is modelled, what is not, and the choices made where the
// reference marks a fact unverified.
//
// Invariants:
//   - All state lives behind one mutex; every exported method and every HTTP
//     request is safe for concurrent use. A service's handler takes it
//     through its Host.
//   - Time comes only from the emulator clock (Now), which tests can advance;
//     deletion windows, list lag and quota buckets all use it. Only injected
//     latency really sleeps.
//   - Every random decision (ARN suffixes, generated ids, fault rolls) comes
//     from generators seeded by Faults.Seed, so a run with the same seed and
//     the same call order makes the same decisions.
//   - Malformed requests get an error response, never a panic or a crash.
package emulator
