// Package config resolves the options of `plan`, `sync` and `validate`
// (SPEC §2.1), per scope when the config file lists scopes (SPEC §10), from
// four sources in a fixed precedence: an explicitly given command-line flag,
// then the environment variable SOPS_AWS_SYNC_<FLAG> (upper-case, "-" → "_"),
// then the key of the same name in the YAML file named by --config, then the
// built-in default.
//
// Invariants:
//   - Resolution is pure: it reads only the values handed to it in Input
//     (flags, an environment snapshot, a file reader). It has no side effects.
//   - Validation is strict and fails closed: unknown flags, unknown
//     SOPS_AWS_SYNC_* variables, unknown or mistyped config keys and values
//     out of range are all errors, and every problem found is reported.
//   - A diagnostic names the setting, where it came from and why it was
//     rejected, but never echoes the rejected value (it may be a secret that
//     was pasted into the wrong place).
package config
