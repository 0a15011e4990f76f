package sim

import (
	"flag"
	"fmt"
	"math"
	"strings"
	"testing"

	"speedmatrix/engine"
)

var fitFlag = flag.Bool("fit", false, "refit the reference profiles' performance models and print them")

// seedWindowS is the reference reports' measurement window.
const seedWindowS = 30

// cellCheck is one reference cell compared with the model.
type cellCheck struct {
	cell     SeedCell
	ctx      int // the context the engine runs
	status   string
	got      decodeStats
	errRatio float64 // got/reference − 1 for Valid cells
}

// overCapacity is the engine's capacity rule with the profile's limits.
func overCapacity(p Profile, ctx, conc, out int) bool {
	return engine.OverCapacity(p.KVCacheTokens, p.MaxNumSeqs, ctx, conc, out)
}

// checkSeed runs every cell of r against p in virtual time.
func checkSeed(p Profile, r SeedReport) []cellCheck {
	var out []cellCheck
	for _, cell := range r.Cells {
		ctx := fitContext(cell.ContextTokens, p.MaxModelLen, r.MaxOutputTokens)
		ch := cellCheck{cell: cell, ctx: ctx, status: "Valid"}
		if overCapacity(p, ctx, cell.Concurrency, r.MaxOutputTokens) {
			ch.status = "Over capacity"
			out = append(out, ch)
			continue
		}
		if cell.Status == "Over capacity" {
			out = append(out, ch) // mismatch: the check reports it
			continue
		}
		ch.got = virtualDecode(p, ctx, cell.Concurrency, r.MaxOutputTokens, seedWindowS)
		if ch.got.Loops > 0 {
			ch.status = "Looped"
		}
		if cell.Status == "Valid" {
			ch.errRatio = ch.got.TokPerSec/cell.TotalTokPerSec - 1
		}
		out = append(out, ch)
	}
	return out
}

// TestProfilesMatchSeeds is the reference agreement check CI relies on: every
// cell of both reference reports, run on the simulator's own clock
// (virtualPrefill, virtualDecode: the scheduler core stepped in model time,
// the engine's methodology without HTTP), must get the report's status (the
// same cells Over capacity, by the engine's rule, and Looped), and every
// Valid decode cell's total tok/s and every prefill tok/s must be within
// 10 % of the report. Deterministic, and under a second: no machine load can
// move it. TestSeedMatrices and TestHTTPPacingMatchesSeeds check the same
// figures in real time over HTTP, opt-in.
func TestProfilesMatchSeeds(t *testing.T) {
	for _, r := range SeedReports {
		t.Run(r.Profile, func(t *testing.T) {
			t.Parallel()
			p, err := LookupProfile(r.Profile)
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for _, sp := range r.Prefill {
				n := fitContext(sp.ContextTokens, p.MaxModelLen, 1)
				got := float64(n) / virtualPrefill(p, n)
				e := got/sp.TokPerSec - 1
				worst = max(worst, math.Abs(e))
				t.Logf("prefill %7d: reference %8.1f model %8.1f tok/s (%+5.1f%%)", n, sp.TokPerSec, got, 100*e)
				if math.Abs(e) > 0.10 {
					t.Errorf("prefill at %d tokens: model %.1f tok/s, reference %.1f: off by %+.1f%%", n, got, sp.TokPerSec, 100*e)
				}
			}
			for _, ch := range checkSeed(p, r) {
				c := ch.cell
				if ch.status != c.Status {
					t.Errorf("decode %d×%d: model says %s, reference says %s", ch.ctx, c.Concurrency, ch.status, c.Status)
					continue
				}
				if c.Status != "Valid" {
					continue
				}
				worst = max(worst, math.Abs(ch.errRatio))
				t.Logf("decode %6d×%-3d: reference %7.1f model %7.1f tok/s (%+5.1f%%) batch %.1f ctx %.0f done %d",
					ch.ctx, c.Concurrency, c.TotalTokPerSec, ch.got.TokPerSec, 100*ch.errRatio, ch.got.MeanBatch, ch.got.MeanCtx, ch.got.Completed)
				if math.Abs(ch.errRatio) > 0.10 {
					t.Errorf("decode %d×%d: model %.1f tok/s, reference %.1f: off by %+.1f%%", ch.ctx, c.Concurrency, ch.got.TokPerSec, c.TotalTokPerSec, 100*ch.errRatio)
				}
			}
			t.Logf("worst disagreement with %s: %.1f%%", r.File, 100*worst)
		})
	}
}

// TestFitProfiles refits the reference profiles (go test -run FitProfiles -fit)
// and prints the fitted parameters to paste into profiles_builtin.go.
func TestFitProfiles(t *testing.T) {
	if !*fitFlag {
		t.Skip("refit with -fit")
	}
	var prior []Knot
	for _, r := range SeedReports {
		p, _ := LookupProfile(r.Profile)
		p = fitPrefill(p, r)
		for range 6 {
			p = fitDecode(p, r, prior)
			t.Logf("%s", formatPerf(p.Perf))
		}
		if prior == nil {
			prior = p.Perf.DecodeAttnS
		}
		t.Logf("%s:\n%s", p.Name, formatPerf(p.Perf))
	}
}

// fitPrefill solves PrefillPerTokenS and PrefillQuadS by least squares on
// relative error; the front end and PrefillStepS (per chunk) are given.
func fitPrefill(p Profile, r SeedReport) Profile {
	var s00, s01, s11, t0, t1 float64
	for _, sp := range r.Prefill {
		n := fitContext(sp.ContextTokens, p.MaxModelLen, 1)
		chunks := (n + p.MaxBatchedTokens - 1) / p.MaxBatchedTokens
		x := float64(n)
		target := x/sp.TokPerSec - p.Perf.frontendS(n) - float64(chunks)*p.Perf.PrefillStepS
		w := x * x / (target * target) // relative error, in units of the N·b row
		s00, s01, s11 = s00+w, s01+w*x, s11+w*x*x
		t0, t1 = t0+w*target/x, t1+w*target
	}
	det := s00*s11 - s01*s01
	p.Perf.PrefillPerTokenS = (t0*s11 - t1*s01) / det
	p.Perf.PrefillQuadS = (s00*t1 - s01*t0) / det
	return p
}

// fitDecode refits one knot of each curve per concurrency level: the step
// time every Valid cell needs, corrected by how far the virtual run fell
// short of C ÷ step time (restarts, prefill of the tails), solved by least
// squares over the contexts of that level. A level with one context keeps
// the attention cost of prior's shape (or of level 1).
func fitDecode(p Profile, r SeedReport, prior []Knot) Profile {
	type eq struct{ ctx, need float64 }
	byConc := map[int][]eq{}
	for _, ch := range checkSeed(p, r) {
		c := ch.cell
		if c.Status != "Valid" || ch.status != "Valid" {
			continue
		}
		eff := ch.got.TokPerSec * ch.got.MeanStepS / float64(c.Concurrency)
		byConc[c.Concurrency] = append(byConc[c.Concurrency], eq{ch.got.MeanCtx, float64(c.Concurrency) * eff / c.TotalTokPerSec})
	}
	var base, attn []Knot
	attn1 := curve(p.Perf.DecodeAttnS, 1)
	for _, conc := range r.Concurrency {
		eqs := byConc[conc]
		if len(eqs) == 0 {
			continue
		}
		var b, a float64
		if len(eqs) == 1 {
			a = attn1
			if prior != nil {
				a = attn1 * curve(prior, conc) / curve(prior, 1)
			}
			b = eqs[0].need - a*eqs[0].ctx
		} else {
			var sw, sx, sy, sxx, sxy float64
			for _, e := range eqs {
				w := 1 / (e.need * e.need)
				sw, sx, sy, sxx, sxy = sw+w, sx+w*e.ctx, sy+w*e.need, sxx+w*e.ctx*e.ctx, sxy+w*e.ctx*e.need
			}
			a = (sw*sxy - sx*sy) / (sw*sxx - sx*sx)
			b = (sy - a*sx) / sw
		}
		base, attn = append(base, Knot{conc, b}), append(attn, Knot{conc, a})
	}
	p.Perf.DecodeBaseS, p.Perf.DecodeAttnS = base, attn
	return p
}

func formatPerf(pf Perf) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PrefillStepS: %.4g, PrefillPerTokenS: %.4g, PrefillQuadS: %.4g,\n", pf.PrefillStepS, pf.PrefillPerTokenS, pf.PrefillQuadS)
	knots := func(name string, ks []Knot) {
		fmt.Fprintf(&b, "%s: []Knot{", name)
		for i, k := range ks {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{%d, %.4g}", k.Batch, k.Seconds)
		}
		b.WriteString("},\n")
	}
	knots("DecodeBaseS", pf.DecodeBaseS)
	knots("DecodeAttnS", pf.DecodeAttnS)
	return b.String()
}
