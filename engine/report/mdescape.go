package report

import (
	"fmt"
	"strings"
)

// MDText is s as Markdown shows it literally, on one line: the characters
// that would start HTML (< > &), a link or image ([ ]), code (`) or an
// escape (\) are backslash-escaped, and control characters (a newline, a
// tab) are written as their escapes (\n, \t), so that a name a server or a
// file chose can neither break report.md's layout nor inject markup.
func MDText(s string) string {
	if !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case strings.ContainsRune("\\<>&[]`", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// MDCell is MDText for a cell of a table, whose pipes would end the cell.
func MDCell(s string) string {
	return strings.ReplaceAll(MDText(s), "|", `\|`)
}

// needsEscape reports whether mdText changes r.
func needsEscape(r rune) bool {
	return strings.ContainsRune("\\<>&[]`", r) || r < 0x20 || r == 0x7f
}

// codeFence is a fence for a code block of s: backticks, one more than
// the longest run of them in s, so that s cannot close the block.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
