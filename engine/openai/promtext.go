package openai

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// parseSample parses one sample line:
//
//	name{label="value",...} value [timestamp] [# exemplar]
//
// The name may also be a quoted string inside the braces, as Prometheus 3
// writes names that are not plain identifiers.
func parseSample(line string) (Sample, error) {
	var s Sample
	rest := line
	if rest[0] != '{' {
		n := identLen(rest, true)
		if n == 0 {
			return s, fmt.Errorf("no metric name in %q", clip(line))
		}
		s.Name, rest = rest[:n], rest[n:]
	}
	if rest != "" && rest[0] == '{' {
		var err error
		if rest, err = parseLabels(rest[1:], &s); err != nil {
			return s, fmt.Errorf("%v in %q", err, clip(line))
		}
	}
	if s.Name == "" {
		return s, fmt.Errorf("no metric name in %q", clip(line))
	}
	if rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
		return s, fmt.Errorf("no value in %q", clip(line))
	}
	fields := strings.Fields(rest)
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, fmt.Errorf("bad value %q in %q", clip(fields[0]), clip(line))
	}
	s.Value = v
	if len(fields) > 1 && fields[1] != "#" {
		if _, err := strconv.ParseFloat(fields[1], 64); err != nil {
			return s, fmt.Errorf("bad timestamp %q in %q", clip(fields[1]), clip(line))
		}
		if len(fields) > 2 && fields[2] != "#" {
			return s, fmt.Errorf("unexpected %q after the timestamp in %q", clip(fields[2]), clip(line))
		}
	}
	return s, nil
}

// parseLabels parses what follows '{' and returns what follows '}'.
func parseLabels(rest string, s *Sample) (string, error) {
	for {
		rest = strings.TrimLeft(rest, " \t")
		if rest == "" {
			return "", errors.New("unclosed {")
		}
		if rest[0] == '}' {
			return rest[1:], nil
		}
		var name string
		if rest[0] == '"' {
			q, after, err := quoted(rest)
			if err != nil {
				return "", err
			}
			name, rest = q, strings.TrimLeft(after, " \t")
			if rest != "" && (rest[0] == ',' || rest[0] == '}') && s.Name == "" && s.Labels == nil {
				s.Name = name // {"metric.name", label="x"}
				rest = strings.TrimPrefix(rest, ",")
				continue
			}
		} else {
			n := identLen(rest, false)
			if n == 0 {
				return "", fmt.Errorf("bad label name at %q", clip(rest))
			}
			name, rest = rest[:n], strings.TrimLeft(rest[n:], " \t")
		}
		if rest == "" || rest[0] != '=' {
			return "", fmt.Errorf("no = after label %q", clip(name))
		}
		value, after, err := quoted(strings.TrimLeft(rest[1:], " \t"))
		if err != nil {
			return "", err
		}
		if s.Labels == nil {
			s.Labels = make(map[string]string, 4)
		}
		s.Labels[name] = value
		rest = strings.TrimLeft(after, " \t")
		if rest != "" && rest[0] == ',' {
			rest = rest[1:]
		}
	}
}

// quoted reads a "..." string with the text format's escapes (\\, \" and
// \n; any other escaped character stands for itself).
func quoted(in string) (string, string, error) {
	if in == "" || in[0] != '"' {
		return "", "", fmt.Errorf("label value not quoted at %q", clip(in))
	}
	end := strings.IndexAny(in[1:], "\"\\")
	if end >= 0 && in[1+end] == '"' {
		return in[1 : 1+end], in[2+end:], nil // no escapes
	}
	var b strings.Builder
	for i := 1; i < len(in); i++ {
		switch c := in[i]; c {
		case '"':
			return b.String(), in[i+1:], nil
		case '\\':
			if i+1 == len(in) {
				return "", "", errors.New("unterminated label value")
			}
			i++
			if in[i] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(in[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errors.New("unterminated label value")
}

// identLen is the length of the metric (colons allowed) or label name at
// the start of s.
func identLen(s string, colon bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || (i > 0 && '0' <= c && c <= '9') || (colon && c == ':')
		if !ok {
			return i
		}
	}
	return len(s)
}

// clip is s cut to the length an error quotes.
func clip(s string) string { return engine.BoundText(s, 80) }
