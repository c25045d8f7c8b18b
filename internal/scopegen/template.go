package scopegen

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/diag"
)

// Template says how an account and a Region make a scope (--template FILE,
// docs/many-accounts.md): the name, source root and secret prefix, each
// with placeholders {account-name} (the account's name in lower case, runs
// of other characters made one "-"), {account-id}, {region} and {ou-path}
// (the OU names from the root in that form, joined by "/"; empty segments
// it leaves are dropped), the Regions when --regions is not given, and the
// config's top-level keys (repository-id, tags, …), copied as they are.
type Template struct {
	Name, SourceRoot, SecretPrefix string
	Regions                        []string
	// Defaults is the mapping of top-level keys (nil when none).
	Defaults *yaml.Node
}

// DefaultTemplate is the template without --template: scope
// {account-name}-{region}, source root secrets/{account-name}/{region},
// prefix {account-name}.
func DefaultTemplate() Template {
	return Template{Name: "{account-name}-{region}", SourceRoot: "secrets/{account-name}/{region}", SecretPrefix: "{account-name}"}
}

// MaxTemplateBytes caps a template file.
const MaxTemplateBytes = 64 << 10

var placeholderRE = regexp.MustCompile(`\{[^{}]*\}`)

var placeholders = []string{"{account-name}", "{account-id}", "{region}", "{ou-path}"}

// ParseTemplate reads a template file: a YAML mapping of the keys name,
// source-root, secret-prefix, regions and defaults, each optional (the
// default template's value when left out). Anything else, an unknown
// placeholder, a brace left open, or a defaults key scopes is
// config:template.
func ParseTemplate(b []byte) (Template, error) {
	t := DefaultTemplate()
	bad := func(what string) (Template, error) {
		return Template{}, fail(diag.ConfigTemplate, "the scopes template %s", what)
	}
	if len(b) > MaxTemplateBytes {
		return bad("is larger than 64 KiB")
	}
	// Read as a node and walked by hand: yaml.v3's KnownFields also
	// applies inside a *yaml.Node field, so defaults could not be decoded
	// into a struct with unknown keys refused.
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return bad("is not YAML")
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return bad("holds more than one YAML document")
	}
	if len(doc.Content) == 0 {
		return t, nil // empty: the default template
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return bad("is not a YAML mapping of name, source-root, secret-prefix, regions and defaults")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return bad("gives a key twice")
		}
		seen[k.Value] = true
		switch k.Value {
		case "name", "source-root", "secret-prefix":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
				return bad("has a name, source-root or secret-prefix that is not a string")
			}
			*map[string]*string{"name": &t.Name, "source-root": &t.SourceRoot, "secret-prefix": &t.SecretPrefix}[k.Value] = v.Value
		case "regions":
			if v.Decode(&t.Regions) != nil {
				return bad("has regions that are not a list of Region codes")
			}
		case "defaults":
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return bad("defaults is not a mapping of config keys")
			}
			for j := 0; j < len(v.Content); j += 2 {
				if dk := v.Content[j]; dk.Kind != yaml.ScalarNode || dk.Value == "scopes" {
					return bad("defaults holds scopes, or a key that is not a string: the scopes are what is generated")
				}
			}
			t.Defaults = v
		default:
			return bad("has a key other than name, source-root, secret-prefix, regions and defaults")
		}
	}
	for _, v := range []string{t.Name, t.SourceRoot, t.SecretPrefix} {
		if v == "" {
			return bad("has an empty name, source-root or secret-prefix")
		}
		rest := placeholderRE.ReplaceAllStringFunc(v, func(p string) string {
			if slices.Contains(placeholders, p) {
				return ""
			}
			return "\x00"
		})
		if strings.ContainsAny(rest, "{}\x00") {
			return bad("uses a placeholder other than {account-name}, {account-id}, {region} and {ou-path}, or a brace left open")
		}
	}
	return t, nil
}
