package engine

import (
	"strings"
	"testing"
	"time"
)

func sloCell(conc int, ttftP99, itlP99 float64) Result {
	return Result{Cell: Cell{Phase: PhaseDecode, ContextTokens: 8 * K, Concurrency: conc}, Status: StatusValid,
		TTFTPct: Percentiles{P50: ttftP99 / 2, P90: ttftP99 * 0.9, P99: ttftP99, N: 200},
		ITLPct:  Percentiles{P50: itlP99 / 2, P90: itlP99 * 0.9, P99: itlP99, N: 5000}}
}

func TestSLOJudgeAndMostRequests(t *testing.T) {
	slo := SLO{TTFT: 2 * time.Second, ITL: 50 * time.Millisecond}
	rs := []Result{sloCell(1, 100, 10), sloCell(2, 500, 20), sloCell(4, 1500, 40), sloCell(8, 2500, 45), sloCell(16, 1000, 30)}
	c, ok := slo.Judge(rs[2])
	if !ok || !c.Pass || c.TTFTMargin != 0.25 || c.ITLMargin < 0.199 || c.ITLMargin > 0.201 {
		t.Fatalf("Judge(4) = %+v, %v; want pass with TTFT margin 0.25 and ITL margin 0.2", c, ok)
	}
	if c, _ := slo.Judge(rs[3]); c.Pass || c.TTFTMargin >= 0 {
		t.Errorf("Judge(8) = %+v; want a miss with a negative TTFT margin", c)
	}
	best, ok := slo.MostRequests(rs, 8*K)
	if !ok || best.Concurrency != 4 {
		t.Errorf("MostRequests = %d, %v; want 4 (8 misses, so 16 does not count)", best.Concurrency, ok)
	}
	if _, ok := (SLO{}).Judge(rs[0]); ok {
		t.Error("an SLO with no bound judged a cell")
	}
	unkept := rs[0]
	unkept.ITLPct = Percentiles{}
	if _, ok := slo.Judge(unkept); ok {
		t.Error("a cell without ITL percentiles was judged against an ITL bound")
	}
	if c, ok := (SLO{TTFT: time.Second}).Judge(unkept); !ok || !c.Pass {
		t.Errorf("a TTFT-only SLO on a cell without ITL percentiles: %+v, %v; want a pass", c, ok)
	}
	p50 := SLO{ITL: 12 * time.Millisecond, Percentile: 50}
	if best, ok := p50.MostRequests(rs, 8*K); !ok || best.Concurrency != 2 {
		t.Errorf("p50 MostRequests = %d, %v; want 2 (ITL p50 10 ms at 2, 20 ms at 4)", best.Concurrency, ok)
	}
	if _, ok := slo.MostRequests([]Result{sloCell(1, 3000, 10)}, 8*K); ok {
		t.Error("MostRequests found a cell when the first one misses")
	}
}

// TestSLOProblems: a plan to run and a plan a report file claims are both
// held to an SLO that bounds something: no negative bound, none past an
// hour, and only a percentile reports keep; each problem names its field.
func TestSLOProblems(t *testing.T) {
	for _, c := range []struct {
		name  string
		slo   SLO
		field PlanField
		want  string
	}{
		{"negative TTFT", SLO{TTFT: -time.Second}, FieldSLOTTFT, "-1s is negative: use a positive time"},
		{"ITL of a day", SLO{ITL: 24 * time.Hour}, FieldSLOITL, "use at most 1 hour"},
		{"p95", SLO{TTFT: time.Second, Percentile: 95}, FieldSLOPercentile, "95 is not a percentile reports keep: use 50, 90 or 99"},
		{"negative percentile", SLO{Percentile: -99}, FieldSLOPercentile, "use 50, 90 or 99"},
	} {
		p := DefaultPlan()
		p.SLO = c.slo
		for _, check := range []struct {
			what string
			err  error
		}{{"ValidatePlan", ValidatePlan(p, Limits{})}, {"CheckPlanBounds", CheckPlanBounds(p)}} {
			if f := PlanFields(check.err); len(f) != 1 || f[0] != c.field || !strings.Contains(check.err.Error(), c.want) {
				t.Errorf("%s: %s = %v (fields %v), want %s saying %q", c.name, check.what, check.err, f, c.field, c.want)
			}
		}
	}
	for _, ok := range []SLO{{}, {TTFT: 2 * time.Second, ITL: 50 * time.Millisecond}, {ITL: time.Hour, Percentile: 50}, {TTFT: time.Millisecond, Percentile: 90}} {
		p := DefaultPlan()
		p.SLO = ok
		if err := ValidatePlan(p, Limits{}); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}
