// Package chaos is the reliability campaign: it plays many
// seeded, randomized scenarios against the real secretsmanager-emulator
// binary with the real sops-aws-sync binary, and checks, after each one, the
// promises of SPEC §4–§7 and of the recovery guide (seeds 000 and 001):
// re-running converges, nothing outside the scope is touched, no secret is
// force-deleted, writes are idempotent, exit codes agree with reports, and no
// plaintext, token, credential or key ever reaches an output.
//
// A scenario (Generate) is pure data derived from (campaign seed, index): a
// Git history of SOPS documents (Revisions), an AWS state to start from
// (Pre: owned secrets of an earlier sync, with drift, and foreign secrets),
// and a list of CLI runs with fault configurations and kill plans. The
// runner (Campaign) materializes it: a real Git repository written with
// go-git, documents encrypted in process with the sops library and an age
// key, the emulator's state seeded over its API, each CLI run sent through a
// recording proxy (Proxy) that sees every AWS call (and so every
// ClientRequestToken and DeleteSecret flag) and that can SIGKILL the CLI at an
// exact call. Check then judges the evidence; Scan looks for leaks.
//
// Invariants of this package:
//   - Generation, Check and Scan are pure functions of their inputs; all I/O
//     is in the runner, the repo writer, the proxy and the emulator client.
//   - Nothing this package prints (summaries, violation details) contains a
//     plaintext value, token or credential: values are identified by a short
//     SHA-256 prefix, secrets by name (names are not secret in a test).
//   - A violation or a leak makes the campaign fail (non-zero exit).
package chaos
