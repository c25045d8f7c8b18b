package keydiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// Keys owned by AWS (SPEC §13): members of a JSON secret whose value AWS
// (a rotation function, or a value generated once at create) decides, while
// Git decides every other member. The functions below are pure: bytes and
// pointers in, bytes out.

// ErrOwnedMissing: a key owned by AWS is not in the live value (the live
// value is not a JSON object, or lacks the member): the tool does not know
// its value (conflict aws-owned-missing).
var ErrOwnedMissing = errors.New("keydiff: a key owned by AWS is missing from the live value")

// ErrNoPlace: a key owned by AWS cannot be placed in the desired value: a
// parent on its pointer is a member of the document that is not an object
// (an array or a scalar), or the pointer is not a valid RFC 6901 pointer.
var ErrNoPlace = errors.New("keydiff: a key owned by AWS has no place in the desired value (a parent is not an object)")

// Merge returns the desired value (a JSON object) with each member named
// by a pointer of owned set to that member's value in live: replaced where
// the document has it, added (with any missing parent objects) where it
// does not. Every other member is the document's. The pointer "" means the
// whole value: live is returned unchanged (byte for byte).
//
// The result is JSON text with members in Go's sorted order, not RFC 8785
// canonical form: the caller canonicalizes (internal/canonical). Errors:
// ErrDesiredNotObject, ErrOwnedMissing (live not a JSON object or lacks a
// listed member), ErrNoPlace.
func Merge(desired, live []byte, owned []string) ([]byte, error) {
	for _, p := range owned {
		if p == "" {
			return bytes.Clone(live), nil
		}
	}
	doc, err := decodeObject(desired)
	if err != nil {
		return nil, ErrDesiredNotObject
	}
	src, err := decodeObject(live)
	if err != nil {
		return nil, ErrOwnedMissing
	}
	for _, p := range owned {
		v, ok := lookup(src, p)
		if !ok {
			return nil, ErrOwnedMissing
		}
		if !place(doc, p, v) {
			return nil, ErrNoPlace
		}
	}
	return encode(doc)
}

// Lacking returns, in the order of owned, the pointers of owned that the
// desired object does not hold; ErrNoPlace when one of them could not be
// added (a parent that is not an object). The pointer "" is never lacking
// (the document is the whole value).
func Lacking(desired []byte, owned []string) ([]string, error) {
	doc, err := decodeObject(desired)
	if err != nil {
		return nil, ErrDesiredNotObject
	}
	var out []string
	for _, p := range owned {
		if p == "" {
			continue
		}
		if _, ok := lookup(doc, p); ok {
			continue
		}
		if !place(doc, p, "") {
			return nil, ErrNoPlace
		}
		out = append(out, p)
	}
	return out, nil
}

// Fill returns the desired object with each pointer of lacking (from
// Lacking) set to the string value gives for it. Errors as for Merge.
func Fill(desired []byte, lacking []string, value func(pointer string) string) ([]byte, error) {
	doc, err := decodeObject(desired)
	if err != nil {
		return nil, ErrDesiredNotObject
	}
	for _, p := range lacking {
		if !place(doc, p, value(p)) {
			return nil, ErrNoPlace
		}
	}
	return encode(doc)
}

// decodeObject parses one JSON object of valid UTF-8, keeping numbers as
// their text (json.Number), so a member copied from live keeps its spelling
// until the caller canonicalizes.
func decodeObject(b []byte) (map[string]any, error) {
	if !utf8.Valid(b) {
		return nil, ErrOwnedMissing
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, ErrOwnedMissing
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, ErrOwnedMissing
	}
	return m, nil
}

// tokens splits a non-root pointer into unescaped member names; ok is
// false for an invalid pointer.
func tokens(p string) ([]string, bool) {
	if !ValidPointer(p) {
		return nil, false
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i], _ = Unescape(t)
	}
	return toks, true
}

// lookup returns the member p names in m, through objects only.
func lookup(m map[string]any, p string) (any, bool) {
	toks, ok := tokens(p)
	if !ok {
		return nil, false
	}
	var node any = m
	for _, t := range toks {
		obj, isObj := node.(map[string]any)
		if !isObj {
			return nil, false
		}
		if node, ok = obj[t]; !ok {
			return nil, false
		}
	}
	return node, true
}

// place sets the member p names in m to v, creating missing parent
// objects; false when a parent exists and is not an object.
func place(m map[string]any, p string, v any) bool {
	toks, ok := tokens(p)
	if !ok {
		return false
	}
	obj := m
	for _, t := range toks[:len(toks)-1] {
		next, ok := obj[t]
		if !ok {
			n := map[string]any{}
			obj[t] = n
			obj = n
			continue
		}
		if obj, ok = next.(map[string]any); !ok {
			return false
		}
	}
	obj[toks[len(toks)-1]] = v
	return true
}

func encode(doc map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Without returns s with every path an owned pointer names, or lies
// under, dropped from Added, Removed and Changed: keys owned by AWS are
// counted as kept, never as a change (SPEC §13: "the adopt line never
// counts a listed key as removed"). The pointer "" (the whole value)
// drops every path. Unavailable is kept, the lists stay sorted, s is not
// modified.
func (s Summary) Without(owned []string) Summary {
	if len(owned) == 0 {
		return s
	}
	keep := func(p Path) bool {
		for _, o := range owned {
			if o == "" || p.Pointer == o || strings.HasPrefix(p.Pointer, o+"/") {
				return false
			}
		}
		return true
	}
	filter := func(l []Path) []Path {
		var out []Path
		for _, p := range l {
			if keep(p) {
				out = append(out, p)
			}
		}
		return out
	}
	return Summary{Unavailable: s.Unavailable, Added: filter(s.Added), Removed: filter(s.Removed), Changed: filter(s.Changed)}
}
