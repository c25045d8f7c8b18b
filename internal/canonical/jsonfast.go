package canonical

// fastValidJSON reports whether plain is a document that validateJSON's
// decoder would accept, checked in one pass over the bytes without the
// decoder's per-token allocations: one top-level object, nesting within
// MaxDepth, no duplicate member names, numbers accepted by jsonNumber, and
// nothing after the object but whitespace. It is conservative: it answers
// false for anything it does not fully check itself (any \u escape, an
// escaped member name, a number jsonNumber refuses, any syntax error), and
// the caller then runs the decoder, which gives the precise error or
// accepts. So true implies validateJSON's decoder returns nil
// (FuzzFastValidJSONImpliesDecoder), and no error is ever decided here.
//
// plain must already be valid UTF-8 (checkText).
func fastValidJSON(plain []byte) bool {
	s := fastScanner{b: plain}
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	if !s.value(0) {
		return false
	}
	s.ws()
	return s.i == len(s.b)
}

type fastScanner struct {
	b []byte
	i int
}

func (s *fastScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value at nesting depth (0 outside any container).
func (s *fastScanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, ok := s.str(false)
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.lit("true")
	case c == 'f':
		return s.lit("false")
	case c == 'n':
		return s.lit("null")
	}
	return false
}

func (s *fastScanner) lit(w string) bool {
	if len(s.b)-s.i < len(w) || string(s.b[s.i:s.i+len(w)]) != w {
		return false
	}
	s.i += len(w)
	return true
}

func (s *fastScanner) object(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	s.i++ // '{'
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	// Member names seen so far: a short list compared in place (the usual
	// secret has a handful of fields), a map past it.
	var few [8][]byte
	n := 0
	var many map[string]struct{}
	for {
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return false
		}
		key, ok := s.str(true)
		if !ok {
			return false
		}
		switch {
		case many != nil:
			if _, dup := many[string(key)]; dup {
				return false
			}
			many[string(key)] = struct{}{}
		case n < len(few):
			for _, k := range few[:n] {
				if string(k) == string(key) {
					return false
				}
			}
			few[n] = key
			n++
		default:
			many = make(map[string]struct{}, 2*len(few))
			for _, k := range few {
				many[string(k)] = struct{}{}
			}
			if _, dup := many[string(key)]; dup {
				return false
			}
			many[string(key)] = struct{}{}
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.ws()
		if !s.value(depth) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *fastScanner) array(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth) {
			return false
		}
		s.ws()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.ws()
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str scans a string literal at s.i and returns its raw content. A member
// name (key) must hold no escape at all (its decoded form would differ from
// its bytes); a value may hold the one-character escapes, not \u.
func (s *fastScanner) str(key bool) ([]byte, bool) {
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], true
		case c < 0x20:
			return nil, false
		case c == '\\':
			if key || j+1 >= len(s.b) {
				return nil, false
			}
			switch s.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			default:
				return nil, false
			}
		}
	}
	return nil, false
}

// number scans a JSON number (RFC 8259 §6 grammar) and applies jsonNumber.
func (s *fastScanner) number() bool {
	start := s.i
	j := s.i
	if s.b[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
			j++
		}
		return j - k
	}
	switch {
	case j < len(s.b) && s.b[j] == '0':
		j++
	case digits() == 0:
		return false
	}
	if j < len(s.b) && s.b[j] == '.' {
		j++
		if digits() == 0 {
			return false
		}
	}
	if j < len(s.b) && (s.b[j] == 'e' || s.b[j] == 'E') {
		j++
		if j < len(s.b) && (s.b[j] == '+' || s.b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return false
		}
	}
	if jsonNumber(string(s.b[start:j])) != nil {
		return false
	}
	s.i = j
	return true
}
