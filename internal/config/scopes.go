package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sops-aws-sync/sops-aws-sync/internal/model"
)

// Several scopes in one run (SPEC §10). The config file's scopes: is a list
// of scope entries; each has a name and may set the per-scope settings
// (Setting.PerScope); the top-level settings are every scope's defaults.

// ScopesKey is the config-file key of the scope list. It is no setting: it
// has no flag and no environment variable.
const ScopesKey = "scopes"

// ScopeNameKey is the key of a scope entry that names the scope.
const ScopeNameKey = "name"

// tagsKey is accepted in the config file (top level and scope entries) as
// another spelling of the tag setting's key: SPEC §10's example writes
// tags: {team: payments}. Giving both is a key given twice.
const tagsKey = "tags"

// settingKey maps a config-file key to its setting name.
func settingKey(k string) string {
	if k == tagsKey {
		return Tag
	}
	return k
}

// scopeEntry is one entry of scopes: as the file holds it.
type scopeEntry struct {
	name string
	// usable: the name follows the rule and no earlier entry has it; only
	// such an entry becomes a Scope.
	usable bool
	// label begins the name of every problem of the entry: scopes.<name>
	// once the name is usable, else scopes[<index>] (0-based).
	label  string
	values map[string]string // raw values by setting name, type-checked
}

// parseScopes reads the value of scopes:. Problems name the entry by
// scopes.<name> or, without a usable name, by its 0-based index; they never
// quote a value.
func parseScopes(v *yaml.Node) ([]scopeEntry, []Problem) {
	if v.Kind != yaml.SequenceNode {
		return nil, []Problem{{ClassWrongType, ScopesKey, SourceFile, "must be a YAML list of scope entries (mappings of name and per-scope settings)"}}
	}
	if len(v.Content) == 0 {
		return nil, []Problem{{ClassInvalidValue, ScopesKey, SourceFile, "must list at least one scope (or drop scopes: for one scope from the top-level settings)"}}
	}
	var (
		out   []scopeEntry
		probs []Problem
		names = map[string]bool{}
	)
	for i, item := range v.Content {
		e := scopeEntry{label: fmt.Sprintf("%s[%d]", ScopesKey, i), values: map[string]string{}}
		if item.Kind != yaml.MappingNode {
			probs = append(probs, Problem{ClassWrongType, e.label, SourceFile, "must be a YAML mapping of name and per-scope settings"})
			continue
		}
		// The name first, so that every other problem of the entry can
		// name the scope.
		var named bool
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, val := item.Content[j], item.Content[j+1]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" || k.Value != ScopeNameKey {
				continue
			}
			if named {
				probs = append(probs, Problem{ClassInvalidValue, e.label + "." + ScopeNameKey, SourceFile, "is given more than once"})
				e.usable = false
				continue
			}
			named = true
			switch {
			case val.Kind != yaml.ScalarNode || val.Tag != "!!str":
				probs = append(probs, Problem{ClassWrongType, e.label + "." + ScopeNameKey, SourceFile, "must be a YAML string"})
			case model.ValidateScopeName(val.Value) != nil:
				probs = append(probs, Problem{ClassInvalidValue, e.label + "." + ScopeNameKey, SourceFile, model.ErrScopeName.Error()})
			case names[val.Value]:
				probs = append(probs, Problem{ClassInvalidValue, e.label + "." + ScopeNameKey, SourceFile, "names the same scope as an earlier entry; scope names are unique"})
			default:
				e.name, e.usable = val.Value, true
				names[val.Value] = true
			}
		}
		if !named {
			probs = append(probs, Problem{ClassRequired, e.label + "." + ScopeNameKey, SourceFile, "is required: every scope entry has a name (" + model.ErrScopeName.Error() + ")"})
		}
		if e.usable {
			e.label = ScopesKey + "." + e.name
		}
		seen := map[string]bool{}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, val := item.Content[j], item.Content[j+1]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
				probs = append(probs, Problem{ClassUnknownKey, fmt.Sprintf("at line %d", k.Line), SourceFile, "keys must be setting names"})
				continue
			}
			if k.Value == ScopeNameKey {
				continue
			}
			key := settingKey(k.Value)
			s, known := Lookup(key)
			switch {
			case !validKeyText(key):
				probs = append(probs, Problem{ClassUnknownKey, fmt.Sprintf("at line %d", k.Line), SourceFile, "is not a sops-aws-sync setting"})
			case !known:
				probs = append(probs, Problem{ClassUnknownKey, e.label + "." + key, SourceFile, unknownReason(key, true)})
			case seen[key]:
				probs = append(probs, Problem{ClassInvalidValue, e.label + "." + key, SourceFile, "is given more than once"})
			case !s.PerScope:
				probs = append(probs, Problem{ClassNotPerScope, e.label + "." + key, SourceFile, ""})
			default:
				seen[key] = true
				raw, ok := scalarFor(s.Kind, val)
				if !ok {
					probs = append(probs, Problem{ClassWrongType, e.label + "." + key, SourceFile, "must be a YAML " + expectedYAML(s)})
					continue
				}
				e.values[key] = raw
			}
		}
		out = append(out, e)
	}
	return out, probs
}

// ambiguous refuses every per-scope setting given as a flag or an
// environment variable while the file lists scopes: it would apply to
// every scope, and whether the operator meant that or one scope is a guess
// (SPEC §10). The value is dropped (the default, if any, stays), so that
// nothing else is reported about it.
func ambiguous(vals map[string]raw) []Problem {
	var probs []Problem
	for _, s := range Settings {
		r, ok := vals[s.Name]
		if !s.PerScope || !ok || (r.source != SourceFlag && r.source != SourceEnv) {
			continue
		}
		probs = append(probs, Problem{ClassScopeAmbiguous, settingLabel(s.Name, r.source), r.source, ""})
		if s.Default != "" {
			vals[s.Name] = raw{s.Default, SourceDefault}
		} else {
			delete(vals, s.Name)
		}
	}
	return probs
}

// oneOff is the one-off override of a run: the scope --scope NAME selects
// (exactly one name) and the per-scope settings given as a flag or an
// environment variable beside the config file's scopes:, by setting name.
// The zero value overrides nothing.
type oneOff struct {
	scope  string
	values map[string]raw
	// rejected: overrides whose value broke its rule when the top-level
	// settings were bound; reported once there and not bound again.
	rejected map[string]bool
}

// resolveScopes builds one Scope per usable entry, in file order: the
// run's Desired, Engine and AWS of o, then every per-scope setting bound
// again, in declaration order, with the one-off override (for the scope it
// selects), else the entry's value, else the top-level one (vals, the
// top-level raw values as the file and the defaults give them). Binding them
// again lets a rule that reads an earlier setting (replica-regions checks
// the Region) see the scope's value, an override's included. A top-level
// value that broke its rule (rejected) was reported once and is not bound
// again. A problem of an override names its flag or variable.
func resolveScopes(o Options, entries []scopeEntry, vals map[string]raw, rejected map[string]bool, over oneOff) ([]Scope, []Problem) {
	var (
		out   []Scope
		probs []Problem
	)
	for _, e := range entries {
		sc := Options{Desired: o.Desired, Engine: o.Engine, AWS: o.AWS}
		sc.Engine.Metadata.Tags = maps.Clone(o.Engine.Metadata.Tags)
		selected := e.usable && e.name == over.scope
		var overrides map[string]Source
		for _, s := range Settings {
			if !s.PerScope {
				continue
			}
			label, src := e.label+"."+s.Name, SourceFile
			v, own := e.values[s.Name]
			top, inherited := vals[s.Name]
			r, overridden := over.values[s.Name]
			switch {
			case selected && overridden && over.rejected[s.Name]:
				continue
			case selected && overridden:
				v, label, src = r.value, settingLabel(s.Name, r.source), r.source
				if overrides == nil {
					overrides = map[string]Source{}
				}
				overrides[s.Name] = r.source
			case own:
			case inherited && !rejected[s.Name]:
				v = top.value
			case s.Required && !inherited:
				probs = append(probs, Problem{ClassRequired, e.label + "." + s.Name, SourceFile,
					"is required; give " + s.Name + " in this scope entry or at the top level of the config file"})
				continue
			default:
				continue
			}
			if p, ok := s.set(&sc, v); !ok {
				p.Setting, p.Source = label, src
				probs = append(probs, p)
			}
		}
		if e.usable {
			out = append(out, Scope{Name: e.name, Desired: sc.Desired, Engine: sc.Engine, AWS: sc.AWS, Listed: true, Overrides: overrides})
		}
	}
	return out, probs
}

// selectScopes keeps the scopes --scope names, in configuration order. A
// name of no scope is config:invalid-value (exit 3): a subset that silently
// ran fewer scopes than asked would hide a typo.
func selectScopes(scopes []Scope, names []string, src Source) ([]Scope, []Problem) {
	var probs []Problem
	for _, n := range names {
		if !slices.ContainsFunc(scopes, func(s Scope) bool { return s.Name == n }) {
			probs = append(probs, Problem{ClassInvalidValue, ScopeFilter, src,
				"names a scope the configuration does not hold (the names of its scopes: entries; without scopes:, the one scope is " + model.DefaultScopeName + ")"})
			break
		}
	}
	return slices.DeleteFunc(slices.Clone(scopes), func(s Scope) bool { return !slices.Contains(names, s.Name) }), probs
}

// oneScope returns the scope --scope selects when it names exactly one
// (its raw value holds no comma), else "". Only then may a per-scope flag
// or variable be given beside scopes: (it is a one-off override of that
// scope, applyOverrides).
func oneScope(filter string) string {
	if filter == "" || strings.Contains(filter, ",") {
		return ""
	}
	return strings.TrimSpace(filter)
}

// splitOverrides separates the per-scope settings given as a flag or an
// environment variable (overrides) from vals, and returns vals as the file
// and the defaults alone give them (base): the file's top-level value, else
// the default, else none.
func splitOverrides(vals map[string]raw, file map[string]string) (overrides, base map[string]raw) {
	overrides, base = map[string]raw{}, maps.Clone(vals)
	for _, s := range Settings {
		r, ok := vals[s.Name]
		if !s.PerScope || !ok || (r.source != SourceFlag && r.source != SourceEnv) {
			continue
		}
		overrides[s.Name] = r
		switch v, inFile := file[s.Name]; {
		case inFile:
			base[s.Name] = raw{v, SourceFile}
		case s.Default != "":
			base[s.Name] = raw{s.Default, SourceDefault}
		default:
			delete(base, s.Name)
		}
	}
	return overrides, base
}
