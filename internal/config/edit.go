package config

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// ErrEdit is the reason AddEntries gives for a config file it cannot
// edit; it never quotes the file.
var ErrEdit = errors.New("the config file is not one YAML mapping whose scope can be found")

// The keys of an aws-owned entry in the config file (awsOwnedFor).
const (
	awsOwnedSecret   = "secret"
	awsOwnedKeys     = "keys"
	awsOwnedGenerate = "generate"
)

// AddEntries returns the config file raw with adopt names and aws-owned
// entries added to one scope (import, SPEC §18), its comments, key order
// and every other value kept (yaml.v3's node tree, re-encoded with an
// indent of 2). The scope is the entry of scopes: named scope when
// listed, else the top level. In that mapping, a sequence already under
// the key gains the items it lacks at its end; a key that is absent is
// added at the mapping's end with current (the scope's resolved list,
// inherited from the top level or given by a flag) and the new items, so
// that the scope's effective list only grows. With requireMatch, the
// mapping's adopt-require-match is set to true (added at its end when
// absent): import's adopt entries then adopt a secret only while its live
// value still equals the document's (SPEC §11), so a live change made
// between the import and the merge is conflict adopt-mismatch rather than
// overwritten. Errors: ErrEdit.
func AddEntries(raw []byte, scope string, listed bool, currentAdopt, adopt []string, currentOwned, owned []model.AWSOwned, requireMatch bool) ([]byte, error) {
	var plain any
	if yaml.Unmarshal(raw, &plain) != nil { // duplicate keys, …: the reader refuses them too
		return nil, ErrEdit
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, ErrEdit
	}
	m := doc.Content[0]
	if listed {
		if m = scopeMapping(m, scope); m == nil {
			return nil, ErrEdit
		}
	}
	if len(adopt) > 0 {
		var items []*yaml.Node
		for _, n := range adopt {
			items = append(items, scalar(n))
		}
		if !addItems(m, Adopt, currentAdoptNodes(currentAdopt), items, sameScalar) {
			return nil, ErrEdit
		}
	}
	if len(owned) > 0 {
		var cur, items []*yaml.Node
		for _, e := range currentOwned {
			cur = append(cur, ownedNode(e))
		}
		for _, e := range owned {
			items = append(items, ownedNode(e))
		}
		if !addItems(m, AWSOwned, cur, items, sameSecret) {
			return nil, ErrEdit
		}
	}
	if requireMatch && !setTrue(m, AdoptRequireMatch) {
		return nil, ErrEdit
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, ErrEdit
	}
	if err := enc.Close(); err != nil {
		return nil, ErrEdit
	}
	return buf.Bytes(), nil
}

// scopeMapping is the mapping of scopes: whose name is scope (nil: none).
func scopeMapping(top *yaml.Node, scope string) *yaml.Node {
	seq := valueOf(top, ScopesKey)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	for _, e := range seq.Content {
		if e.Kind == yaml.MappingNode {
			if n := valueOf(e, ScopeNameKey); n != nil && n.Kind == yaml.ScalarNode && n.Value == scope {
				return e
			}
		}
	}
	return nil
}

// valueOf is the value node of key in mapping m (nil: absent).
func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// addItems appends to the sequence under key in m the items it lacks
// (same tells two items alike); an absent key is added with current and
// the items. False when the key holds no sequence.
func addItems(m *yaml.Node, key string, current, items []*yaml.Node, same func(a, b *yaml.Node) bool) bool {
	seq := valueOf(m, key)
	if seq == nil {
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		m.Content = append(m.Content, scalar(key), seq)
		items = append(current, items...)
	}
	if seq.Kind != yaml.SequenceNode {
		return false
	}
	for _, it := range items {
		if !slices.ContainsFunc(seq.Content, func(n *yaml.Node) bool { return same(n, it) }) {
			seq.Content = append(seq.Content, it)
		}
	}
	return true
}

// setTrue sets key in m to the boolean true: an absent key is added at
// the mapping's end, a scalar value replaced (its comments kept). False
// when the key holds no scalar.
func setTrue(m *yaml.Node, key string) bool {
	v := valueOf(m, key)
	if v == nil {
		m.Content = append(m.Content, scalar(key), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
		return true
	}
	if v.Kind != yaml.ScalarNode {
		return false
	}
	v.Tag, v.Value, v.Style = "!!bool", "true", 0
	return true
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func currentAdoptNodes(names []string) []*yaml.Node {
	var out []*yaml.Node
	for _, n := range names {
		out = append(out, scalar(n))
	}
	return out
}

// ownedNode is an aws-owned entry as the config file writes it:
// {secret: …, keys: [ … ], generate: n (when set)}, keys in flow style.
func ownedNode(e model.AWSOwned) *yaml.Node {
	keys := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, k := range e.Keys {
		n := scalar(k)
		if k == "" {
			n.Style = yaml.DoubleQuotedStyle
		}
		keys.Content = append(keys.Content, n)
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalar(awsOwnedSecret), scalar(e.Secret), scalar(awsOwnedKeys), keys}}
	if e.Generate != 0 {
		m.Content = append(m.Content, scalar(awsOwnedGenerate), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(e.Generate)})
	}
	return m
}

func sameScalar(a, b *yaml.Node) bool {
	return a.Kind == yaml.ScalarNode && b.Kind == yaml.ScalarNode && a.Value == b.Value
}

// sameSecret: two aws-owned entries for one secret pattern.
func sameSecret(a, b *yaml.Node) bool {
	if a.Kind != yaml.MappingNode || b.Kind != yaml.MappingNode {
		return false
	}
	x, y := valueOf(a, awsOwnedSecret), valueOf(b, awsOwnedSecret)
	return x != nil && y != nil && x.Value == y.Value
}
