package measure

import (
	"strings"
	"testing"
	"time"

	"speedmatrix/engine"
)

// TestPrefixCacheOf: the hit rate is the growth of the server's counters
// over the samples, a restart's reset counted from zero; SGLang's gauge is
// averaged over time; a server with neither, or a span that asked for no
// prompt, gives none.
func TestPrefixCacheOf(t *testing.T) {
	at := time.Unix(1000, 0)
	counters := func(qh ...float64) []metricSample {
		var out []metricSample
		for i := 0; i+1 < len(qh); i += 2 {
			out = append(out, metricSample{At: at.Add(time.Duration(i) * time.Second), PrefixQueries: qh[i], PrefixHits: qh[i+1], HasPrefix: true})
		}
		return out
	}
	gauge := []metricSample{{At: at, CacheHitRate: 0.2, HasCacheHitRate: true}, {At: at.Add(time.Second), CacheHitRate: 0.6, HasCacheHitRate: true},
		{At: at.Add(3 * time.Second), CacheHitRate: 0.6, HasCacheHitRate: true}}
	for _, tc := range []struct {
		name                string
		samples             []metricSample
		rate, queried, hits float64
		none                bool
		sourceSays          string
	}{
		{"a decode cell", counters(5000, 1000, 6024, 1000, 9096, 4072), 0.75, 4096, 3072, false, "prefix_cache_hits"},
		{"a prefill that missed", counters(0, 0, 8192, 16), 16.0 / 8192, 8192, 16, false, "prefix_cache_hits"},
		{"a restart reset the counters", counters(9000, 8000, 1024, 1024, 2048, 1024), 0.5, 2048, 1024, false, "prefix_cache_hits"},
		{"more hits than queries (a hostile page)", counters(0, 0, 100, 500), 1, 100, 100, false, "prefix_cache_hits"},
		{"a page without the counters in the middle", append(counters(1000, 0), metricSample{At: at.Add(time.Second)},
			metricSample{At: at.Add(2 * time.Second), PrefixQueries: 2024, PrefixHits: 512, HasPrefix: true}), 0.5, 1024, 512, false, "prefix_cache_hits"},
		{"no prompt asked for", counters(4096, 4000, 4096, 4000), 0, 0, 0, true, ""},
		{"SGLang's gauge", gauge, (0.4*1 + 0.6*2) / 3, 0, 0, false, "sglang:cache_hit_rate"},
		{"no prefix cache figures", []metricSample{{At: at}, {At: at.Add(time.Second)}}, 0, 0, 0, true, ""},
		{"one sample", counters(0, 0), 0, 0, 0, true, ""},
	} {
		got := prefixCacheOf(tc.samples)
		if tc.none {
			if got != nil {
				t.Errorf("%s: %+v, want none", tc.name, got)
			}
			continue
		}
		if got == nil || !near(got.ServerHitRate, tc.rate) || got.QueriedTokens != tc.queried || got.HitTokens != tc.hits || !strings.Contains(got.Source, tc.sourceSays) {
			t.Errorf("%s: %+v, want hit rate %.4f of %g queried (%g hits), from %s", tc.name, got, tc.rate, tc.queried, tc.hits, tc.sourceSays)
		}
		if got != nil && got.Problem() != "" {
			t.Errorf("%s: what a run records is refused on load: %s", tc.name, got.Problem())
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestPrefixCacheFlag: a prefill whose prompts the server found in its
// cache beyond engine.PrefixCacheHitShare is flagged, saying how much;
// one below it, or without figures, is not.
func TestPrefixCacheFlag(t *testing.T) {
	if f, ok := engine.PrefixCacheFlag(&engine.PrefixCache{ServerHitRate: 0.5}); !ok || f.Kind != engine.FlagPrefixCacheHit || !strings.Contains(f.Message, "50 %") {
		t.Errorf("half the prompts cached: flag %+v, %v", f, ok)
	}
	for _, p := range []*engine.PrefixCache{nil, {ServerHitRate: engine.PrefixCacheHitShare}, {ServerHitRate: 0.004}} {
		if f, ok := engine.PrefixCacheFlag(p); ok {
			t.Errorf("%+v: flagged %+v", p, f)
		}
	}
}
