package canonical

// MaxDepth is the deepest nesting of objects and arrays (YAML mappings and
// sequences) a document may have; the top-level object is depth 1, so
// {"a":{"b":[1]}} has depth 3. SPEC §3.3 is silent; this is our decision
// (docs/desired-state.md, "Nesting depth"): secrets are flat or shallow
// configuration, and an unbounded depth let a 10,000-level document of
// 60 KB cost 515 MB of memory, mostly in SOPS re-emitting it with one
// indentation per level. 100 keeps every real document and bounds the
// work per document to its size.
const MaxDepth = 100

var errTooDeep = rule(ClassTooDeep,
	"the document nests objects and arrays more than 100 levels deep",
	"flatten the document (at most 100 nested levels), then re-encrypt it with sops")

// TooDeep returns the error for a document deeper than MaxDepth, for
// callers that measure the depth of the same structure before it reaches
// Canonicalize (internal/desired checks the parsed SOPS tree before
// decrypting).
func TooDeep() *Error {
	e := *errTooDeep
	return &e
}
