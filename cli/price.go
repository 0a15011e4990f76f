package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"speedmatrix/engine"
	"speedmatrix/engine/report"
)

// priceFlags are the price options that `run` and `report` share: the
// user's own figures, which cost is computed from; none is guessed.
type priceFlags struct {
	perHour, perKWh string
}

// The price flags and what each asks for, in words for their errors.
const (
	flagPricePerHour = "price-per-hour"
	flagPricePerKWh  = "price-per-kwh"
	askPerHour       = "give the GPU box's rent in US dollars per hour, e.g. 2.50"
	askPerKWh        = "give the electricity price in US dollars per kWh, e.g. 0.30"
)

// register adds --price-per-hour and --price-per-kwh to fs.
func (p *priceFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&p.perHour, flagPricePerHour, "", what+": the GPU box's rent, USD per hour, e.g. 2.50 (its share of each cell's price per million output tokens)")
	fs.StringVar(&p.perKWh, flagPricePerKWh, "", what+": electricity, USD per kWh, e.g. 0.30, applied to each cell's measured energy")
}

// anySet reports whether a price flag was given.
func (p priceFlags) anySet(set map[string]bool) bool {
	return set[flagPricePerHour] || set[flagPricePerKWh]
}

// prices are the prices the flags give, nil when none is; one line naming
// the flag when one is not a price (cmd prefixes it: "run", "report").
func (p priceFlags) prices(cmd string, set map[string]bool) (*engine.Prices, error) {
	if !p.anySet(set) {
		return nil, nil
	}
	var out engine.Prices
	for _, f := range []struct {
		name, which, raw, ask string
		to                    *float64
	}{{flagPricePerHour, engine.PriceRent, p.perHour, askPerHour, &out.PerHourUSD}, {flagPricePerKWh, engine.PriceElectricity, p.perKWh, askPerKWh, &out.PerKWhUSD}} {
		if !set[f.name] {
			continue
		}
		v, err := engine.ParsePrice(f.which, f.raw)
		var pe *engine.PriceError
		switch {
		case errors.As(err, &pe):
			return nil, fmt.Errorf("%s: --%s: %s: %s", cmd, f.name, pe, f.ask)
		case v == 0:
			return nil, fmt.Errorf("%s: --%s %q gives no price: leave the flag out, or %s", cmd, f.name, engine.BoundName(f.raw), f.ask)
		}
		*f.to = v
	}
	return &out, nil
}

// writeEnergyLines prints the report's energy and cost lines
// (report.EnergyLines: how energy was measured, the idle power, tokens
// per joule, where the prices come from, the cheapest cell); a simulated
// run's say so.
func writeEnergyLines(w io.Writer, r engine.Report) {
	writeLabelled(w, r, "energy: ", "energy", report.EnergyLines(r))
}
