package importer

import (
	"bytes"
	"encoding/json"

	"github.com/sops-aws-sync/sops-aws-sync/internal/canonical"
	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
	"github.com/sops-aws-sync/sops-aws-sync/internal/plan"
)

// Value is one live value as import writes it: the document's format
// (model.JSON, model.Text or model.Binary) and the plaintext the document
// holds.
type Value struct {
	Format model.Format
	Plain  []byte
}

// Suffix is the document suffix of v's format (".sops.json", ".sops.txt",
// ".sops.bin").
func (v Value) Suffix() string {
	for _, s := range model.Suffixes {
		if s.Format == v.Format {
			return s.Suffix
		}
	}
	return ""
}

// Classify decides the document a live value becomes (SPEC §18), so that
// the document plans adopt with value equal (SPEC §11): the document's
// value must be byte-equal to the live one.
//   - SecretBinary alone: a .sops.bin of its bytes when the target stores
//     binary values and the bytes pass the whole-value rules;
//   - SecretString alone that is a JSON object already in its RFC 8785
//     canonical form (what this tool writes) with no top-level key "sops"
//     (SOPS keeps its metadata there): a .sops.json of it;
//   - any other SecretString that passes the whole-text rules (1..65,536
//     bytes of UTF-8, no byte-order mark): a .sops.txt of it — a JSON object
//     spelled otherwise (the console's key order, whitespace) included,
//     which a .sops.json would rewrite (one value write at adoption);
//   - anything else (both or neither payload, empty, not UTF-8 text, a BOM,
//     too large, binary for a target that stores text only): false.
func Classify(v plan.CurrentValue, storesBinary bool) (Value, bool) {
	switch {
	case v.HasString == v.HasBinary:
		return Value{}, false
	case v.HasBinary:
		if !storesBinary || canonical.Whole(model.Binary, v.Binary) != nil {
			return Value{}, false
		}
		return Value{Format: model.Binary, Plain: v.Binary}, true
	}
	if canonicalObject(v.String) {
		return Value{Format: model.JSON, Plain: v.String}, true
	}
	if canonical.Whole(model.Text, v.String) != nil {
		return Value{}, false
	}
	return Value{Format: model.Text, Plain: v.String}, true
}

// canonicalObject reports whether s is a JSON object whose canonical form
// (canonical.FromJSON) is s itself and which has no top-level member
// "sops".
func canonicalObject(s []byte) bool {
	if len(s) == 0 || s[0] != '{' {
		return false
	}
	c, err := canonical.FromJSON(s)
	if err != nil || !bytes.Equal(c, s) {
		return false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(s, &top) != nil {
		return false
	}
	_, sops := top["sops"]
	return !sops
}
