package charts

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// KindQuality is the drift chart of a report's quality section (its
// QualityModel): KLD mean and p99, and top-1 agreement, per context, with
// their intervals, the noise floor and the budget. Only a report with a
// quality section has it (KindsFor); it is written as quality.png and
// quality.svg, beside quality.json where the quality command writes it.
const KindQuality Kind = "quality"

// QualityModel is what the drift chart, the sheet's Quality section,
// report.html's and the app's Quality tab show of a quality report
// (engine.QualityReport), already formatted: two charts on one context
// axis and the tables. Build it with BuildQuality.
type QualityModel struct {
	// Title says "simulated" when the server compared is simulated.
	Title     string `json:"title"`
	Subtitle  string `json:"subtitle"`
	Simulated bool   `json:"simulated,omitempty"`
	// Badge is the server's simulated label ("simulated (profile
	// tiny)"), "" when measured: the chart's badge says it even where
	// the run around it does not.
	Badge string `json:"badge,omitempty"`
	// KLD is the KL divergence's mean and p99 per context (nats, log
	// scale), with their 95 % intervals as whiskers, the noise floor's
	// mean as a band and the budget's bound; Top1 is the top-1 agreement
	// (%) the same way.
	KLD  LineChart `json:"kld"`
	Top1 LineChart `json:"top1"`
	// Drift is the table per context: figures with intervals, the floor
	// and the verdict; Needle the needle task per context with the
	// McNemar line against the reference; Tasks the task file's run.
	Drift  Table `json:"drift"`
	Needle Table `json:"needle"`
	Tasks  Table `json:"tasks"`
	// Flipped lists the task items whose verdict changed against the
	// reference's ("line 12, now wrong: …"), bounded (listed).
	Flipped []string `json:"flipped,omitempty"`
	// Notes say how to read the charts: the KL approximation, the
	// intervals, the budget, a KLD of 0 on the log axis.
	Notes []string `json:"notes,omitempty"`
}

// Words of the quality pictures.
const (
	qualityTitle    = "Quality drift against the reference"
	qualitySubtitle = "KL divergence and top-1 agreement by context length · whiskers and bands are 95 % intervals"
	// qualityKLDNote states the KL approximation (the issue asks for it).
	qualityKLDNote  = "KL divergence over each position's top-K tokens with one bucket for the rest of the vocabulary (which bounds it); intervals are 95 % bootstrap over probes."
	qualityZeroNote = "A KL divergence of 0 (the same distributions) is drawn at the foot of the log axis and labelled 0."
)

// BuildQuality turns a quality report into what its pictures and tables
// show. It never fails: a report with no contexts gives charts that say
// so. Values that cannot be drawn (not finite, negative, a context of no
// tokens) are left out; at most engine.MaxLevels contexts are drawn.
func BuildQuality(q engine.QualityReport) QualityModel {
	m := QualityModel{Title: qualityTitle, Subtitle: qualitySubtitle, Simulated: q.Server.Server.Simulated}
	if m.Simulated {
		m.Title += " (simulated)"
		m.Badge = q.Server.Server.SimulatedLabel()
	}
	ctxs := q.Contexts
	if len(ctxs) > engine.MaxLevels {
		ctxs = ctxs[:engine.MaxLevels]
	}
	kldBudget, top1Budget, _ := engine.ParseQualityBudget(q.Budget)
	// Strings from a file are bounded where they enter the pictures and
	// the page: the budget is repeated on every verdict.
	q.Budget = engine.BoundName(q.Budget)
	if q.Tasks != nil {
		t := *q.Tasks
		t.File = engine.BoundName(t.File)
		q.Tasks = &t
	}
	m.KLD, m.Top1 = buildQualityCharts(ctxs, q.NoiseFloor, kldBudget, top1Budget)
	m.Drift = buildDriftTable(q, ctxs)
	m.Needle = buildNeedleTable(q.Needle)
	m.Tasks, m.Flipped = buildTaskTable(q.Tasks)
	m.Notes = []string{qualityKLDNote}
	if q.Budget != "" {
		m.Notes = append(m.Notes, "Budget "+q.Budget+": a context is over it when its drift is past the bound and real (above the noise floor beyond both intervals).")
	}
	if hasZeroKLD(ctxs) {
		m.Notes = append(m.Notes, qualityZeroNote)
	}
	if len(q.Contexts) > len(ctxs) {
		m.Notes = append(m.Notes, fmt.Sprintf("The charts show the first %s of %s contexts.", report.Int(len(ctxs)), report.Int(len(q.Contexts))))
	}
	return m
}

// usable reports whether a figure read from a file can be drawn.
func usable(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }

// interval is a point's interval when it reads (Lo ≤ v ≤ Hi, all
// usable), else none (0, 0).
func interval(v float64, ci engine.QualityInterval) (lo, hi float64) {
	if usable(ci.Lo) && usable(ci.Hi) && ci.Lo <= v && v <= ci.Hi {
		return ci.Lo, ci.Hi
	}
	return 0, 0
}

func hasZeroKLD(ctxs []engine.ContextDrift) bool {
	for _, c := range ctxs {
		if c.Positions > 0 && (c.KLDMean == 0 || c.KLDP99 == 0) {
			return true
		}
	}
	return false
}

// formatNats writes a KL divergence: 0, 0.0123, 1.2e-5.
func formatNats(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 0.001:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strings.Replace(strconv.FormatFloat(v, 'g', 2, 64), "e-0", "e-", 1)
}

// formatQualityPct writes a percentage: 99.2 %, 100 %.
func formatQualityPct(v float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".0") + " %"
}

// withInterval is "v (lo–hi)", or v alone when the interval is empty.
func withInterval(v float64, ci engine.QualityInterval, format func(float64) string) string {
	if lo, hi := interval(v, ci); hi > lo {
		return fmt.Sprintf("%s (%s–%s)", format(v), strings.TrimSuffix(format(lo), " %"), format(hi))
	}
	return format(v)
}
