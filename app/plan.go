package app

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
)

// Matrix presets.
const (
	presetQuick    = "Quick"
	presetStandard = "Standard"
	presetCustom   = "Custom"
)

// capacity is what the target can hold, when known (0: unknown).
type capacity struct {
	KVCacheTokens int
	MaxNumSeqs    int
	MaxModelLen   int
}

// overCapacity mirrors the engine's check: C × (context + output) must fit
// the KV cache and C must not exceed max-num-seqs.
func (c capacity) overCapacity(contextTokens, concurrency, outputTokens int) bool {
	if c.KVCacheTokens > 0 && concurrency*(contextTokens+outputTokens) > c.KVCacheTokens {
		return true
	}
	return c.MaxNumSeqs > 0 && concurrency > c.MaxNumSeqs
}

// quickPlan is a matrix of about two minutes; for a small model (max length
// 16K or less, such as the tiny simulator) one of about a minute that fits it.
func quickPlan(c capacity) engine.Plan {
	p := engine.DefaultPlan()
	if c.MaxModelLen > 0 && c.MaxModelLen <= 16*engine.K {
		p.PrefillContexts = []int{1 * engine.K, 2 * engine.K, 4 * engine.K}
		p.DecodeContexts = []int{1 * engine.K, 2 * engine.K, 4 * engine.K}
		p.Concurrency = []int{1, 2, 4, 8, 16, 32}
		p.Duration = 2 * time.Second
		p.MaxOutputTokens = 256
		return p
	}
	p.PrefillContexts = []int{8 * engine.K, 32 * engine.K}
	p.DecodeContexts = []int{8 * engine.K, 32 * engine.K}
	p.Concurrency = []int{1, 8, 32}
	p.Duration = 10 * time.Second
	p.MaxOutputTokens = 1024
	return p
}

// presetPlan is the plan of a named preset.
func presetPlan(name string, c capacity) engine.Plan {
	if name == presetQuick {
		return quickPlan(c)
	}
	return engine.DefaultPlan()
}

// Rough costs for the estimate: a prefill request, and the warm-up and
// tear-down around each decode cell's measurement window.
const (
	estPrefill     = 3 * time.Second
	estDecodeExtra = 3 * time.Second
)

// estimate is the expected run time of plan on c, and the number of decode
// cells that will run and that are over capacity.
func estimate(p engine.Plan, c capacity) (total time.Duration, run, over int) {
	total = time.Duration(len(p.PrefillContexts)) * estPrefill
	for _, ctx := range p.DecodeContexts {
		for _, n := range p.Concurrency {
			if c.overCapacity(ctx, n, p.MaxOutputTokens) {
				over++
				continue
			}
			run++
			total += p.Duration + estDecodeExtra
		}
	}
	return total, run, over
}

// parseTokenList reads "8K, 16K, 32768" as token counts (K = 1,024).
func parseTokenList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		mult := 1
		if t, ok := strings.CutSuffix(strings.ToUpper(f), "K"); ok {
			f, mult = t, engine.K
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a context length: write lengths like 8K, 16K or 32768", f)
		}
		out = append(out, n*mult)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// parseCountList reads "1, 2, 4" as positive whole numbers.
func parseCountList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a number of requests: write whole numbers like 1, 2, 4", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// formatTokenList writes token counts as parseTokenList reads them.
func formatTokenList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		if n >= engine.K && n%engine.K == 0 {
			s[i] = strconv.Itoa(n/engine.K) + "K"
		} else {
			s[i] = strconv.Itoa(n)
		}
	}
	return strings.Join(s, ", ")
}

// formatCountList writes numbers as parseCountList reads them.
func formatCountList(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}
