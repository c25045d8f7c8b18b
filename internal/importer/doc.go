// Package importer moves an estate in (SPEC §18): the secrets (or
// parameters) under a scope's prefix that the tool does not own become
// SOPS documents at the paths their names map to, the names join the
// scope's adopt list, and a plan of the staged tree proves that each
// document plans adopt with value equal.
//
// Invariants: plaintext reaches only memory and the sops CLI's standard
// input (never a file, a log record, an argument or an environment
// variable); a document reaches the work tree only whole and encrypted
// (a temporary name in its directory, then a link), and never with a
// value left in clear; nothing is written when any document lacks a
// creation rule or fails to encrypt; a document whose plan is not adopt
// with value equal is removed with every other one written, and
// unstaged; a dry run reads no value and writes nothing. Names appear in
// records only with --show-resource-names.
package importer
