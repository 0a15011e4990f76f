package engine

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SweepWord is how a list of rates asks for a sweep (LoadPlan.Sweep): the
// same word in the CLI's --rates and the app's Rates field.
const SweepWord = "sweep"

// ParseRates reads a list of request rates like "1, 2, 4, 8" (requests per
// second, commas, semicolons or spaces between them), sorted and without
// duplicates, or the word "sweep" (sweep true, no rates). "" is the empty
// list. Its errors name the item, not the field or flag it came from.
func ParseRates(s string) (rates []float64, sweep bool, err error) {
	if strings.EqualFold(strings.TrimSpace(s), SweepWord) {
		return nil, true, nil
	}
	for _, f := range listFields(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, false, fmt.Errorf("%q is not a request rate: write requests per second above 0, e.g. 1, 2, 4, 8, or sweep", f)
		}
		rates = append(rates, v)
	}
	slices.Sort(rates)
	return slices.Compact(rates), false, nil
}

// FormatRates writes rates as ParseRates reads them: "0.5, 1, 2".
func FormatRates(rates []float64) string {
	s := make([]string, len(rates))
	for i, r := range rates {
		s[i] = strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strings.Join(s, ", ")
}

// ParseTokenRange reads a length of prompt or output: "1024" (fixed) or
// "512:2048" (each request draws from that range), K or k meaning 1,024
// tokens. Every length is at least 1 token. Its errors name the item, not
// the field or flag it came from.
func ParseTokenRange(s string) (TokenRange, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), ":")
	if !isRange {
		hi = lo
	}
	least, err := tokenCount(lo)
	if err != nil {
		return TokenRange{}, err
	}
	most, err := tokenCount(hi)
	if err != nil {
		return TokenRange{}, err
	}
	if least > most {
		return TokenRange{}, fmt.Errorf("%q goes from more tokens to fewer: write the smaller length first, e.g. %d:%d", strings.TrimSpace(s), most, least)
	}
	return TokenRange{Min: least, Max: most}, nil
}

// tokenCount reads one length in tokens, K or k meaning 1,024.
func tokenCount(item string) (int, error) {
	f, mult := strings.TrimSpace(item), 1
	if t, ok := strings.CutSuffix(strings.ToUpper(f), "K"); ok {
		f, mult = t, K
	}
	n, err := strconv.Atoi(f)
	if err != nil || n < 1 || n > MaxContextTokens/mult {
		return 0, fmt.Errorf("%q is not a length in tokens: write a whole number from 1, e.g. 1024, or a range such as 512:2048", strings.TrimSpace(item))
	}
	return n * mult, nil
}

// FormatTokenRange writes t as ParseTokenRange reads it: "1024" or "512:2048".
func FormatTokenRange(t TokenRange) string {
	if t.Fixed() {
		return strconv.Itoa(t.Min)
	}
	return strconv.Itoa(t.Min) + ":" + strconv.Itoa(t.Max)
}
