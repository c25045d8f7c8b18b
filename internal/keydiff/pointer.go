package keydiff

import "strings"

// Escape returns one object member name as an RFC 6901 reference token:
// "~" becomes "~0", then "/" becomes "~1" (RFC 6901 §3).
func Escape(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// Unescape reverses Escape for one reference token (RFC 6901 §4: "~1" then
// "~0"). ok is false for a "~" not followed by "0" or "1".
func Unescape(token string) (name string, ok bool) {
	if !strings.Contains(token, "~") {
		return token, true
	}
	for i := 0; i < len(token); i++ {
		if token[i] == '~' && (i+1 == len(token) || token[i+1] != '0' && token[i+1] != '1') {
			return "", false
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~"), true
}

// Pointer joins member names into an RFC 6901 JSON Pointer: "" for none,
// else "/" + escaped name for each.
func Pointer(names ...string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteByte('/')
		b.WriteString(Escape(n))
	}
	return b.String()
}

// ValidPointer reports whether p is a syntactically valid, non-root RFC 6901
// pointer: it starts with "/" and every "~" is followed by "0" or "1".
func ValidPointer(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	for _, tok := range strings.Split(p[1:], "/") {
		if _, ok := Unescape(tok); !ok {
			return false
		}
	}
	return true
}
