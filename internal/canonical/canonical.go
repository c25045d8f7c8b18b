package canonical

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/gowebpki/jcs"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// MaxValueBytes is the largest SecretString AWS Secrets Manager accepts
// (SecretString 1..65,536; see the AWS reference, §5), and so the largest
// canonical value (SPEC §3.3) and the largest whole value (SPEC §3.1).
const MaxValueBytes = model.MaxValueBytes

// Format is the plaintext syntax of a document (model.Format, chosen by
// the document suffix table model.Suffixes, SPEC §3.1).
type Format = model.Format

// The formats, as defined by model.
const (
	JSON   = model.JSON
	YAML   = model.YAML
	Dotenv = model.Dotenv
	Text   = model.Text
	Binary = model.Binary
)

var (
	utf8BOM = []byte{0xEF, 0xBB, 0xBF}

	errBOM = rule(ClassBOM,
		"the decrypted plaintext starts with a UTF-8 byte-order mark (typical of files saved by Windows editors)",
		"save the source file as UTF-8 without BOM (for example: sed -i '1s/^\\xEF\\xBB\\xBF//' FILE before encrypting), then re-encrypt it with sops")
	errNotUTF8 = rule(ClassNotUTF8,
		"the decrypted plaintext is not valid UTF-8",
		"save the source file as UTF-8, then re-encrypt it with sops")
	errEmpty = rule(ClassEmpty,
		"the decrypted plaintext holds no document",
		"add the secret's fields to the document, or delete the file, then re-encrypt it with sops")
	errTooLarge = rule(ClassTooLarge,
		"the canonical JSON value is larger than 65,536 bytes, the AWS Secrets Manager limit",
		"split the document into several smaller documents")
	errCanonical = rule(ClassSyntax,
		"the value is not accepted by the RFC 8785 canonicalizer",
		nextReencrypt)
)

// Canonicalize returns the RFC 8785 canonical JSON of the object in plain
// (SPEC §3.3), or an *Error. The result is 1..MaxValueBytes bytes.
//
// Rules common to every format: plain must be valid UTF-8 and must not
// start with a UTF-8 byte-order mark. Per-format rules are described at
// FromJSON, FromYAML and FromDotenv.
//
// The whole-value formats Text and Binary have no canonical form: a copy
// of plain, byte for byte, is returned once it passes Whole's checks (a
// copy, so that the caller may clear plain as it does for every format).
func Canonicalize(f Format, plain []byte) ([]byte, error) {
	var (
		out []byte
		err *Error
	)
	switch f {
	case JSON:
		out, err = fromJSON(plain)
	case YAML:
		out, err = fromYAML(plain)
	case Dotenv:
		out, err = fromDotenv(plain)
	case Text, Binary:
		if err = whole(f, plain); err == nil {
			out = bytes.Clone(plain)
		}
	default:
		return nil, errUnknownFormat
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FromJSON canonicalizes JSON plaintext: exactly one top-level object, no
// duplicate member names at any depth, no trailing data, integers within
// ±(2^53−1), decimals that survive an IEEE-754 double round trip.
func FromJSON(plain []byte) ([]byte, error) { return Canonicalize(JSON, plain) }

// FromYAML canonicalizes YAML plaintext: exactly one document whose root is
// a mapping; string keys only; no duplicate keys; no anchors, aliases or
// merge keys; scalars null, string, bool, integer or finite float (no
// timestamps, !!binary or other tags); the JSON number rules apply.
func FromYAML(plain []byte) ([]byte, error) { return Canonicalize(YAML, plain) }

// FromDotenv canonicalizes dotenv plaintext (SOPS's dotenv semantics) into a
// JSON object of strings; see the package documentation of fromDotenv.
func FromDotenv(plain []byte) ([]byte, error) { return Canonicalize(Dotenv, plain) }

// Unbounded is FromJSON without the size rule: the canonical form of a
// value the tool builds rather than reads from a document (a merge of a
// document with the live values of the keys AWS owns, a create with
// generated keys, SPEC §13), whose size is judged against the target's
// own limit by the plan's gate (plan.Oversized, gate:value-too-large), not
// refused here as if the document were too large. Errors are those of
// FromJSON other than ClassTooLarge.
func Unbounded(plain []byte) ([]byte, error) {
	if e := checkText(plain); e != nil {
		return nil, e
	}
	if e := validateJSON(plain); e != nil {
		return nil, e
	}
	out, e := transform(plain)
	if e != nil {
		return nil, e
	}
	return out, nil
}

func checkText(plain []byte) *Error {
	if bytes.HasPrefix(plain, utf8BOM) {
		return errBOM
	}
	if !utf8.Valid(plain) {
		return errNotUTF8
	}
	return nil
}

func fromJSON(plain []byte) ([]byte, *Error) {
	if e := checkText(plain); e != nil {
		return nil, e
	}
	if e := validateJSON(plain); e != nil {
		return nil, e
	}
	return finish(plain)
}

func fromYAML(plain []byte) ([]byte, *Error) {
	if e := checkText(plain); e != nil {
		return nil, e
	}
	j, e := yamlToJSON(plain)
	if e != nil {
		return nil, e
	}
	return finish(j)
}

func fromDotenv(plain []byte) ([]byte, *Error) {
	if e := checkText(plain); e != nil {
		return nil, e
	}
	j, e := dotenvToJSON(plain)
	if e != nil {
		return nil, e
	}
	return finish(j)
}

// finish runs RFC 8785 on validated JSON text and applies the size rule.
func finish(j []byte) ([]byte, *Error) {
	out, e := transform(j)
	if e != nil {
		return nil, e
	}
	if len(out) > MaxValueBytes {
		return nil, errTooLarge
	}
	if len(out) == 0 {
		return nil, errEmpty
	}
	return out, nil
}

// transform is RFC 8785 over validated JSON text, its result at its own
// size: jcs returns its bytes.Buffer's slice, whose capacity follows the
// input (SOPS's indented plaintext) rather than the canonical length, and
// the value is kept for the whole run.
func transform(j []byte) ([]byte, *Error) {
	out, err := jcs.Transform(j)
	if err != nil {
		return nil, errCanonical
	}
	return bytes.Clone(out), nil
}

// writeJSONString appends s as a JSON string literal. s must be valid UTF-8.
func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // cannot fail for a string
	buf.Truncate(buf.Len() - 1) // Encode appends '\n'
}
