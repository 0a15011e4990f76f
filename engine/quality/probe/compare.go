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
		// The first probe alone finds the server's cap; the rest go
		// o.Parallel at a time at that k.
		drift := make([]quality.ProbeDrift, len(probes))
		sent := make([]int, len(probes))
		one := func(ctx context.Context, i int) error {
			o.event(Event{Phase: PhaseCompare, ContextTokens: c, Done: i, Of: len(probes)})
			got, n, err := s.force(ctx, probes[i].Prompt, probes[i].Continuation, k)
			sent[i] = n
			if err != nil {
				return fmt.Errorf("%d tokens, probe %d: %w", c, i+1, err)
			}
			d, err := quality.CompareProbe(probes[i].TopK, got, k)
			if err != nil {
				return fmt.Errorf("%d tokens, probe %d: %w", c, i+1, err)
			}
			drift[i] = quality.ProbeDrift{ContextTokens: c, Positions: d}
			return nil
		}
		if len(probes) > 0 {
			k, err = capped(k, func(e CapError) { o.event(Event{Phase: PhaseCap, Cap: e.Cap, Asked: e.Asked}) }, func(k2 int) error {
				k = k2
				return one(ctx, 0)
			})
			if err != nil {
				return rep, err
			}
		}
		if err := each(ctx, len(probes)-1, o.Parallel, func(ctx context.Context, i int) error { return one(ctx, i+1) }); err != nil {
			return rep, err
		}
		drifts = append(drifts, drift...)
		requests := 0
		for _, n := range sent {
			requests += n
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
