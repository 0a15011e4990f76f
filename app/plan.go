package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// Matrix presets.
const (
	PresetQuick    = "Quick"
	PresetStandard = "Standard"
	PresetCustom   = "Custom"
)

// Capacity is what the target can hold, when known (0: unknown).
type Capacity = engine.Limits

// QuickPlan is a matrix of about two minutes; for a small model (max length
// 16K or less, such as the tiny simulator) one of about a minute that fits it.
// Its windows are fixed: short already, they are what Quick is for; a
// first look measures each prefill context once.
func QuickPlan(c Capacity) engine.Plan {
	p := engine.DefaultPlan()
	p.Precision = 0
	p.PrefillRepeats, p.PrefillSingleFrom = 1, 0
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

// PresetPlan is the plan of a named preset.
func PresetPlan(name string, c Capacity) engine.Plan {
	if name == PresetQuick {
		return QuickPlan(c)
	}
	return engine.DefaultPlan()
}

// CellCounts is the number of decode cells of p (fitted) that will run on
// c, and of those over its capacity.
func CellCounts(p engine.Plan, c Capacity) (run, over int) {
	for _, ctx := range p.DecodeContexts {
		for _, n := range p.Concurrency {
			if c.OverCapacity(ctx, n, p.MaxOutputTokens) {
				over++
			} else {
				run++
			}
		}
	}
	return run, over
}

// ReadWhole reads a field's whole number of unit. A number past what the
// program holds is too large, with the most the field takes (max, its plan
// check's bound): "write a whole number" was wrong for one of 20 digits.
func ReadWhole(text string, max int, unit, example string) (int, error) {
	t := strings.TrimSpace(text)
	n, err := strconv.Atoi(t)
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(t, "-"):
		return 0, fmt.Errorf("too large: write at most %s %s", report.Int(max), unit)
	case err != nil:
		return 0, fmt.Errorf("write a whole number of %s, e.g. %s", unit, example)
	}
	return n, nil
}

// FormatDuration writes a duration the way a progress line reads: 1:05:03, 4:07, 0:09.
func FormatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// FormatAbout writes an estimate in words: "about 2 min", "about 1 h 5 min".
func FormatAbout(d time.Duration) string {
	m := int(d.Round(time.Minute).Minutes())
	switch {
	case d < time.Minute:
		return fmt.Sprintf("about %d s", int(d.Round(time.Second).Seconds()))
	case m < 60:
		return fmt.Sprintf("about %d min", m)
	}
	return fmt.Sprintf("about %d h %d min", m/60, m%60)
}
