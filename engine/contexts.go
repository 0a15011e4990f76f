package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// listFields splits a list written with commas, semicolons or spaces.
func listFields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' })
}

// ParseContexts reads a list of context lengths like "8K, 16K, 32768"
// (K or k = 1,024 tokens; commas, semicolons or spaces between them), sorted
// and without duplicates; "" or "none" is the empty list. Its errors name
// the item, not the field or flag it came from.
func ParseContexts(s string) ([]int, error) {
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		return nil, nil
	}
	var out []int
	for _, item := range listFields(s) {
		f, mult := item, 1
		if t, ok := strings.CutSuffix(strings.ToUpper(item), "K"); ok {
			f, mult = t, K
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			// The item as written: "1.5K", not the "1.5" left of it.
			return nil, fmt.Errorf("%q is not a context length: write tokens or K (1,024 tokens), e.g. 8K, 16K or 32768", item)
		}
		out = append(out, n*mult)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// ParseCounts reads a list of positive whole numbers like "1, 2, 4", sorted
// and without duplicates. Its errors name the item, not the field or flag.
func ParseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range listFields(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive whole number: write e.g. 1, 2, 4", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// FormatContexts writes context lengths as ParseContexts reads them: whole
// multiples of 1,024 as K, others in tokens.
func FormatContexts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		if n >= K && n%K == 0 {
			s[i] = strconv.Itoa(n/K) + "K"
		} else {
			s[i] = strconv.Itoa(n)
		}
	}
	return strings.Join(s, ", ")
}

// FormatCounts writes numbers as ParseCounts reads them.
func FormatCounts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
