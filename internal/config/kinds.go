package config

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// kindSpec is everything a Kind decides, in one row: how it is named, how
// its raw text is parsed into the value bind takes, which config-file node
// it accepts and how that node becomes raw text. A new kind is a constant
// (settings.go) and a row here; TestEveryKindHasARow fails until it is.
type kindSpec struct {
	// typeName is the word shown in help and diagnostics (Kind.TypeName).
	typeName string
	// yamlType completes "must be a YAML …" when the config file holds
	// another node type.
	yamlType string
	// itemsForm, when set, is the expected form of a list kind with the
	// setting's Items in place of %s (Setting.Items; yamlType when the
	// setting names none).
	itemsForm string
	// lines: the raw value is items joined by newlines (line breaks are
	// not control characters there), and a flag of the kind is given once
	// per item (Kind.Repeatable).
	lines bool
	// parse turns the raw text (non-empty printable UTF-8) into the value
	// handed to the setting's bind, or returns the Problem (class and
	// reason; the caller fills setting and source). nil: the text itself.
	parse func(s Setting, v string) (any, Problem)
	// fromYAML turns a config-file node into the raw text, reporting
	// whether the node is of a type the kind accepts.
	fromYAML func(n *yaml.Node) (string, bool)
}

func wrongType(reason string) Problem  { return Problem{Class: ClassWrongType, Reason: reason} }
func outOfRange(reason string) Problem { return Problem{Class: ClassInvalidValue, Reason: reason} }

// kinds is the table of kinds, one row per Kind.
var kinds = [kindEnd]kindSpec{
	KindString: {typeName: "string", yamlType: "string", fromYAML: stringFor},
	KindBool: {typeName: "bool", yamlType: "boolean (true or false)",
		parse: func(_ Setting, v string) (any, Problem) {
			b, err := parseBool(v)
			if err != nil {
				return nil, wrongType("must be true or false")
			}
			return b, Problem{}
		},
		fromYAML: func(n *yaml.Node) (string, bool) {
			return strings.ToLower(n.Value), n.Kind == yaml.ScalarNode && n.Tag == "!!bool"
		}},
	KindInt: {typeName: "int", yamlType: "integer",
		parse: func(s Setting, v string) (any, Problem) {
			n, err := strconv.ParseInt(v, 10, strconv.IntSize)
			if errors.Is(err, strconv.ErrRange) {
				return nil, outOfRange(s.outOfRange(v))
			}
			if err != nil {
				return nil, wrongType("must be a base-10 integer")
			}
			return int(n), Problem{}
		},
		fromYAML: func(n *yaml.Node) (string, bool) { return integerFor(n, false) }},
	KindDuration: {typeName: "duration", yamlType: "string holding a Go duration such as 30s",
		parse: func(_ Setting, v string) (any, Problem) {
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, wrongType("must be a Go duration such as 30s, 2m or 1h")
			}
			return d, Problem{}
		},
		fromYAML: stringFor},
	KindSize: {typeName: "size", yamlType: "string holding a size such as 8MiB, or an integer byte count",
		parse: func(_ Setting, v string) (any, Problem) {
			n, err := ParseSize(v)
			if errors.Is(err, errSizeRange) {
				return nil, outOfRange(fmt.Sprintf("is out of range: a size is at most %d bytes (8 EiB less one byte)", int64(math.MaxInt64)))
			}
			if err != nil {
				return nil, wrongType("must be a byte size such as 512KiB or 8MiB (suffixes B, KiB, MiB, GiB)")
			}
			return n, Problem{}
		},
		fromYAML: func(n *yaml.Node) (string, bool) { return integerFor(n, true) }},
	KindTags: {typeName: "tags", yamlType: "mapping of tag keys to string values (quote numbers, booleans and dates: cost: \"42\")", lines: true,
		parse: func(_ Setting, v string) (any, Problem) {
			m, reason := ParseTags(v)
			if reason != "" {
				return nil, wrongType(reason)
			}
			return m, Problem{}
		},
		fromYAML: tagsFor},
	KindList: {typeName: "names", yamlType: "list of secret names (strings), or a comma-separated string", itemsForm: "list of %s (strings), or a comma-separated string", lines: true,
		parse: func(_ Setting, v string) (any, Problem) {
			l := ParseList(v)
			if len(l) == 0 {
				return nil, wrongType("must hold at least one name")
			}
			return l, Problem{}
		},
		fromYAML: listFor},
	KindAWSOwned: {typeName: "json", yamlType: "sequence of mappings with secret (string), keys (sequence of strings) and optional generate (integer)",
		parse: func(_ Setting, v string) (any, Problem) {
			l, reason := ParseAWSOwned(v)
			if reason != "" {
				return nil, wrongType(reason)
			}
			return l, Problem{}
		},
		fromYAML: awsOwnedFor},
	KindCommaList: {typeName: "list", yamlType: "list of strings, or a comma-separated string", itemsForm: "list of %s, or a comma-separated string",
		fromYAML: commaListFor},
}

// expectedYAML is the expected form of s in the config file, completing
// "must be a YAML …" in a type error: the kind's words, with the setting's
// Items for a list kind ("list of Region codes (REGION or REGION=KMS_KEY),
// or a comma-separated string").
func expectedYAML(s Setting) string {
	k := kinds[s.Kind]
	if k.itemsForm != "" && s.Items != "" {
		return fmt.Sprintf(k.itemsForm, s.Items)
	}
	return k.yamlType
}

// commaListFor accepts a KindCommaList node: a YAML string as it is (the
// comma-separated form), or a non-empty sequence of strings joined by
// commas, no entry holding a comma or a line break (the separator of the
// raw value, which no Region code or key service holds).
func commaListFor(n *yaml.Node) (string, bool) { return sequenceFor(n, ",") }

// sequenceFor accepts a YAML string as it is, or a non-empty sequence of
// YAML strings joined by sep, no entry holding a comma or a line break (the
// separators of the raw values of KindCommaList and KindList).
func sequenceFor(n *yaml.Node, sep string) (string, bool) {
	if n.Kind == yaml.ScalarNode {
		return stringFor(n)
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return "", false
	}
	items := make([]string, 0, len(n.Content))
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.Tag != "!!str" || strings.ContainsAny(e.Value, "\n\r,") {
			return "", false
		}
		items = append(items, e.Value)
	}
	return strings.Join(items, sep), true
}

// stringFor accepts a YAML string scalar as it is.
func stringFor(n *yaml.Node) (string, bool) {
	return n.Value, n.Kind == yaml.ScalarNode && n.Tag == "!!str"
}

// integerFor accepts a YAML integer of any size (YAML resolves one too
// large for int64 as a float: one out of range is reported as such by
// the kind's parse, not as the wrong type), and with str also a YAML
// string (a size with a suffix).
func integerFor(n *yaml.Node, str bool) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	if n.Tag == "!!int" || n.Tag == "!!float" {
		i, ok := new(big.Int).SetString(strings.ReplaceAll(n.Value, "_", ""), 0)
		if !ok {
			return "", false
		}
		return i.String(), true
	}
	return n.Value, str && n.Tag == "!!str"
}
