package openai

// A strict JSON scanner for the fast chunk parser: it accepts exactly what
// encoding/json accepts, and gives up (returns false) on escapes it does
// not decode itself.

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) lit(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// object reads an object, calling member with each key and s at the value;
// member must read the value.
func (s *scanner) object(depth int, member func(key []byte) bool) bool {
	if depth > fastMaxDepth || s.peek() != '{' {
		return false
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		key, ok := s.str()
		if !ok || s.peek() != ':' {
			return false
		}
		s.i++
		if !member(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// skip reads any value.
func (s *scanner) skip(depth int) bool {
	switch s.peek() {
	case '"':
		return s.skipStr()
	case '{':
		return s.object(depth+1, func([]byte) bool { return s.skip(depth + 1) })
	case '[':
		return s.array(depth + 1)
	case 't':
		return s.lit("true")
	case 'f':
		return s.lit("false")
	case 'n':
		return s.lit("null")
	}
	_, ok := s.number()
	return ok
}

func (s *scanner) array(depth int) bool {
	if depth > fastMaxDepth {
		return false
	}
	s.i++ // '['
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !s.skip(depth) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// number reads a JSON number and says whether it is a plain integer.
func (s *scanner) number() (isInt, ok bool) {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return false, false
	}
	isInt = true
	if i < len(b) && b[i] == '.' {
		isInt = false
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return false, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		isInt = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return false, false
		}
		i = j
	}
	s.i = i
	return isInt, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// strOrNull reads a string (see str) or null (nil, true).
func (s *scanner) strOrNull() ([]byte, bool) {
	if s.peek() == 'n' {
		return nil, s.lit("null")
	}
	v, ok := s.str()
	if ok && v == nil {
		v = []byte{}
	}
	return v, ok
}

// str reads a string and returns its value, which aliases the input when
// the string has no escapes. A \u escape returns false: encoding/json
// handles those.
func (s *scanner) str() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	s.i++
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\':
			return s.strEscaped(start)
		case c < 0x20:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

func (s *scanner) strEscaped(start int) ([]byte, bool) {
	out := make([]byte, 0, s.i-start+32)
	out = append(out, s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return out, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			out = append(out, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			return nil, false
		}
		switch e := s.b[s.i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		default:
			return nil, false
		}
		s.i += 2
	}
	return nil, false
}

// skipStr reads a string without decoding it, checking its escapes.
func (s *scanner) skipStr() bool {
	s.i++ // '"'
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			if !s.skipEscape() {
				return false
			}
			continue
		}
		s.i++
	}
	return false
}

func (s *scanner) skipEscape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if s.i+6 > len(s.b) {
			return false
		}
		for _, h := range s.b[s.i+2 : s.i+6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return false
			}
		}
		s.i += 6
		return true
	}
	return false
}
