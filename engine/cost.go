package engine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Prices are the user's own figures that cost comes from; nothing is
// guessed: a price not given is 0 and its part of the cost is left out.
type Prices struct {
	// PerHourUSD is the GPU box's rent, US dollars per hour.
	PerHourUSD float64 `json:"usd_per_hour,omitempty"`
	// PerKWhUSD is electricity, US dollars per kWh, applied to the
	// measured energy.
	PerKWhUSD float64 `json:"usd_per_kwh,omitempty"`
}

// The most a price may be: a rent of 10,000 USD an hour is more than the
// largest GPU cluster a run could measure rents for, and 10 USD a kWh more
// than any grid charges.
const (
	MaxPricePerHourUSD = 10_000
	MaxPricePerKWhUSD  = 10
)

// Any reports whether a price is given.
func (p *Prices) Any() bool { return p != nil && (p.PerHourUSD > 0 || p.PerKWhUSD > 0) }

// ErrPrice is what a price outside its bounds wraps.
var ErrPrice = errors.New("price out of range")

// PriceError is a price that cannot be: which one and why, without naming
// a flag or a field (the CLI and the app name theirs).
type PriceError struct {
	Which   string // PriceRent or PriceElectricity
	Problem string // "is negative (-1)", "is more than 10000 USD per hour (1e+12)", `"abc" is not a number`
}

func (e *PriceError) Error() string { return "the " + e.Which + " price " + e.Problem }
func (e *PriceError) Unwrap() error { return ErrPrice }

// CheckPrice holds one price (PriceRent or PriceElectricity) to its
// bounds: finite, not negative, at most its maximum; 0 is "not given".
func CheckPrice(which string, v float64) error {
	max, unit := float64(MaxPricePerHourUSD), "USD per hour"
	if which == PriceElectricity {
		max, unit = MaxPricePerKWhUSD, "USD per kWh"
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return &PriceError{which, fmt.Sprintf("is not a number (%v)", v)}
	case v < 0:
		return &PriceError{which, fmt.Sprintf("is negative (%v)", v)}
	case v > max:
		return &PriceError{which, fmt.Sprintf("is more than %v %s (%v)", max, unit, v)}
	}
	return nil
}

// The two prices, as PriceError.Which, CheckPrice and ParsePrice name
// them.
const (
	PriceRent        = "rent"
	PriceElectricity = "electricity"
)

// ParsePrice reads a price as the user typed it ("2.50", " 0.3 "): ""
// is not given (0); a *PriceError when it is not a number or outside its
// bounds. It is the one rule the CLI's flags and the app's fields read
// prices by.
func ParsePrice(which, text string) (float64, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	if err != nil {
		return 0, &PriceError{which, fmt.Sprintf("%q is not a number", BoundName(s))}
	}
	return v, CheckPrice(which, v)
}

// Check holds both prices to their bounds.
func (p Prices) Check() error {
	if err := CheckPrice(PriceRent, p.PerHourUSD); err != nil {
		return err
	}
	return CheckPrice(PriceElectricity, p.PerKWhUSD)
}

// Cost is a decode cell's price per million output tokens, and its parts.
type Cost struct {
	RentUSD        float64 // the rent's share: PerHourUSD ÷ 3600 ÷ total tok/s × 1e6
	ElectricityUSD float64 // kWh per output token × PerKWhUSD × 1e6
	TotalUSD       float64
	// Parts names what went into it: "rent 2.50 USD/h + electricity
	// 0.30 USD/kWh (simulated energy)".
	Parts string
}

// CostOf is a Valid decode cell's price per million output tokens under
// p, and false when p gives no price or no part of it can be computed (no
// measured energy for electricity alone).
func CostOf(r Result, p *Prices) (Cost, bool) {
	if !p.Any() || !r.Measured() || r.Phase != PhaseDecode || r.TotalTokPerSec <= 0 {
		return Cost{}, false
	}
	var c Cost
	var parts []string
	if p.PerHourUSD > 0 {
		c.RentUSD = p.PerHourUSD / 3600 / r.TotalTokPerSec * 1e6
		parts = append(parts, fmt.Sprintf("rent %s USD/h", priceText(p.PerHourUSD)))
	}
	if p.PerKWhUSD > 0 && r.Energy != nil && r.Energy.JoulesPerToken > 0 {
		c.ElectricityUSD = r.Energy.JoulesPerToken / 3.6e6 * p.PerKWhUSD * 1e6
		part := fmt.Sprintf("electricity %s USD/kWh", priceText(p.PerKWhUSD))
		if r.Energy.Simulated {
			part += " (simulated energy)"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return Cost{}, false
	}
	c.TotalUSD = c.RentUSD + c.ElectricityUSD
	c.Parts = strings.Join(parts, " + ")
	return c, true
}

// priceText writes a price with at least two decimals, and as many as
// the user gave: 2.50, 0.30, 0.125.
func priceText(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	switch i := strings.IndexByte(s, '.'); {
	case i < 0:
		return s + ".00"
	case len(s)-i == 2:
		return s + "0"
	}
	return s
}

// Text says where the prices come from: "prices given by the user:
// rent 2.50 USD/h, electricity 0.30 USD/kWh".
func (p *Prices) Text() string {
	var parts []string
	if p.PerHourUSD > 0 {
		parts = append(parts, "rent "+priceText(p.PerHourUSD)+" USD/h")
	}
	if p.PerKWhUSD > 0 {
		parts = append(parts, "electricity "+priceText(p.PerKWhUSD)+" USD/kWh")
	}
	return "prices given by the user: " + strings.Join(parts, ", ")
}
