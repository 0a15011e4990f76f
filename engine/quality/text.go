package quality

import (
	_ "embed" // the built-in text
	"strings"
)

//go:embed text/newton-opticks.txt
var builtinText string

// Text is the built-in natural text that probes and needle haystacks are
// made of: Newton's Opticks (1730), public domain; text/README.md names
// its source. Filler words would not do: a model predicts them too well
// for its drift to show.
func Text() string { return builtinText }

// MaxTextBytes is the largest text a user may give for probes and
// haystacks (--quality-text).
const MaxTextBytes = 16 << 20

// CleanText is text with its runs of white space made single spaces and
// paragraph breaks kept, so that probes built from it start anywhere
// without a ragged layout.
func CleanText(text string) string {
	paras := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n")
	out := make([]string, 0, len(paras))
	for _, p := range paras {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}
