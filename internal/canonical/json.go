package canonical

import (
	"bytes"
	"encoding/json"
	"io"
)

var (
	errJSONNotObject = rule(ClassNotObject,
		"the top-level JSON value is not an object",
		"make the document one JSON object ({...}) whose members are the secret's fields, then re-encrypt it with sops")
	errJSONDuplicate = rule(ClassDuplicateKey,
		"a member name appears twice in one JSON object",
		"remove or rename the repeated member in the source document, then re-encrypt it with sops")
	errJSONTrailing = rule(ClassMultiDocument,
		"the decrypted JSON holds more than one top-level value",
		"keep exactly one JSON object in the document, then re-encrypt it with sops")
	errBadEscape = rule(ClassNotUTF8,
		"a JSON string holds a \\u escape of an unpaired UTF-16 surrogate, which is not a Unicode character",
		nextReencrypt)
)

// frame is one open JSON container while validating.
type frame struct {
	object  bool
	keys    map[string]struct{}
	wantKey bool // object: the next string token is a member name
}

// validateJSON checks the JSON rules of SPEC §3.3 on already UTF-8-checked
// plaintext: exactly one value, an object, no duplicate member names at any
// depth, no trailing data, numbers that canonical JSON keeps, and no \u
// escapes of unpaired surrogates (which decoders silently turn into U+FFFD).
//
// Most documents are accepted by fastValidJSON's single pass; anything it
// does not accept outright is decided here by the decoder.
func validateJSON(plain []byte) *Error {
	if fastValidJSON(plain) {
		return nil
	}
	return decodeValidateJSON(plain)
}

// decodeValidateJSON is validateJSON with encoding/json's token decoder:
// the reference for every rule, and the one place an error is decided.
func decodeValidateJSON(plain []byte) *Error {
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.UseNumber()
	var stack []*frame
	first := true
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			if first {
				return errEmpty
			}
			return errJSONSyntax // unterminated
		}
		if err != nil {
			return errJSONSyntax
		}
		if first {
			if d, ok := tok.(json.Delim); !ok || d != '{' {
				return errJSONNotObject
			}
			first = false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		isKey := top != nil && top.object && top.wantKey
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, keys: map[string]struct{}{}, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			}
			if len(stack) > MaxDepth {
				return errTooDeep
			}
			switch t {
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return checkJSONEnd(dec)
				}
				stack[len(stack)-1].afterValue()
			}
			continue
		case string:
			if !escapesOK(plain[start:dec.InputOffset()]) {
				return errBadEscape
			}
			if isKey {
				if _, dup := top.keys[t]; dup {
					return errJSONDuplicate
				}
				top.keys[t] = struct{}{}
				top.wantKey = false
				continue
			}
		case json.Number:
			if e := jsonNumber(string(t)); e != nil {
				return e
			}
		}
		top.afterValue()
	}
}

func (f *frame) afterValue() {
	if f.object {
		f.wantKey = true
	}
}

// checkJSONEnd reports trailing data after the top-level object.
func checkJSONEnd(dec *json.Decoder) *Error {
	_, err := dec.Token()
	switch {
	case err == io.EOF:
		return nil
	case err == nil:
		return errJSONTrailing
	default:
		return errJSONSyntax
	}
}

// escapesOK scans the raw bytes of one string token (possibly preceded by
// separators and whitespace) and reports whether every \u escape of a UTF-16
// surrogate is a correctly ordered high/low pair.
func escapesOK(raw []byte) bool {
	i := bytes.IndexByte(raw, '"')
	if i < 0 {
		return true
	}
	pendingHigh := false
	for i++; i < len(raw); i++ {
		c := raw[i]
		if c == '"' {
			break
		}
		if c != '\\' {
			if pendingHigh {
				return false
			}
			continue
		}
		i++
		if i >= len(raw) {
			return false
		}
		if raw[i] != 'u' {
			if pendingHigh {
				return false
			}
			continue
		}
		if i+4 >= len(raw) {
			return false
		}
		v := hex4(raw[i+1 : i+5])
		i += 4
		switch {
		case v >= 0xD800 && v <= 0xDBFF:
			if pendingHigh {
				return false
			}
			pendingHigh = true
		case v >= 0xDC00 && v <= 0xDFFF:
			if !pendingHigh {
				return false
			}
			pendingHigh = false
		default:
			if pendingHigh {
				return false
			}
		}
	}
	return !pendingHigh
}

func hex4(b []byte) int {
	v := 0
	for _, c := range b {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		case c >= 'a' && c <= 'f':
			v |= int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v |= int(c-'A') + 10
		default:
			return -1
		}
	}
	return v
}
