package schemas

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Drift lists where the schema file (a name of Files' values) and the Go
// type t the tool writes it from disagree; empty when they agree. Each
// object the schema reaches (through local $refs "#/$defs/NAME") is
// checked against the struct at that place: its type is "object", it is
// closed (additionalProperties false), its properties are exactly the
// struct's JSON keys (exported fields with a json tag; the keys in omit,
// spelled "GoTypeName.key", are left out on both sides: a key the Go type
// has that the file's schema never holds, as report v1's counts have no
// adopt), and its required keys are exactly those without omitempty.
// Slices are arrays of their element, strings, integers and booleans are
// their JSON types, and a string type listed in enums has a schema enum
// (or const) of values from its list only. Drift is for tests (it is the
// check that the schemas cannot drift from the structs); it never reads
// a document.
func Drift(file string, t reflect.Type, omit map[string]bool, enums map[reflect.Type][]string) []string {
	raw, err := Raw(file)
	if err != nil {
		return []string{err.Error()}
	}
	root, ok := raw.(map[string]any)
	if !ok {
		return []string{file + ": not a JSON object"}
	}
	d := drift{root: root, omit: omit, enums: enums}
	d.walk(root, t, "#")
	return d.problems
}

type drift struct {
	root     map[string]any
	omit     map[string]bool
	enums    map[reflect.Type][]string
	problems []string
}

func (d *drift) fail(at, format string, a ...any) {
	d.problems = append(d.problems, at+": "+fmt.Sprintf(format, a...))
}

// resolve follows a local $ref.
func (d *drift) resolve(node map[string]any, at string) (map[string]any, bool) {
	for range 8 {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node, true
		}
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := d.root["$defs"].(map[string]any)
		next, found := defs[name].(map[string]any)
		if !ok || !found {
			d.fail(at, "$ref %q names no definition", ref)
			return nil, false
		}
		node = next
	}
	d.fail(at, "$ref chain too long")
	return nil, false
}

func (d *drift) walk(node map[string]any, t reflect.Type, at string) {
	node, ok := d.resolve(node, at)
	if !ok {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		d.object(node, t, at)
	case reflect.Slice:
		if node["type"] != "array" {
			d.fail(at, "Go %s is a slice, the schema's type is %v", t, node["type"])
			return
		}
		items, ok := node["items"].(map[string]any)
		if !ok {
			d.fail(at, "an array without items")
			return
		}
		d.walk(items, t.Elem(), at+"/items")
	case reflect.String:
		d.scalar(node, t, at, "string")
	case reflect.Int, reflect.Int64:
		d.scalar(node, t, at, "integer")
	case reflect.Bool:
		d.scalar(node, t, at, "boolean")
	default:
		d.fail(at, "Go %s: a kind the schemas do not use", t)
	}
}

func (d *drift) scalar(node map[string]any, t reflect.Type, at, jsonType string) {
	values, hasEnum := node["enum"].([]any)
	if c, ok := node["const"]; ok {
		values, hasEnum = []any{c}, true
	}
	if !hasEnum && node["type"] != jsonType {
		d.fail(at, "Go %s is a JSON %s, the schema's type is %v", t, jsonType, node["type"])
	}
	known, listed := d.enums[t]
	if listed && !hasEnum {
		d.fail(at, "Go %s is an enumeration, the schema has no enum", t)
	}
	for _, v := range values {
		s, isString := v.(string)
		if jsonType == "string" && !isString {
			d.fail(at, "enum value %v is not a string", v)
		}
		if listed && !slices.Contains(known, s) {
			d.fail(at, "enum value %q is not one of Go %s's", s, t)
		}
	}
}

func (d *drift) object(node map[string]any, t reflect.Type, at string) {
	if node["type"] != "object" {
		d.fail(at, "Go %s is a struct, the schema's type is %v", t, node["type"])
		return
	}
	if node["additionalProperties"] != false {
		d.fail(at, "Go %s is closed, the schema's object is not (additionalProperties false)", t)
	}
	props, _ := node["properties"].(map[string]any)
	var want, required []string
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" || d.omit[t.Name()+"."+name] {
			continue
		}
		want = append(want, name)
		fields[name] = f.Type
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	var got []string
	for k := range props {
		if !d.omit[t.Name()+"."+k] {
			got = append(got, k)
		}
	}
	var gotRequired []string
	if rs, ok := node["required"].([]any); ok {
		for _, r := range rs {
			s, _ := r.(string)
			gotRequired = append(gotRequired, s)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	sort.Strings(required)
	sort.Strings(gotRequired)
	if !slices.Equal(want, got) {
		d.fail(at, "Go %s's keys are %q, the schema's properties %q", t, want, got)
	}
	if !slices.Equal(required, gotRequired) {
		d.fail(at, "Go %s always writes %q, the schema requires %q", t, required, gotRequired)
	}
	for _, name := range want {
		if p, ok := props[name].(map[string]any); ok {
			d.walk(p, fields[name], at+"/properties/"+name)
		}
	}
}
