package app

import (
	"strings"
	"testing"
)

// TestFieldsSayTooLarge: a number of 20 digits is too large, and the
// error gives the most the field takes ("write a whole number of tokens"
// was wrong: it is one).
func TestFieldsSayTooLarge(t *testing.T) {
	const huge = "99999999999999999999"
	for _, c := range []struct {
		name string
		set  func(m *matrixTab)
		said func(m *matrixTab) string
		want string
	}{
		{"max output", func(m *matrixTab) { m.maxOut.SetText(huge) }, func(m *matrixTab) string { return m.banner.current.Message },
			"Max output tokens: too large: write at most 10,485,760 tokens."},
		{"prefill repeats", func(m *matrixTab) { m.repeats.SetText(huge) }, func(m *matrixTab) string { return m.banner.current.Message },
			"Prefill repeats: too large: write at most 20 requests."},
		{"requests per rate", func(m *matrixTab) { m.load.kind.SetSelected(kindLoad); m.load.requests.SetText(huge) },
			func(m *matrixTab) string { return m.load.banner.current.Message }, "Requests per rate: too large: write at most "},
		{"not a number", func(m *matrixTab) { m.maxOut.SetText("4k") }, func(m *matrixTab) string { return m.banner.current.Message },
			"Max output tokens: write a whole number of tokens, e.g. 4096."},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := newTestUI(t, testDeps(t, &fakeEngine{}), Options{Target: "sim:tiny"})
			c.set(u.matrix)
			if got := c.said(u.matrix); !strings.HasPrefix(got, c.want) {
				t.Errorf("the form says %q, want %q", got, c.want)
			}
		})
	}
}
