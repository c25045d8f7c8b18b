package config

import (
	"bytes"
	"encoding/json"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// awsOwnedEntry is one aws-owned entry as written (JSON or YAML).
type awsOwnedEntry struct {
	Secret   string   `json:"secret"`
	Keys     []string `json:"keys"`
	Generate *int     `json:"generate,omitempty"`
}

// ParseAWSOwned parses the raw value of a KindAWSOwned setting: one JSON
// array of objects with exactly the members secret (string), keys (array
// of strings) and optionally generate (integer); nothing else. The rules
// of the entries themselves are model.ValidateAWSOwned's. The reason for a
// rejection never quotes the input.
func ParseAWSOwned(v string) ([]model.AWSOwned, string) {
	const shape = `must be a list of entries {secret, keys, generate}: in the config file a YAML sequence of mappings, as a flag or variable one JSON array such as [{"secret":"db/*","keys":["/password"]}]`
	dec := json.NewDecoder(bytes.NewReader([]byte(v)))
	dec.DisallowUnknownFields()
	var raw []awsOwnedEntry
	if err := dec.Decode(&raw); err != nil || dec.More() || len(raw) == 0 {
		return nil, shape
	}
	out := make([]model.AWSOwned, 0, len(raw))
	for _, e := range raw {
		if e.Keys == nil {
			return nil, shape
		}
		a := model.AWSOwned{Secret: e.Secret, Keys: e.Keys}
		if e.Generate != nil {
			if *e.Generate == 0 {
				return nil, model.ErrAWSOwnedGenerate.Error()
			}
			a.Generate = *e.Generate
		}
		out = append(out, a)
	}
	return out, ""
}

// awsOwnedFor turns the config file's aws-owned sequence into the raw
// KindAWSOwned value (JSON). Each entry must be a mapping of secret (a
// YAML string), keys (a sequence of YAML strings; "" for the whole value)
// and optionally generate (a YAML integer), each once.
func awsOwnedFor(n *yaml.Node) (string, bool) {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return "", false
	}
	entries := make([]awsOwnedEntry, 0, len(n.Content))
	for _, item := range n.Content {
		if item.Kind != yaml.MappingNode {
			return "", false
		}
		var e awsOwnedEntry
		seen := map[string]bool{}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || seen[k.Value] {
				return "", false
			}
			seen[k.Value] = true
			switch k.Value {
			case "secret":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
					return "", false
				}
				e.Secret = v.Value
			case "keys":
				if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
					return "", false
				}
				for _, kn := range v.Content {
					if kn.Kind != yaml.ScalarNode || kn.Tag != "!!str" {
						return "", false
					}
					e.Keys = append(e.Keys, kn.Value)
				}
			case "generate":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
					return "", false
				}
				g, err := strconv.Atoi(v.Value)
				if err != nil {
					return "", false
				}
				e.Generate = &g
			default:
				return "", false
			}
		}
		if !seen["secret"] || !seen["keys"] {
			return "", false
		}
		entries = append(entries, e)
	}
	b, err := json.Marshal(entries)
	if err != nil {
		return "", false
	}
	return string(b), true
}
