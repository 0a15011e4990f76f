package engine

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestContextLabel: a label never understates the context (3,840 tokens
// were "3K"): whole K as before, the rest in hundredths of a K rounded up.
func TestContextLabel(t *testing.T) {
	for _, c := range []struct {
		tokens int
		want   string
	}{
		{0, "0"}, {1000, "1000"}, {1023, "1023"},
		{1024, "1K"}, {8192, "8K"}, {128 * K, "128K"},
		{3840, "3.75K"},     // the tiny simulator's decode context
		{6912, "6.75K"},     // 8,192 − 1,024 output − 256
		{7935, "7.75K"},     // 7.749K, rounded up
		{7936, "7.75K"},     // exactly
		{126720, "123.75K"}, // 131,072 − 4,096 output − 256
		{1536, "1.5K"},      // one decimal when the second is 0
		{1025, "1.01K"},     // a token over 1K is over 1K
		{2047, "2K"},        // 1.999K rounds up to 2K, not down to 1K
	} {
		if got := ContextLabel(c.tokens); got != c.want {
			t.Errorf("ContextLabel(%d) = %q, want %q", c.tokens, got, c.want)
		}
	}
	// Never below the tokens it stands for.
	for n := K; n < 40*K; n += 37 {
		if v := labelTokens(t, ContextLabel(n)); v < float64(n) {
			t.Fatalf("ContextLabel(%d) = %q, %.0f tokens: understated", n, ContextLabel(n), v)
		}
	}
}

// labelTokens reads a label of a length of 1K or more back as tokens.
func labelTokens(t *testing.T, label string) float64 {
	k, err := strconv.ParseFloat(strings.TrimSuffix(label, "K"), 64)
	if err != nil {
		t.Fatalf("label %q: %v", label, err)
	}
	return math.Round(k * K)
}
