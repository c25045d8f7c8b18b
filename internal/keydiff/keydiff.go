package keydiff

import (
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/sops-aws-sync/sops-aws-sync/internal/vocab"
)

// Path is one leaf path of a change summary.
type Path struct {
	// Pointer is the RFC 6901 JSON Pointer of the leaf ("/db/password").
	Pointer string
	// InDesired is true when Pointer names an object member of the desired
	// document, so a view may show it with names shown; false when it
	// exists only in the observed AWS value (added out of band), which a
	// view counts but never names, whatever the setting.
	InDesired bool
}

// Summary is the key-level change summary of one create or update: what
// writing the desired value over the observed one adds, removes and
// changes. It holds pointers only, never a value.
type Summary struct {
	// Unavailable is set when the observed value is not a JSON object
	// (vocab.KeysStoredValue*); the path lists are then empty.
	Unavailable vocab.KeysUnavailable
	// Added: leaves of desired that observed lacks. Removed: leaves of
	// observed that desired lacks. Changed: leaves of both with different
	// values. Each list is sorted by Pointer, byte order.
	Added, Removed, Changed []Path
}

// Comparable reports whether the observed value was a JSON object, so the
// path lists are meaningful.
func (s Summary) Comparable() bool { return s.Unavailable == "" }

// Counts returns the lengths of Added, Removed and Changed.
func (s Summary) Counts() (added, removed, changed int) {
	return len(s.Added), len(s.Removed), len(s.Changed)
}

// ErrDesiredNotObject is returned when the desired value is not one JSON
// object: a caller bug, since internal/canonical only produces objects.
var ErrDesiredNotObject = errors.New("keydiff: the desired value is not a JSON object")

// Diff compares the canonical desired value (RFC 8785 JSON, as produced by
// internal/canonical; any JSON object is accepted) with the observed
// current SecretString. An observed value that is not valid UTF-8 JSON
// (or holds a number outside the IEEE-754 double range, which RFC 8785
// cannot represent) gives Unavailable = vocab.KeysStoredValueNotJSON, one
// that is JSON but
// not an object vocab.KeysStoredValueNotObject; neither is an error. The
// only error is ErrDesiredNotObject.
func Diff(desired, observed []byte) (Summary, error) {
	d, err := desiredLeaves(desired)
	if err != nil {
		return Summary{}, err
	}
	root, ok := decode(observed)
	if !ok {
		return Summary{Unavailable: vocab.KeysStoredValueNotJSON}, nil
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return Summary{Unavailable: vocab.KeysStoredValueNotObject}, nil
	}
	o := make(map[string]any, len(d.leaves))
	flatten("", obj, o, nil)
	return compare(d, o), nil
}

// Create is the summary of writing desired where no value exists (a create,
// or an update of a secret with no current version): every leaf added.
func Create(desired []byte) (Summary, error) {
	d, err := desiredLeaves(desired)
	if err != nil {
		return Summary{}, err
	}
	return compare(d, nil), nil
}

// Binary is the summary of an update over a stored SecretBinary: no paths.
func Binary() Summary { return Summary{Unavailable: vocab.KeysStoredValueBinary} }

type flat struct {
	leaves  map[string]any
	objects map[string]struct{} // pointers of objects with members
}

func desiredLeaves(desired []byte) (flat, error) {
	root, ok := decode(desired)
	obj, isObj := root.(map[string]any)
	if !ok || !isObj {
		return flat{}, ErrDesiredNotObject
	}
	f := flat{leaves: map[string]any{}, objects: map[string]struct{}{}}
	flatten("", obj, f.leaves, f.objects)
	return f, nil
}

// decode parses exactly one JSON value of valid UTF-8 (json.Unmarshal
// rejects trailing data). Numbers become float64: RFC 8785 compares
// numbers as IEEE-754 doubles too.
func decode(b []byte) (any, bool) {
	if !utf8.Valid(b) {
		return nil, false
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, false
	}
	return v, true
}

// flatten records every leaf under m, keyed by pointer; objects, when not
// nil, receives the pointer of every object with members.
func flatten(prefix string, m map[string]any, leaves map[string]any, objects map[string]struct{}) {
	for k, v := range m {
		p := prefix + "/" + Escape(k)
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			if objects != nil {
				objects[p] = struct{}{}
			}
			flatten(p, sub, leaves, objects)
			continue
		}
		leaves[p] = v
	}
}

func compare(d flat, o map[string]any) Summary {
	var s Summary
	for p, dv := range d.leaves {
		ov, ok := o[p]
		switch {
		case !ok:
			s.Added = append(s.Added, Path{p, true})
		case !equal(dv, ov):
			s.Changed = append(s.Changed, Path{p, true})
		}
	}
	for p := range o {
		if _, ok := d.leaves[p]; ok {
			continue
		}
		_, interior := d.objects[p]
		s.Removed = append(s.Removed, Path{p, interior})
	}
	for _, l := range [][]Path{s.Added, s.Removed, s.Changed} {
		slices.SortFunc(l, func(a, b Path) int { return cmp.Compare(a.Pointer, b.Pointer) })
	}
	return s
}

// equal compares two decoded JSON values the way RFC 8785 canonical forms
// would: numbers as IEEE-754 doubles, strings by decoded text, objects by
// members regardless of order, arrays element by element.
func equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}
