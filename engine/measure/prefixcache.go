package measure

import (
	"slices"

	"speedmatrix/engine"
)

func prefixQueries(s metricSample) float64 { return s.PrefixQueries }
func prefixHits(s metricSample) float64    { return s.PrefixHits }
func cacheHitRate(s metricSample) float64  { return s.CacheHitRate }

// prefixCacheOf is what the server's prefix cache found of the prompts
// sent while samples were taken (engine.PrefixCache): the growth of its
// counters from the first sample to the last, or, from a server with only
// a hit-rate gauge (SGLang), the gauge's time-average; nil when the server
// has neither, or was asked for no prompt token.
func prefixCacheOf(samples []metricSample) *engine.PrefixCache {
	if len(samples) < 2 {
		return nil
	}
	// A page that left the counters out now and then reads as 0 there,
	// which growth would take for a restart: only the pages with them count.
	counted := slices.DeleteFunc(slices.Clone(samples), func(s metricSample) bool { return !s.HasPrefix })
	switch last := samples[len(samples)-1]; {
	case last.HasPrefix && len(counted) >= 2:
		samples = counted
		queried := growth(samples, prefixQueries)
		if queried <= 0 {
			return nil
		}
		hits := min(growth(samples, prefixHits), queried)
		return &engine.PrefixCache{ServerHitRate: hits / queried, QueriedTokens: queried, HitTokens: hits,
			Source: "the growth of prefix_cache_hits ÷ prefix_cache_queries"}
	case last.HasCacheHitRate && last.At.After(samples[0].At):
		return &engine.PrefixCache{ServerHitRate: min(1, timeAverage(samples, cacheHitRate)),
			Source: "sglang:cache_hit_rate, averaged over the cell"}
	}
	return nil
}

// notePrefixCache records what the prefix cache found of a cell's prompts
// once its requests drained, and flags a prefill cell whose prompts the
// server found there (engine.PrefixCacheFlag).
func (r *runner) notePrefixCache(res *engine.Result) {
	if r.watch == nil || res.Status == engine.StatusCancelled {
		return
	}
	res.PrefixCache = prefixCacheOf(r.watch.cellSamples())
	if res.Phase != engine.PhasePrefill || !res.Measured() {
		return
	}
	if f, ok := engine.PrefixCacheFlag(res.PrefixCache); ok {
		res.Flags = append(res.Flags, f)
	}
}
