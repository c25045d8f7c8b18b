// Package keydiff computes the key-level change summary of one secret: which
// leaf paths of its value an update adds, removes and changes, as RFC 6901
// JSON Pointers (SPEC §7.4: the plan file's key-level summary). It never returns a value, a length, a
// hash or any other fingerprint of a value: only pointers and counts.
// merge.go holds the pure rules of keys owned by AWS (SPEC §13): Merge
// carries the live values of those keys into the desired value, Lacking
// and Fill find and fill the ones a new secret must be given.
//
// Invariants:
//   - Diff is a pure function of (canonical desired value, observed
//     SecretString); it does no I/O and keeps no state. It imports the
//     standard library and vocab only.
//   - A leaf is a value that is not an object with members: a string,
//     number, boolean, null, an array (arrays are leaves, compared whole) or
//     an empty object. The document root is never a leaf.
//   - Added are the leaf pointers of desired that observed lacks, Removed
//     those of observed that desired lacks, Changed those of both whose
//     values differ (numbers compared as IEEE-754 doubles, as RFC 8785 does;
//     strings by their decoded text). added + removed is the symmetric
//     difference of the two leaf sets.
//   - Every path is tagged InDesired: whether it names an object member of
//     the desired document (a leaf or an object with members, never an
//     array element). Added and Changed paths always are; a Removed path
//     is only when the desired document has the same pointer as an object.
//     Views may name only InDesired paths (the redaction rule); the others
//     exist only in the observed AWS value and are counted, never named.
//   - When the observed value is not a JSON object (binary, not JSON, or
//     another JSON type) the summary holds only the reason, no path.
package keydiff
