package wirefile

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"
)

// DecodeError is data that is not a strict encoding of a wire file. Reason
// is a fixed sentence of this package; it may name a key of the schema,
// never a key or value of the data.
type DecodeError struct {
	Reason string
}

func (e *DecodeError) Error() string { return e.Reason }

// maxDepth bounds the nesting Check follows: a wire file nests four levels
// deep; a hostile file of nested brackets must not exhaust the stack.
const maxDepth = 32

// Check reports whether data is strict JSON of one object, without a
// schema: valid UTF-8, one JSON object and nothing after it, no key twice in
// any object, no null anywhere. A caller that must look at one member
// before the whole schema (a schema_version, say) calls Check, reads it
// from a map[string]json.RawMessage (then unambiguous), and then Decode.
// Failures are *DecodeError.
func Check(data []byte) error { return walk(data, nil) }

// Decode decodes data into v (a non-nil pointer to a struct) strictly: Check,
// and every object key spelled exactly as a JSON name of the Go type at
// that place (encoding/json alone would take "Status" or "STATUS" for
// "status", keep the last of two equal keys and replace invalid UTF-8), and
// every field without omitempty present. Failures are *DecodeError.
func Decode(data []byte, v any) error {
	t := reflect.TypeOf(v)
	if t == nil || t.Kind() != reflect.Pointer {
		return &DecodeError{"internal: Decode needs a pointer"}
	}
	if err := walk(data, t.Elem()); err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &DecodeError{"a value has the wrong JSON type"}
	}
	return nil
}

type walker struct {
	dec   *json.Decoder
	depth int
}

func walk(data []byte, t reflect.Type) error {
	if !utf8.Valid(data) {
		return &DecodeError{"the file is not valid UTF-8"}
	}
	w := &walker{dec: json.NewDecoder(bytes.NewReader(data))}
	w.dec.UseNumber()
	tok, err := w.dec.Token()
	if err != nil || tok != json.Delim('{') {
		return &DecodeError{"the file is not a JSON object"}
	}
	if err := w.object(t); err != nil {
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return &DecodeError{"trailing data after the JSON object"}
	}
	return nil
}

var errSyntax = &DecodeError{"the file is not valid JSON"}

// value walks one value whose first token is tok; t is the Go type at that
// place (nil: no schema).
func (w *walker) value(tok json.Token, t reflect.Type) error {
	switch tok {
	case nil:
		return &DecodeError{"a value is null"}
	case json.Delim('{'):
		return w.object(t)
	case json.Delim('['):
		return w.array(t)
	}
	return nil
}

func (w *walker) next() (json.Token, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, errSyntax
	}
	return tok, nil
}

func (w *walker) array(t reflect.Type) error {
	if w.depth++; w.depth > maxDepth {
		return &DecodeError{"the file is nested too deeply"}
	}
	defer func() { w.depth-- }()
	t = elemOf(t)
	for w.dec.More() {
		tok, err := w.next()
		if err != nil {
			return err
		}
		if err := w.value(tok, t); err != nil {
			return err
		}
	}
	_, err := w.next()
	return err
}

func (w *walker) object(t reflect.Type) error {
	if w.depth++; w.depth > maxDepth {
		return &DecodeError{"the file is nested too deeply"}
	}
	defer func() { w.depth-- }()
	t = deref(t)
	var fields []field
	if isSchema(t) {
		fields = fieldsOf(t)
	}
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.next()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return errSyntax
		}
		if seen[key] {
			return &DecodeError{"a key appears twice in one object"}
		}
		seen[key] = true
		var vt reflect.Type
		switch {
		case fields != nil:
			f, err := lookup(fields, key)
			if err != nil {
				return err
			}
			vt = f.typ
		case t != nil && t.Kind() == reflect.Map:
			vt = t.Elem()
		}
		if tok, err = w.next(); err != nil {
			return err
		}
		if err := w.value(tok, vt); err != nil {
			return err
		}
	}
	if _, err := w.next(); err != nil {
		return err
	}
	for _, f := range fields {
		if f.required && !seen[f.name] {
			return &DecodeError{"missing key " + f.name}
		}
	}
	return nil
}

// field is one JSON member of a struct type.
type field struct {
	name     string
	typ      reflect.Type
	required bool // no omitempty
}

func lookup(fields []field, key string) (field, error) {
	for _, f := range fields {
		if f.name == key {
			return f, nil
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, key) {
			return field{}, &DecodeError{"a key differs from the schema's " + f.name + " only in letter case"}
		}
	}
	return field{}, &DecodeError{"a key is not in the schema"}
}

func fieldsOf(t reflect.Type) []field {
	out := []field{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		// As encoding/json: "-" alone skips the field; "-," (a comma, with or
		// without options) names the key "-".
		name, opts, hasOpts := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && !hasOpts {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, field{name: name, typ: sf.Type, required: !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero")})
	}
	return out
}

func hasOpt(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

var unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// isSchema: a struct decoded field by field (not by its own UnmarshalJSON).
func isSchema(t reflect.Type) bool {
	return t != nil && t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(unmarshaler)
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func elemOf(t reflect.Type) reflect.Type {
	t = deref(t)
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return t.Elem()
	}
	return nil
}
