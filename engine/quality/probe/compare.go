package probe

import (
	"context"
	"fmt"

	"speedmatrix/engine/quality"
)

// Compare measures the server's drift against ref: each probe's
// continuation teacher-forced (force), compared position by position at
// the reference's K (or the server's lower cap), summarized per context
// with bootstrap intervals, beside the reference's noise floor. A server
// of another tokenizer is refused (*quality.TokenizerError) before
// anything is sent; probes of a context longer than the server takes are
// skipped (PhaseSkip). save gets the report after every context; what was
// compared when ctx ends is returned with ctx's error.
func Compare(ctx context.Context, s Server, ref quality.Reference, o Options, save func(quality.Report) error) (quality.Report, error) {
	o = o.withDefaults()
	rep := quality.Report{Reference: ref.Header}
	fp, err := s.Fingerprint(ctx)
	if err != nil {
		return rep, err
	}
	if err := quality.CheckTokenizer(ref.Header, s.Model, fp); err != nil {
		return rep, err
	}
	k := ref.K
	b := quality.Bootstrap{Seed: ref.Seed}
	var drifts []quality.ProbeDrift
	for _, c := range ref.Contexts {
		probes := probesAt(ref, c)
		if s.MaxModelLen > 0 && c+ref.ContinuationTokens > s.MaxModelLen {
			o.event(Event{Phase: PhaseSkip, ContextTokens: c, MaxModelLen: s.MaxModelLen})
			continue
		}
		requests := 0
		for i, p := range probes {
			o.event(Event{Phase: PhaseCompare, ContextTokens: c, Done: i, Of: len(probes)})
			var got []quality.TopK
			var n int
			k, err = capped(k, func(e CapError) { o.event(Event{Phase: PhaseCap, Cap: e.Cap, Asked: e.Asked}) }, func(k int) error {
				got, n, err = s.force(ctx, p.Prompt, p.Continuation, k)
				return err
			})
			requests += n
			if err != nil {
				return rep, fmt.Errorf("%d tokens, probe %d: %w", c, i+1, err)
			}
			d, err := quality.CompareProbe(p.TopK, got, k)
			if err != nil {
				return rep, fmt.Errorf("%d tokens, probe %d: %w", c, i+1, err)
			}
			drifts = append(drifts, quality.ProbeDrift{ContextTokens: c, Positions: d})
		}
		rep.Contexts = quality.Summarize(drifts, b)
		if rep.NoiseFloor, err = quality.Floor(ref, k, b); err != nil {
			return rep, err
		}
		if err := save(rep); err != nil {
			return rep, err
		}
		o.event(Event{Phase: PhaseContext, ContextTokens: c, Requests: requests})
	}
	return rep, nil
}

// probesAt is ref's probes at context c.
func probesAt(ref quality.Reference, c int) []quality.Probe {
	var out []quality.Probe
	for _, p := range ref.Probes {
		if p.ContextTokens == c {
			out = append(out, p)
		}
	}
	return out
}
