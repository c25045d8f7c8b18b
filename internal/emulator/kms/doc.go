// Package kms is the emulator's registry of KMS keys and aliases: the keys
// Secrets Manager and Parameter Store validate a KmsKeyId against, and the
// faults that make a key unusable (KeyFault). Nothing is encrypted: the
// services record which keys can decrypt each version and ask the registry
// whether a key is usable. The other services reach it only through
// core.Keys (internal/emulator composes them); KMS's own API is not
// served, the control API (/_emulator/kms) manages the registry.
//
// Sources: the Secrets Manager service model's KmsKeyId documentation for
// CreateSecret/UpdateSecret/DescribeSecret, KMS's AliasName pattern and key
// id forms, and field reports cited in docs/emulator.md.
package kms
