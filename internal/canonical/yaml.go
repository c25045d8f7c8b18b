package canonical

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

var (
	errYAMLNotObject = rule(ClassNotObject,
		"the YAML document is not a mapping",
		"make the document one YAML mapping (key: value lines) whose keys are the secret's fields, then re-encrypt it with sops")
	errYAMLMulti = rule(ClassMultiDocument,
		"the decrypted YAML holds more than one document (a second '---')",
		"keep exactly one YAML document per file, then re-encrypt it with sops")
	errYAMLAnchor = rule(ClassAnchorOrAlias,
		"the YAML document uses an anchor, an alias or a merge key (<<)",
		"write the values out in full instead of using &anchors, *aliases or << merge keys, then re-encrypt it with sops")
	errYAMLKey = rule(ClassNonStringKey,
		"a YAML mapping key is not a string (a number, boolean, null, tagged or complex key)",
		"quote the key in the source document, then re-encrypt it with sops")
	errYAMLDuplicate = rule(ClassDuplicateKey,
		"a key appears twice in one YAML mapping",
		"remove or rename the repeated key in the source document, then re-encrypt it with sops")
	errYAMLTimestamp = rule(ClassUnsupportedScalar,
		"a YAML value is a timestamp (dates are not JSON values; sops also rewrites them)",
		"quote the date in the source document so it stays a string, then re-encrypt it with sops")
	errYAMLBinary = rule(ClassUnsupportedScalar,
		"a YAML value is tagged !!binary",
		"store the data as a plain (for example base64) string without the !!binary tag, then re-encrypt it with sops")
	errYAMLTag = rule(ClassUnsupportedScalar,
		"a YAML node carries a tag other than the JSON-compatible core tags (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq)",
		"remove the tag in the source document, then re-encrypt it with sops")
	errYAMLString = rule(ClassNotUTF8,
		"a YAML string is not valid UTF-8 after unescaping",
		nextReencrypt)
)

// yamlToJSON checks the YAML rules of SPEC §3.3 and writes the equivalent
// JSON text (member order as written; canonical order comes later).
func yamlToJSON(plain []byte) (out []byte, e *Error) {
	defer func() {
		// yaml.v3 reports some malformed input by panicking; treat it as a
		// syntax error, never as a crash.
		if r := recover(); r != nil {
			out, e = nil, errYAMLSyntax
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(plain))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errEmpty
		}
		return nil, errYAMLSyntax
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err == nil:
		return nil, errYAMLMulti
	default:
		// A second document that does not even parse is still a second
		// document; report the more useful class.
		return nil, errYAMLMulti
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errEmpty
	}
	root := doc.Content[0]
	if root.Anchor != "" || root.Kind == yaml.AliasNode {
		return nil, errYAMLAnchor
	}
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" && root.Value == "" {
			return nil, errEmpty
		}
		return nil, errYAMLNotObject
	}
	var buf bytes.Buffer
	if e := writeYAML(&buf, root, 1); e != nil {
		return nil, e
	}
	return buf.Bytes(), nil
}

// writeYAML writes n as JSON; depth is n's nesting level (the root
// mapping is 1).
func writeYAML(buf *bytes.Buffer, n *yaml.Node, depth int) *Error {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return errYAMLAnchor
	}
	if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && depth > MaxDepth {
		return errTooDeep
	}
	switch n.Kind {
	case yaml.MappingNode:
		if n.ShortTag() != "!!map" {
			return errYAMLTag
		}
		seen := make(map[string]struct{}, len(n.Content)/2)
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Anchor != "" || k.Kind == yaml.AliasNode {
				return errYAMLAnchor
			}
			if k.Kind != yaml.ScalarNode {
				return errYAMLKey
			}
			switch k.ShortTag() {
			case "!!str":
				// A key "<<" is a merge key to YAML 1.1 readers whatever
				// its quoting; SOPS's YAML store writes a decrypted merge
				// key as the quoted "<<" since go.yaml.in/yaml v3.0.6, so
				// a literal "<<" is refused like the tagged one: one
				// document must never mean a merge to `sops decrypt` and a
				// key named "<<" to this tool.
				if k.Value == "<<" {
					return errYAMLAnchor
				}
			case "!!merge":
				return errYAMLAnchor
			default:
				return errYAMLKey
			}
			if !utf8.ValidString(k.Value) {
				return errYAMLString
			}
			if _, dup := seen[k.Value]; dup {
				return errYAMLDuplicate
			}
			seen[k.Value] = struct{}{}
			if i > 0 {
				buf.WriteByte(',')
			}
			writeJSONString(buf, k.Value)
			buf.WriteByte(':')
			if e := writeYAML(buf, v, depth+1); e != nil {
				return e
			}
		}
		buf.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		if n.ShortTag() != "!!seq" {
			return errYAMLTag
		}
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if e := writeYAML(buf, c, depth+1); e != nil {
				return e
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		return writeYAMLScalar(buf, n)
	}
	return errYAMLSyntax
}

func writeYAMLScalar(buf *bytes.Buffer, n *yaml.Node) *Error {
	switch n.ShortTag() {
	case "!!str":
		if !utf8.ValidString(n.Value) {
			return errYAMLString
		}
		writeJSONString(buf, n.Value)
	case "!!null":
		buf.WriteString("null")
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return errYAMLSyntax
		}
		buf.WriteString(strconv.FormatBool(b))
	case "!!int":
		var v any
		if err := n.Decode(&v); err != nil {
			return errYAMLSyntax
		}
		var i int64
		switch t := v.(type) {
		case int:
			i = int64(t)
		case int64:
			i = t
		case uint64:
			return errIntPrecision
		case float64:
			// Explicitly tagged !!int that yaml.v3 could not hold as an
			// integer.
			return errIntPrecision
		default:
			return errYAMLSyntax
		}
		if e := checkInteger(i); e != nil {
			return e
		}
		buf.WriteString(strconv.FormatInt(i, 10))
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil {
			return errYAMLSyntax
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return errNonFinite
		}
		literal := strings.ReplaceAll(n.Value, "_", "")
		if _, ok := parseDecimal(literal); ok {
			if e := checkNumber(literal, f); e != nil {
				return e
			}
		} else if f != math.Trunc(f) || f > MaxSafeInteger || f < -MaxSafeInteger {
			// A non-decimal spelling (0x…, 0o…) tagged !!float: only exact
			// safe integers are certain to be what the author meant.
			return errDecPrecision
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	case "!!timestamp":
		return errYAMLTimestamp
	case "!!binary":
		return errYAMLBinary
	default:
		return errYAMLTag
	}
	return nil
}
