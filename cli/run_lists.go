package cli

import (
	"fmt"
	"strconv"
	"strings"

	"speedmatrix/engine"
)

// parseContexts reads a list like "8K,16K,32000" (K = 1,024 tokens, k too);
// "" or "none" is the empty list.
func parseContexts(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "none") {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		p := strings.TrimSpace(part)
		mult := 1
		if strings.HasSuffix(p, "K") || strings.HasSuffix(p, "k") {
			p, mult = p[:len(p)-1], engine.K
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a context length: use tokens or K (1,024 tokens), e.g. 8K,16K", part)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// parseInts reads a list of positive integers like "1,2,4".
func parseInts(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive whole number: use e.g. 1,2,4", part)
		}
		out = append(out, n)
	}
	return out, nil
}

func joinContexts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		if n%engine.K == 0 && n > 0 {
			parts[i] = strconv.Itoa(n/engine.K) + "K"
		} else {
			parts[i] = strconv.Itoa(n)
		}
	}
	return strings.Join(parts, ",")
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}
