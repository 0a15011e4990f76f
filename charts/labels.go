package charts

import (
	"math"
	"sort"
)

// box is an axis-aligned rectangle in logical pixels.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlap(b box) float64 {
	w := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
	h := math.Min(a.y1, b.y1) - math.Max(a.y0, b.y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

func (a box) inside(b box) bool {
	return a.x0 >= b.x0 && a.y0 >= b.y0 && a.x1 <= b.x1 && a.y1 <= b.y1
}

// pointLabel asks for a label next to a point.
type pointLabel struct {
	px, py float64
	text   string
	style  textStyle
	below  bool // try below the point first
}

// placedLabel is a label's chosen box.
type placedLabel struct {
	pointLabel
	at box
}

// labelPadX and labelPadY pad a label's box (its halo).
const (
	labelPadX = 3.0
	labelPadY = 2.0
	labelGap  = 6.0
)

// placeLabels puts each label at the first spot around its point that
// overlaps no earlier label, no marker or line and stays inside bounds;
// failing that, at the spot that overlaps least. It is deterministic.
func placeLabels(reqs []pointLabel, obstacles []box, bounds box) []placedLabel {
	var placed []placedLabel
	for _, rq := range reqs {
		w := textWidth(rq.text, rq.style.font, rq.style.size) + 2*labelPadX
		h := rq.style.size + 2*labelPadY
		best, bestScore := box{}, math.Inf(1)
		for _, c := range candidates(rq, w, h) {
			score := 0.0
			if !c.inside(bounds) {
				score += 1e6
			}
			for _, p := range placed {
				score += 50 * c.overlap(p.at)
			}
			for _, o := range obstacles {
				score += c.overlap(o)
			}
			if score < bestScore {
				best, bestScore = c, score
			}
			if score == 0 {
				break
			}
		}
		placed = append(placed, placedLabel{pointLabel: rq, at: best})
	}
	return placed
}

// candidates are the spots to try, nearest first.
func candidates(rq pointLabel, w, h float64) []box {
	g, d := labelGap, labelGap*0.7
	offsets := [][2]float64{
		{-w / 2, -g - h}, {-w / 2, g}, {g + 2, -h / 2}, {-g - 2 - w, -h / 2},
		{d, -d - h}, {-d - w, -d - h}, {d, d}, {-d - w, d},
		{-w / 2, -2*g - 2*h}, {-w / 2, 2*g + h}, {d, -2*d - 2*h}, {-d - w, -2*d - 2*h},
		{d, 2*d + h}, {-d - w, 2*d + h},
	}
	if rq.below {
		offsets[0], offsets[1] = offsets[1], offsets[0]
		offsets[4], offsets[6] = offsets[6], offsets[4]
		offsets[5], offsets[7] = offsets[7], offsets[5]
		offsets[8], offsets[9] = offsets[9], offsets[8]
	}
	out := make([]box, len(offsets))
	for i, o := range offsets {
		x0, y0 := rq.px+o[0], rq.py+o[1]
		out[i] = box{x0, y0, x0 + w, y0 + h}
	}
	return out
}

// dodgeEndLabels puts each label right of its point, then pushes labels
// that share an x apart vertically so that none overlap, keeping each as
// near its line's end as it can and inside [top, bottom].
func dodgeEndLabels(reqs []pointLabel, top, bottom float64) []placedLabel {
	out := make([]placedLabel, len(reqs))
	groups := map[int][]int{}
	for i, rq := range reqs {
		w := textWidth(rq.text, rq.style.font, rq.style.size) + 2*labelPadX
		h := rq.style.size + 2*labelPadY
		x0 := rq.px + labelGap + 2
		out[i] = placedLabel{pointLabel: rq, at: box{x0, rq.py - h/2, x0 + w, rq.py + h/2}}
		key := int(math.Round(rq.px))
		groups[key] = append(groups[key], i)
	}
	for _, idx := range groups {
		sort.Slice(idx, func(a, b int) bool { return out[idx[a]].py < out[idx[b]].py })
		for k := 1; k < len(idx); k++ {
			prev, cur := &out[idx[k-1]].at, &out[idx[k]].at
			if push := prev.y1 - cur.y0; push > 0 {
				cur.y0, cur.y1 = cur.y0+push, cur.y1+push
			}
		}
		// Pull the stack back up if it ran past the bottom, then down if
		// that took it over the top.
		shift := math.Min(0, bottom-out[idx[len(idx)-1]].at.y1)
		shift = math.Max(shift, top-out[idx[0]].at.y0)
		for _, i := range idx {
			out[i].at.y0 += shift
			out[i].at.y1 += shift
		}
	}
	return out
}

// lineObstacles samples a polyline into small boxes every few pixels.
func lineObstacles(ps []pt, halfW float64) []box {
	var out []box
	for i := 0; i+1 < len(ps); i++ {
		a, b := ps[i], ps[i+1]
		n := int(math.Hypot(b.X-a.X, b.Y-a.Y)/4) + 1
		for k := 0; k <= n; k++ {
			x := a.X + (b.X-a.X)*float64(k)/float64(n)
			y := a.Y + (b.Y-a.Y)*float64(k)/float64(n)
			out = append(out, box{x - halfW, y - halfW, x + halfW, y + halfW})
		}
	}
	return out
}

// drawLabels draws placed labels over a halo of the background colour.
func drawLabels(d *Drawing, p palette, labels []placedLabel) {
	for _, l := range labels {
		d.roundRect(l.at.x0, l.at.y0, l.at.x1-l.at.x0, l.at.y1-l.at.y0, 3, withAlpha(p.bg, 0.88), withAlpha(p.bg, 0), 0)
		st := l.style
		st.anchor = anchorStart
		// The baseline sits a cap height (about 0.72 em) below the padded top.
		d.text(l.at.x0+labelPadX, l.at.y0+labelPadY+0.8*st.size, l.text, st)
	}
}
