// Package emulator is a local stand-in for AWS Secrets Manager that speaks the
// real awsJson1_1 wire protocol, so the unmodified aws-sdk-go-v2 client works
// against it, and that misbehaves on command the way AWS does (latency, list
// lag, throttling, internal errors, ambiguous writes, scripted faults,
// unusable KMS keys). The same listener serves Parameter Store
// (X-Amz-Target AmazonSSM.*, package ssm) on the same accounts, Regions, clock,
// faults and quotas, and STS (package sts: the roles a run assumes). It keeps a registry of KMS keys and aliases (package kms) to
// validate KmsKeyId and to record which keys can decrypt each version, so the
// re-encryption rules of UpdateSecret can be modelled; nothing is encrypted.
//
// The facts it models (operations, error codes and messages, limits, wire
// format) come from shared/reference/aws-secrets-manager.md; docs/emulator.md
// lists what is modelled, what is not, and the choices made where the
// reference marks a fact unverified.
//
// Invariants:
//   - All state lives behind one mutex; every exported method and every HTTP
//     request is safe for concurrent use.
//   - Time comes only from the emulator clock (Now), which tests can advance;
//     deletion windows, list lag and quota buckets all use it. Only injected
//     latency really sleeps.
//   - A secret snapshot is immutable once committed, and so is a version (a
//     re-encryption replaces the version in the new snapshot by a copy); each mutation commits a
//     new snapshot into the secret's short history, which is what ListSecrets
//     reads when list lag is on (no copy of the whole state per write).
//   - Every random decision (ARN suffixes, generated ids, fault rolls) comes
//     from generators seeded by Faults.Seed, so a run with the same seed and
//     the same call order makes the same decisions.
//   - Malformed requests get an error response, never a panic or a crash.
package emulator
