// Package desired builds the desired state of one scope from one exact Git
// commit (SPEC §3): it resolves the revision (Resolve, once per run), walks
// the committed tree under the source root (never the working tree or the
// index), selects SOPS documents by suffix, decrypts them in process with
// the SOPS library, and turns each plaintext into its canonical
// SecretString (internal/canonical).
//
// Its one production entry point is Open, the first of the load's two
// steps: the outline (every secret's name and source, structure checked,
// nothing decrypted) is known when it returns, in the Loading's Arrival
// (model.Arrival); Loading.Decrypt is the second step, which publishes each
// value in the Arrival and finishes it (docs/reconciliation.md,
// "Decryption beside the first observation"). A Cache lets the loads of a
// run's scopes decrypt a shared blob once. Loading.Check is validate's
// second step without a key (the structural checks of SOPS's metadata).
// A scope whose target is parameter-store gets that target's rules too
// (parameterstore.go: the parameter name, no binary document, the tier's
// size).
//
// The load composes two halves that know nothing of each other: the Git source
// (internal/desired/gitsource: open, resolve, list, structural checks,
// read) and the decryptor (internal/desired/decryptor: bytes in, plaintext
// out). This package assigns ordinals and names, applies the name rules,
// bounds the decryptions in flight, ties every diagnostic to its document
// and canonicalizes.
//
// Invariants:
//   - A load either finishes its Arrival with every desired secret,
//     validated, or with an error; it never yields a partial state (the
//     Arrival refuses one: model.ErrIncomplete). Nothing here talks to AWS Secrets
//     Manager or Parameter Store, so a failure leaves AWS untouched by
//     construction.
//   - Errors are diag.Diagnostics with a stable class token, the document's
//     ordinal, the path only when resource names may be shown, and a next
//     action. No plaintext, ciphertext, key material or SOPS/go-git error
//     text is ever carried in an error (SOPS error text can echo plaintext).
//   - SOPS's own logging is silenced before the first decryption.
//   - Nothing here fetches from a remote or runs git: an object the clone
//     lacks (a partial clone) is an error, never a network call; the only
//     network calls are the key services SOPS documents name, each bounded.
//   - Results are deterministic: documents are ordered by repo path
//     (ordinals), secrets by name; when several documents are invalid,
//     every one is reported in ordinal order (at most 50, then
//     desired:more-invalid counts the rest): the structurally invalid ones
//     when there are any (nothing is then decrypted), else those that fail
//     to decrypt or canonicalize.
package desired
