package openai

import "unicode/utf8"

// The fast chunk parser reads the shapes vLLM and OpenAI stream without
// reflection and with one allocation per text field. It is a strict JSON
// reader: when it returns true, encoding/json would have accepted the same
// bytes and produced the same flatChunk (FuzzChunkParsers checks this).
// Anything it is not sure about (an error event, \u escapes, a key that
// differs from a field name only in case, duplicate fields, several
// choices, deep nesting) makes it return false, and parseChunk falls back
// to encoding/json.

const fastMaxDepth = 64

type scanner struct {
	b []byte
	i int
}

// parseChunkFast fills f from data and reports whether it could.
func parseChunkFast(data []byte, f *flatChunk) bool {
	s := scanner{b: data}
	var seen uint8
	ok := s.object(0, func(key []byte) bool {
		switch string(key) {
		case "choices":
			return once(&seen, 1) && s.choices(f)
		case "usage":
			return once(&seen, 2) && s.usage(f)
		case "object":
			v, ok := s.strOrNull()
			return once(&seen, 4) && ok && string(v) != "error"
		case "error", "message", "type", "code":
			return false
		}
		return !foldsTo(key, "choices", "usage", "object", "error", "message", "type", "code") && s.skip(1)
	})
	s.ws()
	return ok && s.i == len(s.b)
}

// once sets bit in seen and reports whether it was not set before: a field
// given twice is left to encoding/json, whose merging rules are subtle.
func once(seen *uint8, bit uint8) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

func (s *scanner) choices(f *flatChunk) bool {
	switch s.peek() {
	case 'n':
		return s.lit("null")
	case '[':
		s.i++
	default:
		return false
	}
	if s.peek() == ']' {
		s.i++
		return true
	}
	if !s.choice(f) || s.peek() != ']' {
		return false // several choices are left to encoding/json
	}
	s.i++
	return true
}

func (s *scanner) choice(f *flatChunk) bool {
	if s.peek() == 'n' {
		return s.lit("null")
	}
	var seen uint8
	return s.object(1, func(key []byte) bool {
		switch string(key) {
		case "text":
			return once(&seen, 1) && s.strField(&f.text)
		case "delta":
			return once(&seen, 2) && s.delta(f)
		case "finish_reason":
			return once(&seen, 4) && s.strField(&f.finish)
		}
		return !foldsTo(key, "text", "delta", "finish_reason") && s.skip(2)
	})
}

func (s *scanner) delta(f *flatChunk) bool {
	if s.peek() == 'n' {
		return s.lit("null")
	}
	var seen uint8
	return s.object(2, func(key []byte) bool {
		switch string(key) {
		case "content":
			return once(&seen, 1) && s.strField(&f.content)
		case "reasoning_content":
			return once(&seen, 2) && s.strField(&f.reasoningContent)
		case "reasoning":
			return once(&seen, 4) && s.strField(&f.reasoning)
		}
		return !foldsTo(key, "content", "reasoning_content", "reasoning") && s.skip(3)
	})
}

func (s *scanner) usage(f *flatChunk) bool {
	if s.peek() == 'n' {
		return s.lit("null")
	}
	f.hasUsage = true
	var seen uint8
	return s.object(1, func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return once(&seen, 1) && s.intField(&f.usage.PromptTokens)
		case "completion_tokens":
			return once(&seen, 2) && s.intField(&f.usage.CompletionTokens)
		case "total_tokens":
			return once(&seen, 4) && s.intField(&f.usage.TotalTokens)
		}
		return !foldsTo(key, "prompt_tokens", "completion_tokens", "total_tokens") && s.skip(2)
	})
}

// foldsTo reports whether encoding/json might match key to one of names
// although it is not exactly one of them: it matches case-insensitively,
// with Unicode folding, so any non-ASCII key counts as a maybe.
func foldsTo(key []byte, names ...string) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, name := range names {
		if len(name) != len(key) {
			continue
		}
		same := true
		for i := range key {
			if lower(key[i]) != name[i] {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// strField reads a string or null into dst (null leaves dst alone, as
// encoding/json does).
func (s *scanner) strField(dst *string) bool {
	v, ok := s.strOrNull()
	if !ok || !utf8.Valid(v) {
		return false // encoding/json would replace invalid UTF-8; leave that to it
	}
	if v != nil {
		*dst = intern(v)
	}
	return true
}

// intern avoids an allocation for the common finish reasons.
func intern(v []byte) string {
	switch string(v) {
	case "":
		return ""
	case "stop":
		return "stop"
	case "length":
		return "length"
	}
	return string(v)
}

// intField reads an integer or null into dst.
func (s *scanner) intField(dst *int) bool {
	if s.peek() == 'n' {
		return s.lit("null")
	}
	start := s.i
	isInt, ok := s.number()
	digits := s.b[start:s.i]
	neg := len(digits) > 0 && digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	if !ok || !isInt || len(digits) > 18 {
		return false
	}
	n := 0
	for _, c := range digits {
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	*dst = n
	return true
}
