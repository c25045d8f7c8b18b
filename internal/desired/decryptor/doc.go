// Package decryptor turns one committed SOPS document into its plaintext
// (SPEC §3.2): the SOPS library in process, the MAC verified, SOPS's own
// logging silenced, a panic inside SOPS recovered, every failure a
// registered class without library text (SOPS error text can echo
// plaintext), and every key-service call bounded. It knows nothing of Git
// or of where the bytes come from; internal/desired composes it with
// internal/desired/gitsource.
package decryptor
